/* amg.h — an aggregation multigrid preconditioner for the symmetric M-matrices
 * of SPH pressure Poisson equations (amg.c says how it is built and why). */
#ifndef PFB_AMG_H
#define PFB_AMG_H

#include <stddef.h>

#include "csr.h"
#include "error.h"

/* The aggregation multigrid preconditioner (amg.c): a hierarchy of
 * Galerkin matrices over aggregates of up to four rows, applied as one
 * symmetric W-cycle.  Zero it before the first amg_setup; the storage is
 * kept and reused by later setups. */
#define AMG_MAX_LEVELS 24
typedef struct pfb_amg_level {
    pfb_csr A;              /* this level's matrix (level 0 is the caller's: unused) */
    size_t nc;             /* rows of the next level */
    size_t *agg;           /* n: the next level's row of each row */
    size_t *mstart, *mem;  /* the rows of each next-level row: mem[mstart[c] .. mstart[c+1]-1] */
    double *vec;           /* 4 n: the cycle's x, residual, coarse right-hand side, omega / diagonal */
    size_t cap_agg, cap_ms, cap_mem, cap_vec;
} pfb_amg_level;

typedef struct pfb_amg {
    const pfb_csr *A0;      /* the matrix of the last setup */
    size_t n0;             /* its rows */
    int nlev;              /* levels below the finest; lev[nlev] is solved directly */
    int ready;
    pfb_amg_level lev[AMG_MAX_LEVELS];
    size_t *mstart, *mem, *mark, *agg2;    /* setup scratch */
    double *chol;          /* the coarsest level's dense Cholesky factor */
    size_t cap_ms, cap_mem, cap_mark, cap_agg2, cap_chol;
} pfb_amg;

/* Build the hierarchy of A (a diagonally dominant symmetric M-matrix, the diagonal
 * first in each row).  Runs on one thread; deterministic. */
int amg_setup(pfb_amg *g, const pfb_csr *A, pfb_err *err);

/* z = M^-1 r: one W-cycle of the hierarchy from zero, on `threads` threads; the
 * bits do not depend on their number. */
void amg_apply(const pfb_amg *g, const double *r, double *z, int threads);

/* Free a hierarchy's storage (accepts a zeroed one). */
void amg_free(pfb_amg *g);

#endif
