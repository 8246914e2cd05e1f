/* output.h — series.csv, run.meta, particle snapshots (CSV or VTK .vtp + .pvd).
 *
 * Every file is written under a temporary name (NAME.tmp) and renamed when
 * complete, so an interrupted run never leaves a truncated file that looks whole. */
#ifndef PFB_OUTPUT_H
#define PFB_OUTPUT_H

#include <stdio.h>
#include "diag.h"
#include "error.h"
#include "sim.h"

/* The fixed leading columns of series.csv, in order (DESIGN.md). */
extern const char *const pfb_series_columns[];

typedef struct pfb_series {
    FILE *f;
    char path[4096];
    char tmp[4096];
    size_t nextra;
} pfb_series;

/* The series written so far (header and rows), read back from its temporary
 * file: *text (free it) of *len bytes. */
int series_text(pfb_series *s, char **text, size_t *len, pfb_err *err);

/* Replace what the series holds by text (a resumed run's rows so far). */
int series_restore(pfb_series *s, const char *text, size_t len, pfb_err *err);

/* Create DIR (and parents) if missing and check it is writable. */
int output_prepare_dir(const char *dir, pfb_err *err);

/* Open DIR/series.csv (as a temporary) and write the header; extra may be NULL. */
int series_open(pfb_series *s, const char *dir, const char *const *extra, pfb_err *err);

/* Append one row: frame number, diagnostics and the extra values. */
int series_row(pfb_series *s, long frame, const pfb_diag *d, const double *extra, pfb_err *err);

/* Flush, close and rename into place. */
int series_close(pfb_series *s, pfb_err *err);

/* Close and delete the temporary (on failure). */
void series_abort(pfb_series *s);

/* Write text to path atomically (via path.tmp and rename). */
int output_write_file(const char *path, const char *text, size_t len, pfb_err *err);

/* The whole of the file path into *text (NUL-terminated after its *len
 * bytes; free it).  what names the file in the messages ("the checkpoint").
 * Files are read whole: a checkpoint, a run's tables and its metadata. */
int output_read_file(const char *path, const char *what, char **text, size_t *len, pfb_err *err);

/* Close the open_memstream mem (of *text, *len) and write its text to path as
 * output_write_file does; *text is freed either way.  A failed close (out of
 * memory) writes nothing. */
int output_write_stream(FILE *mem, char **text, size_t *len, const char *path, pfb_err *err);

/* Snapshot of all particles as DIR/frames/frame_NNNNN.csv
 * (x,y,z,vx,vy,vz,mass, then every registered field). */
int output_frame_csv(const char *dir, long frame, const pfb_sim *sim, pfb_err *err);

/* Snapshot as VTK XML PolyData DIR/frames/frame_NNNNN.vtp (ASCII). */
int output_frame_vtp(const char *dir, long frame, const pfb_sim *sim, pfb_err *err);

/* ParaView collection DIR/frames.pvd listing frames 0..nframes-1 at times t[]. */
int output_pvd(const char *dir, long nframes, const double *t, pfb_err *err);

#endif
