/* mao_yang.h — pieces of the Mao–Yang back end exposed for tests: the pressure
 * matrix of eqs. 7-8, its preconditioned conjugate-gradient solve, and the stress
 * update of eqs. 9-17.  The solver itself is the table pfb_solver_mao_yang. */
#ifndef PFB_MAO_YANG_H
#define PFB_MAO_YANG_H

#include <stddef.h>

#include "../core/error.h"
#include "../core/sim.h"

/* A square sparse matrix in compressed rows; the diagonal entry of each row comes
 * first, then the off-diagonal entries in increasing column order. */
typedef struct my_csr {
    size_t n;              /* rows (unknowns) */
    size_t *start;         /* n + 1 row offsets */
    size_t *col;
    double *val;
    size_t cap_n, cap_nz;
} my_csr;

/* Room for need elements of elem bytes in *ptr (capacity *cap, doubled as needed). */
int my_grow(void **ptr, size_t *cap, size_t need, size_t elem, pfb_err *err);

/* Room for nz entries (columns and values) in A. */
int my_csr_reserve(my_csr *A, size_t nz, pfb_err *err);

/* Preconditioners of my_pcg. */
enum { MY_PRECOND_NONE = 0, MY_PRECOND_JACOBI = 1, MY_PRECOND_AMG = 2 };

/* The aggregation multigrid preconditioner (mao_yang_amg.c): a hierarchy of
 * Galerkin matrices over aggregates of up to four rows, applied as one
 * symmetric W-cycle.  Zero it before the first my_amg_setup; the storage is
 * kept and reused by later setups. */
#define MY_AMG_MAX_LEVELS 24
typedef struct my_amg_level {
    my_csr A;              /* this level's matrix (level 0 is the caller's: unused) */
    size_t nc;             /* rows of the next level */
    size_t *agg;           /* n: the next level's row of each row */
    size_t *mstart, *mem;  /* the rows of each next-level row: mem[mstart[c] .. mstart[c+1]-1] */
    double *vec;           /* 4 n: the cycle's x, residual, coarse right-hand side, omega / diagonal */
    size_t cap_agg, cap_ms, cap_mem, cap_vec;
} my_amg_level;

typedef struct my_amg {
    const my_csr *A0;      /* the matrix of the last setup */
    size_t n0;             /* its rows */
    int nlev;              /* levels below the finest; lev[nlev] is solved directly */
    int ready;
    my_amg_level lev[MY_AMG_MAX_LEVELS];
    size_t *mstart, *mem, *mark, *agg2;    /* setup scratch */
    double *chol;          /* the coarsest level's dense Cholesky factor */
    size_t cap_ms, cap_mem, cap_mark, cap_agg2, cap_chol;
} my_amg;

/* Build the hierarchy of A (a diagonally dominant symmetric M-matrix, the diagonal
 * first in each row).  Runs on one thread; deterministic. */
int my_amg_setup(my_amg *g, const my_csr *A, pfb_err *err);

/* z = M^-1 r: one W-cycle of the hierarchy from zero, on `threads` threads; the
 * bits do not depend on their number. */
void my_amg_apply(const my_amg *g, const double *r, double *z, int threads);

/* Free a hierarchy's storage (accepts a zeroed one). */
void my_amg_free(my_amg *g);

/* Solve A x = b (A symmetric positive definite) by preconditioned conjugate
 * gradients until |b - A x| <= tol |b| or max_iter iterations; x holds the initial
 * guess on entry.  work holds my_pcg_work(n) doubles.  Reports the iterations and the final
 * relative residual.  Runs on `threads` threads (0: the OpenMP default); every
 * sum is formed over fixed blocks in a fixed order, so the result does not
 * depend on the thread count.  precond MY_PRECOND_AMG needs amg, set up for A
 * (my_amg_setup); the others ignore it.  Returns PFB_OK, or PFB_EINVAL for an
 * unknown preconditioner or an AMG one without a hierarchy of A. */
/* Doubles of workspace my_pcg needs for n unknowns: 5 vectors and the partial
 * sums of its fixed blocks (so a solve allocates nothing). */
size_t my_pcg_work(size_t n);

int my_pcg(const my_csr *A, const double *b, double *x, double tol, int max_iter, int precond, const my_amg *amg,
           int threads, double *work, int *iters, double *resid, pfb_err *err);

/* Assemble the pressure system of eqs. 7-8 at the current positions (taken as the
 * predicted positions x*): density (eq. 4, wall mirrors included), surface flags,
 * matrix and right-hand side for time step dt.  *A and *b stay owned by the state;
 * rows[u] is the particle index of unknown u. */
int my_pressure_system(void *state, pfb_sim *sim, double dt, const my_csr **A, const double **b,
                       const size_t **rows, pfb_err *err);

/* One explicit Euler step of the stress rate (eqs. 9-17) from the velocity
 * gradient (eq. 16) at the current positions and velocities; the stress is the
 * 9-component particle field "stress" (row-major 3x3). */
int my_stress_update(void *state, pfb_sim *sim, double dt, pfb_err *err);

#endif
