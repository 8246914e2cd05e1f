/* pairop.c — the symmetric pair operator of pairop.h: its coefficient pass
 * and its product, each three stages on the blocked schedule (zero a block's
 * sums, the pairs of its rows, then what the particles add alone). */
#include "pairop.h"

#include "csr.h" /* pfb_grow */

#include <stdlib.h>
#include <string.h>

typedef struct build_ctx {
    pfb_pairop *op;
    pfb_pair_weight weight;  /* per entry, or */
    pfb_pair_weight_row row; /* per row */
    void *ctx;
} build_ctx;

static void coef_zero(void *ctx, size_t b)
{
    const build_ctx *c = ctx;
    const pfb_pairop *op = c->op;
    memset(op->diag + op->L->blk[b], 0, (op->L->blk[b + 1] - op->L->blk[b]) * sizeof *op->diag);
}

static void coef_pairs(void *ctx, size_t b)
{
    const build_ctx *c = ctx;
    const pfb_pairop *op = c->op;
    const pfb_halflist *L = op->L;
    for (size_t i = L->blk[b]; i < L->blk[b + 1]; i++) {
        size_t q0, q1;
        const uint32_t *lj = pairop_row(op, i, &q0, &q1);
        if (c->row)
            c->row(c->ctx, i, op->c);
        else
            for (size_t q = q0; q < q1; q++)
                op->c[q] = c->weight(c->ctx, i, lj[q], q);
        /* row i's weights summed in four lanes (entry q into lane (q - q0) mod 4),
         * ended as (l0 + l1) + (l2 + l3) and added to i's diagonal: not one
         * chain through memory (diag[i] and diag[j] could alias for all the
         * compiler knows), whose store-to-load latency bounded the pass */
        double s4[4] = {0.0, 0.0, 0.0, 0.0};
        for (size_t q = q0; q < q1; q++) {
            const double w = op->c[q];
            s4[(q - q0) & 3] += w;
            op->diag[lj[q]] += w;
        }
        op->diag[i] += (s4[0] + s4[1]) + (s4[2] + s4[3]);
    }
}

static void coef_finish(void *ctx, size_t b)
{
    const build_ctx *c = ctx;
    const pfb_pairop *op = c->op;
    for (size_t i = op->L->blk[b]; i < op->L->blk[b + 1]; i++) {
        if (op->fixed && op->fixed[i]) {
            op->diag[i] = 1.0;
            continue;
        }
        double d = op->diag[i] + (op->d ? op->d[i] : 0.0);
        if (op->xs)
            for (size_t e = op->xs[i]; e < op->xs[i + 1]; e++)
                d += op->xw[e];
        op->diag[i] = d;
    }
}

static const pfb_stage coef_stages[3] = {{0, coef_zero}, {1, coef_pairs}, {0, coef_finish}};

int pairop_reserve(pfb_pairop *op, size_t n, pfb_err *err)
{
    int rc = pfb_grow((void **)&op->c, &op->cap_c, op->L->ls[n], sizeof *op->c, err);
    if (!rc)
        rc = pfb_grow((void **)&op->diag, &op->cap_n, n, sizeof *op->diag, err);
    return rc;
}

static int build(pfb_pairop *op, size_t n, pfb_pair_weight weight, pfb_pair_weight_row row, void *ctx, pfb_err *err)
{
    int rc = pairop_reserve(op, n, err);
    if (rc)
        return rc;
    op->rc = 0;
    build_ctx c = {op, weight, row, ctx};
    return pairtasks_run(op->T, op->L, coef_stages, 3, &c, op->threads, op->parallel, err);
}

int pairop_build(pfb_pairop *op, size_t n, pfb_pair_weight weight, void *ctx, pfb_err *err)
{
    return build(op, n, weight, NULL, ctx, err);
}

int pairop_build_rows(pfb_pairop *op, size_t n, pfb_pair_weight_row row, void *ctx, pfb_err *err)
{
    return build(op, n, NULL, row, ctx, err);
}

static void op_zero(void *ctx, size_t b)
{
    const pfb_pairop *op = ctx;
    memset(op->y + op->L->blk[b], 0, (op->L->blk[b + 1] - op->L->blk[b]) * sizeof *op->y);
}

static void op_pairs(void *ctx, size_t b)
{
    const pfb_pairop *op = ctx;
    const pfb_halflist *L = op->L;
    const double *restrict x = op->x, *restrict c = op->c;
    double *restrict y = op->y;
    for (size_t i = L->blk[b]; i < L->blk[b + 1]; i++) {
        const double xi = x[i];
        double yi = 0.0;
        size_t q0, q1;
        const uint32_t *lj = pairop_row(op, i, &q0, &q1);
        for (size_t q = q0; q < q1; q++) {
            const size_t j = lj[q];
            const double t = c[q] * (xi - x[j]);
            yi += t;
            y[j] -= t;
        }
        y[i] += yi;
    }
}

static void op_finish(void *ctx, size_t b)
{
    const pfb_pairop *op = ctx;
    const double *restrict x = op->x;
    double *restrict y = op->y;
    for (size_t i = op->L->blk[b]; i < op->L->blk[b + 1]; i++) {
        if (op->fixed && op->fixed[i]) {
            y[i] = x[i];
            continue;
        }
        double t = y[i] + (op->d ? op->d[i] * x[i] : 0.0);
        if (op->xs)
            for (size_t e = op->xs[i]; e < op->xs[i + 1]; e++)
                t += op->xw[e] * (x[i] - x[op->xv[e]]);
        y[i] = t;
    }
}

#include "lanes.h"
#define LANES_ROWS "pairop_rows.inc"
#include "lanes_levels.inc"
#undef LANES_ROWS

/* the pairs of block b in four lanes at level op->lanes - 1 */
static void op_lanes(void *ctx, size_t b)
{
    const pfb_pairop *op = ctx;
    LANES_AT(op->lanes - 1, op_rows, op, b);
}

static const pfb_stage op_stages[3] = {{0, op_zero}, {1, op_pairs}, {0, op_finish}};
static const pfb_stage op_lane_stages[3] = {{0, op_zero}, {1, op_lanes}, {0, op_finish}};

void pairop_apply(void *vop, const double *x, double *y, int threads)
{
    pfb_pairop *op = vop;
    (void)threads;
    op->x = x;
    op->y = y;
    const int rc = pairtasks_run(op->T, op->L, op->lanes ? op_lane_stages : op_stages, 3, op, op->threads,
                                 op->parallel, &op->err);
    if (rc && !op->rc)
        op->rc = rc;
}

void pairop_free(pfb_pairop *op)
{
    free(op->c);
    free(op->diag);
    op->c = op->diag = NULL;
    op->cap_c = op->cap_n = 0;
}
