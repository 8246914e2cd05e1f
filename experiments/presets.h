/* presets.h — material presets: the solver sections that say which fluid a run
 * simulates.
 *
 *   calibrated  the reference fluid (scenes/fluid.ini) as each method reaches it:
 *               scenes/calibrated.ini, written by `pfbench exp calibrate`; the
 *               default of every experiment
 *   paper       each paper's own values (scenes/paper.ini)
 *   none        the solvers' built-in defaults only (pfbench run's default)
 *   FILE        any INI file with [<solver>] sections (a path: contains '/' or
 *               ends in .ini), e.g. a freshly generated calibrated.ini
 *
 * The named presets are compiled into the binary from scenes/ (the Makefile turns
 * them into $(BUILD)/presets_gen.h), so `pfbench run --preset calibrated` gives the
 * calibrated fluid from any directory.  A preset sets only solver parameters; what a run's config
 * file and --set give afterwards overrides it. */
#ifndef PFB_PRESETS_H
#define PFB_PRESETS_H

#include <stddef.h>

#include "../core/error.h"
#include "../core/params.h"
#include "../core/solver.h"

typedef struct pfb_preset {
    char name[4096];  /* "calibrated", "paper", "none" or the file's path */
    const char *text; /* built-in INI text, or NULL (none or a file) */
    size_t len;
    int is_file;
} pfb_preset;

/* The experiments' default preset: the reference fluid. */
#define PFB_PRESET_DEFAULT "calibrated"

/* pfbench run's default: the same reference fluid, one material in every scene
 * (every solver runs every scene with it: tests/test_table.c); none gives the
 * solvers' built-in defaults, which are relative to each scene's v_ref. */
#define PFB_RUN_PRESET_DEFAULT "calibrated"

/* Resolve arg (a name or a path) into p; an unknown name or an unreadable file is
 * an error naming it and the valid names. */
int preset_resolve(const char *arg, pfb_preset *p, pfb_err *err);

/* Load p's [so->name] section into solver (other solvers' sections ignored; a
 * preset without the section sets nothing). */
int preset_apply(const pfb_preset *p, const pfb_solver_ops *so, pfb_params *solver, pfb_err *err);

#endif
