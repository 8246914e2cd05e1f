/* amg.c — an aggregation multigrid preconditioner for the pressure Poisson
 * matrix of Mao and Yang's eqs. 7-8 (solvers/mao_yang_pressure.c), kept in core/ for any
 * solver with such a system (issue 33).
 *
 * Mao and Yang solve eq. 7 by PCG and name no preconditioner.  With Jacobi's,
 * the iterations grow like the system's diameter in particles, N^(1/3) in 3D,
 * and the time per step like N^(4/3).  A multigrid cycle makes the iterations
 * independent of N.  The matrix is the diagonally dominant M-matrix of
 * assemble_pressure (solvers/mao_yang_pressure.c), so a purely algebraic hierarchy serves:
 *
 *  - Aggregation: two passes of pairwise matching, each pairing every unmatched
 *    row, in row order, with its unmatched neighbour of strongest coupling (most
 *    negative off-diagonal entry, the lower column on a tie), or leaving it
 *    alone when it has none; the second pass matches the pairs of the first on
 *    their Galerkin matrix.  Aggregates so hold up to four rows ("double
 *    pairwise" aggregation, with plain strongest-coupling matching and no
 *    quality test).  Coarse rows are numbered in the order of their first row,
 *    so a cell-ordered fine level gives cell-ordered coarse levels.
 *  - Coarse matrices: A_c = P^T A P with P the piecewise-constant prolongation
 *    of the aggregates.  Summing a diagonally dominant M-matrix's rows and
 *    columns over aggregates gives again a diagonally dominant M-matrix, so
 *    damped Jacobi with omega = 2/3 < 2 / rho(D^-1 A) (rho <= 2 for such
 *    matrices) smooths every level.
 *  - The cycle (amg_cycle): one damped Jacobi sweep before (from zero) and one
 *    after the coarse correction, which is made twice (a W-cycle); the coarsest
 *    level (at most AMG_COARSEST rows) is solved by a dense Cholesky
 *    factorisation.  Pre- and post-smoothing being the same symmetric sweep,
 *    the cycle is a symmetric operator, as CG needs (test_amg_symmetric checks
 *    it is positive too).  The coarse correction is scaled by AMG_OVER:
 *    piecewise-constant prolongation overestimates the energy of smooth errors,
 *    and scaling the correction up compensates; 1.5 measured best here.  A
 *    V-cycle's iterations grew like N^0.2 on the dam break; the W-cycle's do
 *    not grow (AMG_OVER's comment).
 *
 * Determinism: the setup runs on one thread; in the cycle, every entry of every
 * vector is computed by one thread from the same operands in the same order,
 * so the result does not depend on the thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg.h"

#define AMG_COARSEST 64    /* rows of the level solved directly */
#define AMG_OMEGA (2.0 / 3.0)
/* Coarse-correction scaling (see the header): measured on the 3D dam break's
 * matrices (mu_e = 1000, lambda = 0.02) at 8,448 / 65,536 / 524,288 particles,
 * mean PCG iterations per solve to 1e-6, with a coarsest level of 256 rows:
 * W-cycle at 1.0: 17.3 / 19.1 / 20.6; at 1.5: 18.1 / 16.7 / 16.2 (V-cycle at
 * 1.0: 24.6 / 34.5 / 56.5; Jacobi: 117 / 229 / 445).  With 64 rows (the direct
 * solve's n^3 was a fixed cost per step at small N): 16.1 / 16.3 at the first
 * two sizes, and 15 to 21 from 10^3 to 10^6 particles (exp scaling). */
#define AMG_OVER 1.5
#define AMG_PAR 32768      /* matrix entries from which a level's loops run in parallel */

/* Pairwise matching of the rows of B (see the header): agg[u] = coarse row of u;
 * returns the number of coarse rows.  match is scratch of B->n entries. */
