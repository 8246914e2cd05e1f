/* pcg.h — preconditioned conjugate gradients on a compressed-row matrix
 * (csr.h), with Jacobi's or the multigrid's (amg.h) preconditioner, or on an
 * operator given by its action (pfb_linop: no stored matrix) with Jacobi's; the
 * same bits for any thread count. */
#ifndef PFB_PCG_H
#define PFB_PCG_H

#include <stddef.h>

#include "amg.h"
#include "csr.h"
#include "error.h"

/* Preconditioners of pcg_solve. */
enum { PFB_PRECOND_NONE = 0, PFB_PRECOND_JACOBI = 1, PFB_PRECOND_AMG = 2 };

/* Solve A x = b (A symmetric positive definite) by preconditioned conjugate
 * gradients until |b - A x| <= tol |b| or max_iter iterations; x holds the initial
 * guess on entry.  work holds pcg_work(n) doubles.  Reports the iterations and the final
 * relative residual.  Runs on `threads` threads (0: the OpenMP default); every
 * sum is formed over fixed blocks in a fixed order, so the result does not
 * depend on the thread count.  precond PFB_PRECOND_AMG needs amg, set up for A
 * (amg_setup); the others ignore it.  Returns PFB_OK, or PFB_EINVAL for an
 * unknown preconditioner or an AMG one without a hierarchy of A. */
/* Doubles of workspace pcg_solve needs for n unknowns: 5 vectors and the partial
 * sums of its fixed blocks (so a solve allocates nothing). */
size_t pcg_work(size_t n);

int pcg_solve(const pfb_csr *A, const double *b, double *x, double tol, int max_iter, int precond, const pfb_amg *amg,
           int threads, double *work, int *iters, double *resid, pfb_err *err);

/* Stopping rules of pcg_solve_stop. */
enum {
    PFB_PCG_RELATIVE = 0, /* |b - A x| <= tol |b| (pcg_solve's rule) */
    PFB_PCG_MEAN_ABS = 1  /* sum_u |b - A x|_u / count <= tol: a mean error in the
                           * units of b, the rule of a solve whose residual is a
                           * per-unknown error (a density error per particle) */
};

typedef struct pfb_pcg_stop {
    int rule;     /* PFB_PCG_RELATIVE or PFB_PCG_MEAN_ABS */
    double tol;   /* the rule's tolerance */
    size_t count; /* PFB_PCG_MEAN_ABS: the count the sum is divided by (0: n) */
} pfb_pcg_stop;

/* A symmetric positive definite operator given by its action, for a solve that
 * stores no matrix: apply sets y = A x for the n unknowns (threads: the team it
 * may use; its bits must not depend on it); diag is A's diagonal, for Jacobi's
 * preconditioner, or NULL. */
typedef struct pfb_linop {
    size_t n;
    void (*apply)(void *ctx, const double *x, double *y, int threads);
    void *ctx;
    const double *diag;
} pfb_linop;

/* pcg_solve_stop on an operator: preconditioner PFB_PRECOND_NONE, or
 * PFB_PRECOND_JACOBI with A->diag (the multigrid needs a matrix: PFB_EINVAL).
 * On the operator of a matrix it gives pcg_solve_stop's bits. */
int pcg_solve_op(const pfb_linop *A, const double *b, double *x, const pfb_pcg_stop *stop, int max_iter, int precond,
                 int threads, double *work, int *iters, double *resid, pfb_err *err);

/* pcg_solve with the stopping rule *stop; *resid is the rule's measure at the end
 * (|r| / |b|, or the mean |r|).  The mean is summed over the same fixed blocks as
 * every other sum, so it too is the same for any thread count. */
int pcg_solve_stop(const pfb_csr *A, const double *b, double *x, const pfb_pcg_stop *stop, int max_iter, int precond,
                   const pfb_amg *amg, int threads, double *work, int *iters, double *resid, pfb_err *err);

#endif
