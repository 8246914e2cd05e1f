/* pcg.c — preconditioned conjugate gradients (pcg.h). */
#include "pcg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* The PCG's vectors are cut into fixed blocks of PCG_BLOCK entries; every sum
 * over them is formed block by block (each block's partial sum in entry order,
 * then the partials in block order), so the threads that compute the blocks do
 * not change a bit of the result. */
#define PCG_BLOCK 2048

/* OpenMP's default team size (1 without OpenMP). */
static int pcg_max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

typedef struct pcg_ctx {
    const pfb_linop *op;
    size_t n, nb;          /* entries and blocks */
    int nt;                /* threads */
    double *part;          /* 2 nb partial sums (the end of the caller's workspace) */
} pcg_ctx;

/* Sum of the first nb partials of part in block order (and of the second ones,
 * part[nb + b], into *s2 when s2 is not NULL). */
static double sum_parts(const pcg_ctx *c, double *s2)
{
    double s = 0.0, t = 0.0;
    for (size_t b = 0; b < c->nb; b++) {
        s += c->part[b];
        t += c->part[c->nb + b];
    }
    if (s2)
        *s2 = t;
    return s;
}

/* a . b, and into *ac (when not NULL) a . cc, or sum |a| when abs_a (the
 * mean-error rule's measure, summed in the same blocks as the loop's) */
static double pcg_dot(const pcg_ctx *c, const double *a, const double *b, const double *cc, int abs_a, double *ac)
{
    const size_t n = c->n, nb = c->nb;
    double *part = c->part;
#pragma omp parallel for schedule(dynamic, 1) num_threads(c->nt) if (c->nt > 1)
    for (size_t bl = 0; bl < nb; bl++) {
        const size_t lo = bl * PCG_BLOCK, hi = lo + PCG_BLOCK < n ? lo + PCG_BLOCK : n;
        double s = 0.0, t = 0.0;
        for (size_t i = lo; i < hi; i++) {
            s += a[i] * b[i];
            t += abs_a ? fabs(a[i]) : cc ? a[i] * cc[i] : 0.0;
        }
        part[bl] = s;
        part[nb + bl] = t;
    }
    return sum_parts(c, ac);
}

/* y = A x (the operator's action); returns x . y over the fixed blocks */
static double pcg_mul(const pcg_ctx *c, const double *x, double *y)
{
    c->op->apply(c->op->ctx, x, y, c->nt);
    return pcg_dot(c, x, y, NULL, 0, NULL);
}

/* The action of a compressed-row matrix: each block of rows by one thread. */
static void csr_apply(void *ctx, const double *x, double *y, int threads)
{
    const pfb_csr *A = ctx;
    const size_t n = A->n, nb = (n + PCG_BLOCK - 1) / PCG_BLOCK;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
    for (size_t bl = 0; bl < nb; bl++) {
        const size_t lo = bl * PCG_BLOCK, hi = lo + PCG_BLOCK < n ? lo + PCG_BLOCK : n;
        for (size_t u = lo; u < hi; u++) {
            double s = 0.0;
            for (size_t e = A->start[u]; e < A->start[u + 1]; e++)
                s += A->val[e] * x[A->col[e]];
            y[u] = s;
        }
    }
}

size_t pcg_work(size_t n)
{
    return 5 * n + 2 * ((n + PCG_BLOCK - 1) / PCG_BLOCK);
}

int pcg_solve(const pfb_csr *A, const double *b, double *x, double tol, int max_iter, int precond, const pfb_amg *amg,
           int threads, double *work, int *iters, double *resid, pfb_err *err)
{
    const pfb_pcg_stop stop = {PFB_PCG_RELATIVE, tol, 0};
    return pcg_solve_stop(A, b, x, &stop, max_iter, precond, amg, threads, work, iters, resid, err);
}