static size_t amg_match(const pfb_csr *B, size_t *agg)
{
    const size_t n = B->n, none = (size_t)-1;
    size_t nc = 0;
    for (size_t u = 0; u < n; u++)
        agg[u] = none;
    for (size_t u = 0; u < n; u++) {
        if (agg[u] != none)
            continue;
        size_t best = none;
        double bv = 0.0;
        for (size_t e = B->start[u] + 1; e < B->start[u + 1]; e++) {
            const size_t v = B->col[e];
            if (agg[v] == none && v != u && (B->val[e] < bv || (B->val[e] == bv && best != none && v < best))) {
                bv = B->val[e];
                best = v;
            }
        }
        agg[u] = nc;
        if (best != none)
            agg[best] = nc;
        nc++;
    }
    return nc;
}

/* C = P^T B P for the aggregates agg (nc of them), the diagonal first in each
 * row; mark (nc entries, all (size_t)-1 on entry and exit) and the member lists
 * mstart/mem (filled here) are scratch. */
static int amg_galerkin(const pfb_csr *B, const size_t *agg, size_t nc, pfb_csr *C, size_t **mstart, size_t *cap_ms,
                        size_t **mem, size_t *cap_mem, size_t **mark, size_t *cap_mark, pfb_err *err)
{
    const size_t n = B->n, none = (size_t)-1;
    int rc = pfb_grow((void **)mstart, cap_ms, nc + 1, sizeof **mstart, err);
    if (!rc)
        rc = pfb_grow((void **)mem, cap_mem, n, sizeof **mem, err);
    if (!rc && nc > *cap_mark) {
        size_t old = *cap_mark;
        rc = pfb_grow((void **)mark, cap_mark, nc, sizeof **mark, err);
        for (size_t k = old; !rc && k < *cap_mark; k++)
            (*mark)[k] = none;
    }
    if (!rc)
        rc = pfb_grow((void **)&C->start, &C->cap_n, nc + 1, sizeof *C->start, err);
    if (rc)
        return rc;
    /* members of each aggregate, in row order (a counting sort) */
    size_t *ms = *mstart, *mb = *mem, *mk = *mark;
    memset(ms, 0, (nc + 1) * sizeof *ms);
    for (size_t u = 0; u < n; u++)
        ms[agg[u] + 1]++;
    for (size_t c = 0; c < nc; c++)
        ms[c + 1] += ms[c];
    for (size_t u = 0; u < n; u++)
        mb[ms[agg[u]]++] = u;
    for (size_t c = nc; c > 0; c--)
        ms[c] = ms[c - 1];
    ms[0] = 0;
    /* the coarse rows, each entry summed over its members in row and entry order;
     * every fine entry adds at most one coarse entry */
    if ((rc = csr_reserve(C, B->start[n] + nc, err)))
        return rc;
    size_t e = 0;
    C->n = nc;
    for (size_t c = 0; c < nc; c++) {
        const size_t e0 = e;
        C->start[c] = e0;
        C->col[e] = c;
        C->val[e++] = 0.0;
        mk[c] = e0;
        for (size_t k = ms[c]; k < ms[c + 1]; k++) {
            const size_t u = mb[k];
            for (size_t q = B->start[u]; q < B->start[u + 1]; q++) {
                const size_t d = agg[B->col[q]];
                if (mk[d] == none) {
                    mk[d] = e;
                    C->col[e] = d;
                    C->val[e++] = 0.0;
                }
                C->val[mk[d]] += B->val[q];
            }
        }
        for (size_t q = e0; q < e; q++)
            mk[C->col[q]] = none;
    }
    C->start[nc] = e;
    return PFB_OK;
}

/* Dense Cholesky A = L L^T of the coarsest level in place (lower triangle, row
 * major); a pivot that is not positive relative to its diagonal (a component of
 * the matrix without a surface row is singular) gets a zero row, so the solve
 * leaves that direction out. */
static void amg_cholesky(double *L, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        const double a = L[j * n + j];
        double d = a;
        for (size_t k = 0; k < j; k++)
            d -= L[j * n + k] * L[j * n + k];
        const double piv = d > 1e-12 * fabs(a) ? sqrt(d) : 0.0;
        L[j * n + j] = piv;
        for (size_t i = j + 1; i < n; i++) {
            double s = L[i * n + j];
            for (size_t k = 0; k < j; k++)
                s -= L[i * n + k] * L[j * n + k];
            L[i * n + j] = piv > 0 ? s / piv : 0.0;
        }
    }
}

