/* checkpoint.h — the container of a run's checkpoint (issue 34): tagged
 * sections of bytes, written whole to a temporary name and renamed, read back
 * whole and checked before anything is used.
 *
 * Layout: the magic line "pfbench checkpoint 1\n", then sections, each a
 * four-character tag, its length (8 bytes, little-endian as this machine
 * writes it) and its bytes, then the tag "END " with the FNV-1a 64 hash of
 * everything before it.  A checkpoint is read on the machine and commit that
 * wrote it (the run refuses another commit), so values are stored in their
 * native form.  What the sections hold is run.c's business (and each
 * solver's: solver.h's save and load). */
#ifndef PFB_CHECKPOINT_H
#define PFB_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

/* A checkpoint being written (in memory until ckpt_commit). */
typedef struct pfb_ckpt_w {
    FILE *f;
    char *buf;
    size_t len;
} pfb_ckpt_w;

int ckpt_begin(pfb_ckpt_w *w, pfb_err *err);
/* One section: tag (4 characters) and n bytes at p. */
void ckpt_put(pfb_ckpt_w *w, const char *tag, const void *p, size_t n);
/* Several values as one section: the concatenation of (p_k, n_k) pairs, NULL-terminated. */
void ckpt_put_many(pfb_ckpt_w *w, const char *tag, ...);
/* Seal and write it atomically to path (temporary name, then rename). */
int ckpt_commit(pfb_ckpt_w *w, const char *path, pfb_err *err);
void ckpt_abort(pfb_ckpt_w *w);

/* A checkpoint read back (whole, checked). */
typedef struct pfb_ckpt_r {
    char *buf;
    size_t len, pos;
    const char *path;
} pfb_ckpt_r;

/* Read path whole and check its magic, its sections' framing and its hash:
 * a missing, truncated, corrupt or foreign file fails with one line naming it. */
int ckpt_open(pfb_ckpt_r *r, const char *path, pfb_err *err);
/* The same for len bytes at data (copied), named name in messages (the fuzz
 * target's entry; name must outlive r). */
int ckpt_open_mem(pfb_ckpt_r *r, const void *data, size_t len, const char *name, pfb_err *err);
/* The next section, which must carry tag: its bytes and length. */
int ckpt_get(pfb_ckpt_r *r, const char *tag, const void **p, size_t *n, pfb_err *err);
/* The next section into n bytes at p (its length must be n). */
int ckpt_get_exact(pfb_ckpt_r *r, const char *tag, void *p, size_t n, pfb_err *err);
void ckpt_close(pfb_ckpt_r *r);

#endif