/* The solve, on the operator op (with the multigrid amg when mg). */
static int pcg_run(const pfb_linop *op, int mg, const pfb_amg *amg, const double *b, double *x, const pfb_pcg_stop *stop,
                   int max_iter, int precond, int threads, double *work, int *iters, double *resid, pfb_err *err)
{
    const size_t n = op->n;
    double *r = work, *z = work + n, *d = work + 2 * n, *q = work + 3 * n, *dinv = work + 4 * n;
    *iters = 0;
    *resid = 0.0;
    if (stop->rule != PFB_PCG_RELATIVE && stop->rule != PFB_PCG_MEAN_ABS)
        return pfb_err_set(err, PFB_EINVAL, "PCG stopping rule %d is unknown; valid: 0 (relative), 1 (mean abs)",
                           stop->rule);
    if (n == 0)
        return PFB_OK;
    const int mean_abs = stop->rule == PFB_PCG_MEAN_ABS;
    const double tol = stop->tol, count = (double)(stop->count ? stop->count : n);
    pcg_ctx c = {op, n, (n + PCG_BLOCK - 1) / PCG_BLOCK, 1, work + 5 * n};
#ifdef _OPENMP
    c.nt = threads > 0 ? threads : pcg_max_threads();
#else
    (void)threads;
#endif
    if (c.nb < 4)
        c.nt = 1; /* a few blocks cost less than a fork */
    for (size_t u = 0; u < n; u++)
        dinv[u] = precond == PFB_PRECOND_JACOBI && op->diag[u] > 0 ? 1.0 / op->diag[u] : 1.0;
    double bn = sqrt(pcg_dot(&c, b, b, NULL, 0, NULL));
    if (bn == 0.0) {
        memset(x, 0, n * sizeof *x);
        return PFB_OK;
    }
    /* the rule's bound on its measure rn: tol |b|, or tol (the mean |r| is rn) */
    const double bound = mean_abs ? tol : tol * bn;
    pcg_mul(&c, x, q);
    for (size_t u = 0; u < n; u++) {
        r[u] = b[u] - q[u];
        z[u] = dinv[u] * r[u];
    }
    if (mg)
        amg_apply(amg, r, z, c.nt);
    memcpy(d, z, n * sizeof *d);
    double rr;
    double rz = pcg_dot(&c, r, z, r, mean_abs, &rr);
    double rn = mean_abs ? rr / count : sqrt(rr);
    int k = 0;
    while (rn > bound && k < max_iter) {
        const double dq = pcg_mul(&c, d, q);
        if (!(dq > 0))
            break; /* not positive definite along d: stop with what we have */
        const double alpha = rz / dq;
        /* x += alpha d, r -= alpha q, z = M^-1 r, with r.z and r.r per block
         * (the multigrid's z after the loop, and r.z over again) */
        const size_t nb = c.nb;
        double *part = c.part;
#pragma omp parallel for schedule(dynamic, 1) num_threads(c.nt) if (c.nt > 1)
        for (size_t bl = 0; bl < nb; bl++) {
            const size_t lo = bl * PCG_BLOCK, hi = lo + PCG_BLOCK < n ? lo + PCG_BLOCK : n;
            double s = 0.0, t = 0.0;
            for (size_t u = lo; u < hi; u++) {
                x[u] += alpha * d[u];
                r[u] -= alpha * q[u];
                z[u] = dinv[u] * r[u];
                s += r[u] * z[u];
                t += mean_abs ? fabs(r[u]) : r[u] * r[u];
            }
            part[bl] = s;
            part[nb + bl] = t;
        }
        double rz1 = sum_parts(&c, &rr);
        if (mg) {
            amg_apply(amg, r, z, c.nt);
            rz1 = pcg_dot(&c, r, z, NULL, 0, NULL);
        }
        const double beta = rz1 / rz;
        rz = rz1;
#pragma omp parallel for schedule(dynamic, 4096) num_threads(c.nt) if (c.nt > 1)
        for (size_t u = 0; u < n; u++)
            d[u] = z[u] + beta * d[u];
        rn = mean_abs ? rr / count : sqrt(rr);
        k++;
    }
    *iters = k;
    *resid = mean_abs ? rn : rn / bn;
    return PFB_OK;
}

int pcg_solve_stop(const pfb_csr *A, const double *b, double *x, const pfb_pcg_stop *stop, int max_iter, int precond,
                   const pfb_amg *amg, int threads, double *work, int *iters, double *resid, pfb_err *err)
{
    *iters = 0;
    *resid = 0.0;
    if (precond != PFB_PRECOND_NONE && precond != PFB_PRECOND_JACOBI && precond != PFB_PRECOND_AMG)
        return pfb_err_set(err, PFB_EINVAL,
                           "PCG preconditioner %d is unknown; valid: 0 (none), 1 (jacobi), 2 (amg)", precond);
    const int mg = precond == PFB_PRECOND_AMG;
    if (mg && (!amg || !amg->ready || amg->A0 != A || amg->n0 != A->n))
        return pfb_err_set(err, PFB_EINVAL, "PCG preconditioner 2 (amg) needs a hierarchy set up for its matrix");
    /* the diagonal, the first entry of each row (csr.h), for Jacobi's */
    double *diag = work + 4 * A->n; /* the solve's dinv, which it overwrites in place */
    if (precond == PFB_PRECOND_JACOBI)
        for (size_t u = 0; u < A->n; u++)
            diag[u] = A->val[A->start[u]];
    const pfb_linop op = {A->n, csr_apply, (void *)A, diag};
    return pcg_run(&op, mg, amg, b, x, stop, max_iter, precond, threads, work, iters, resid, err);
}

int pcg_solve_op(const pfb_linop *A, const double *b, double *x, const pfb_pcg_stop *stop, int max_iter, int precond,
                 int threads, double *work, int *iters, double *resid, pfb_err *err)
{
    *iters = 0;
    *resid = 0.0;
    if (precond != PFB_PRECOND_NONE && precond != PFB_PRECOND_JACOBI)
        return pfb_err_set(err, PFB_EINVAL,
                           "PCG preconditioner %d on an operator is not available; valid: 0 (none), 1 (jacobi): "
                           "the multigrid needs a matrix", precond);
    if (precond == PFB_PRECOND_JACOBI && !A->diag)
        return pfb_err_set(err, PFB_EINVAL, "PCG preconditioner 1 (jacobi) needs the operator's diagonal");
    return pcg_run(A, 0, NULL, b, x, stop, max_iter, precond, threads, work, iters, resid, err);
}