static void amg_cholesky_solve(const double *L, size_t n, const double *b, double *x)
{
    for (size_t i = 0; i < n; i++) {
        double s = b[i];
        for (size_t k = 0; k < i; k++)
            s -= L[i * n + k] * x[k];
        x[i] = L[i * n + i] > 0 ? s / L[i * n + i] : 0.0;
    }
    for (size_t i = n; i-- > 0;) {
        double s = x[i];
        for (size_t k = i + 1; k < n; k++)
            s -= L[k * n + i] * x[k];
        x[i] = L[i * n + i] > 0 ? s / L[i * n + i] : 0.0;
    }
}

int amg_setup(pfb_amg *g, const pfb_csr *A, pfb_err *err)
{
    g->A0 = A;
    g->n0 = A->n;
    g->nlev = 0;
    g->ready = 0;
    const pfb_csr *B = A;
    int rc = PFB_OK;
    while (g->nlev < AMG_MAX_LEVELS - 1 && B->n > AMG_COARSEST) {
        pfb_amg_level *L = &g->lev[g->nlev];
        const size_t n = B->n;
        if ((rc = pfb_grow((void **)&L->agg, &L->cap_agg, n, sizeof *L->agg, err)))
            return rc;
        /* first pass on B, second on the pairs' matrix (held in the next level's
         * matrix until the final one replaces it) */
        pfb_csr *C = &g->lev[g->nlev + 1].A;
        size_t n1 = amg_match(B, L->agg);
        if ((rc = amg_galerkin(B, L->agg, n1, C, &g->mstart, &g->cap_ms, &g->mem, &g->cap_mem, &g->mark,
                               &g->cap_mark, err)))
            return rc;
        if ((rc = pfb_grow((void **)&g->agg2, &g->cap_agg2, n1, sizeof *g->agg2, err)))
            return rc;
        size_t nc = amg_match(C, g->agg2);
        for (size_t u = 0; u < n; u++)
            L->agg[u] = g->agg2[L->agg[u]];
        if (nc * 10 > n * 9)
            break; /* hardly coarsens (rows without couplings): stop here */
        if ((rc = amg_galerkin(B, L->agg, nc, C, &L->mstart, &L->cap_ms, &L->mem, &L->cap_mem, &g->mark,
                               &g->cap_mark, err)))
            return rc;
        L->nc = nc;
        g->nlev++;
        B = C;
    }
    /* per-level vectors and smoother weights; the coarsest factorised */
    for (int l = 0; l <= g->nlev; l++) {
        pfb_amg_level *L = &g->lev[l];
        const pfb_csr *M = l ? &L->A : A;
        const size_t n = M->n;
        if ((rc = pfb_grow((void **)&L->vec, &L->cap_vec, 4 * n, sizeof *L->vec, err)))
            return rc;
        double *dinv = L->vec + 3 * n;
        for (size_t u = 0; u < n; u++) {
            const double d = M->val[M->start[u]];
            dinv[u] = d > 0 ? AMG_OMEGA / d : 0.0;
        }
    }
    const pfb_csr *M = g->nlev ? &g->lev[g->nlev].A : A;
    const size_t n = M->n;
    if ((rc = pfb_grow((void **)&g->chol, &g->cap_chol, n > 0 ? n * n : 1, sizeof *g->chol, err)))
        return rc;
    memset(g->chol, 0, n * n * sizeof *g->chol);
    for (size_t u = 0; u < n; u++)
        for (size_t e = M->start[u]; e < M->start[u + 1]; e++)
            g->chol[u * n + M->col[e]] += M->val[e];
    amg_cholesky(g->chol, n);
    g->ready = 1;
    return PFB_OK;
}

/* y = x + D^-1 omega (r - M x) for x != NULL, y = D^-1 omega r for x == NULL */
static void amg_smooth(const pfb_csr *M, const double *dinv, const double *r, const double *x, double *y, int nt)
{
    const size_t n = M->n;
#pragma omp parallel for schedule(dynamic, 2048) num_threads(nt) if (nt > 1)
    for (size_t u = 0; u < n; u++) {
        if (!x) {
            y[u] = dinv[u] * r[u];
            continue;
        }
        double s = r[u];
        for (size_t e = M->start[u]; e < M->start[u + 1]; e++)
            s -= M->val[e] * x[M->col[e]];
        y[u] = x[u] + dinv[u] * s;
    }
}

