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

/* Preconditioners of my_pcg. */
enum { MY_PRECOND_NONE = 0, MY_PRECOND_JACOBI = 1 };

/* Solve A x = b (A symmetric positive definite) by preconditioned conjugate
 * gradients until |b - A x| <= tol |b| or max_iter iterations; x holds the initial
 * guess on entry.  work holds my_pcg_work(n) doubles.  Reports the iterations and the final
 * relative residual.  Runs on `threads` threads (0: the OpenMP default); every
 * sum is formed over fixed blocks in a fixed order, so the result does not
 * depend on the thread count.  Returns PFB_OK, or PFB_EINVAL for an unknown
 * preconditioner. */
/* Doubles of workspace my_pcg needs for n unknowns: 5 vectors and the partial
 * sums of its fixed blocks (so a solve allocates nothing). */
size_t my_pcg_work(size_t n);

int my_pcg(const my_csr *A, const double *b, double *x, double tol, int max_iter, int precond, int threads,
           double *work, int *iters, double *resid, pfb_err *err);

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