/* One cycle from level l: x = cycle(r) (x, r of level l's size).  Two coarse
 * corrections (a W-cycle) below every level but the last above the direct solve:
 * with aggregates of about four rows the coarse work halves per level, so the
 * cycle costs about twice the finest level's and stays O(n).  The second
 * correction's restricted residual needs no pass over this level: with x' = x +
 * w P e, R (r - M x') = R (r - M x) - w A_c e (Galerkin, A_c = P^T M P), formed
 * on the coarse level, so a cycle costs three products with the finest matrix
 * (the residual, the post-smoothing and, in pcg_solve, the search direction's). */
static void amg_cycle(const pfb_amg *g, int l, const double *r, double *x, int nt)
{
    const pfb_amg_level *L = &g->lev[l];
    const pfb_csr *M = l ? &L->A : g->A0;
    const size_t n = M->n;
    if (l == g->nlev) {
        amg_cholesky_solve(g->chol, n, r, x);
        return;
    }
    double *t = L->vec + n, *rc = L->vec + 2 * n; /* rc: coarse rhs, nc <= n entries */
    const double *dinv = L->vec + 3 * n;
    const pfb_amg_level *Lc = &g->lev[l + 1];
    const pfb_csr *C = &Lc->A;
    double *xc = Lc->vec; /* the coarse level's x lives at the start of its vec */
    const size_t nc = L->nc;
    const int passes = l + 1 < g->nlev ? 2 : 1;
    const int par = nt > 1 && M->start[n] >= AMG_PAR, parc = nt > 1 && C->start[nc] >= AMG_PAR;
    amg_smooth(M, dinv, r, NULL, x, par ? nt : 1);
    /* the residual r - M x, restricted: rc[c] = sum over the members of c */
#pragma omp parallel for schedule(dynamic, 2048) num_threads(nt) if (par)
    for (size_t u = 0; u < n; u++) {
        double s = r[u];
        for (size_t e = M->start[u]; e < M->start[u + 1]; e++)
            s -= M->val[e] * x[M->col[e]];
        t[u] = s;
    }
#pragma omp parallel for schedule(dynamic, 2048) num_threads(nt) if (parc)
    for (size_t c = 0; c < nc; c++) {
        double s = 0.0;
        for (size_t k = L->mstart[c]; k < L->mstart[c + 1]; k++)
            s += t[L->mem[k]];
        rc[c] = s;
    }
    for (int pass = 0; pass < passes; pass++) {
        amg_cycle(g, l + 1, rc, xc, nt);
#pragma omp parallel for schedule(dynamic, 4096) num_threads(nt) if (par)
        for (size_t u = 0; u < n; u++)
            x[u] += AMG_OVER * xc[L->agg[u]];
        if (pass + 1 < passes) {
#pragma omp parallel for schedule(dynamic, 2048) num_threads(nt) if (parc)
            for (size_t c = 0; c < nc; c++) {
                double s = 0.0;
                for (size_t e = C->start[c]; e < C->start[c + 1]; e++)
                    s += C->val[e] * xc[C->col[e]];
                rc[c] -= AMG_OVER * s;
            }
        }
    }
    memcpy(t, x, n * sizeof *t);
    amg_smooth(M, dinv, r, t, x, par ? nt : 1);
}

void amg_apply(const pfb_amg *g, const double *r, double *z, int threads)
{
    amg_cycle(g, 0, r, z, threads);
}

void amg_free(pfb_amg *g)
{
    if (!g)
        return;
    for (int l = 0; l < AMG_MAX_LEVELS; l++) {
        pfb_amg_level *L = &g->lev[l];
        free(L->A.start);
        free(L->A.col);
        free(L->A.val);
        free(L->agg);
        free(L->mstart);
        free(L->mem);
        free(L->vec);
    }
    free(g->mstart);
    free(g->mem);
    free(g->mark);
    free(g->agg2);
    free(g->chol);
    memset(g, 0, sizeof *g);
}
