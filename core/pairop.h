/* pairop.h — a symmetric operator over the pairs of a half list, kept as one
 * coefficient per entry of the list instead of as a matrix (issue 47): the
 * SPH pressure Poisson operator of a projection method (Mao–Yang's eqs. 7-8;
 * the form of ISPH's and MPS's W-weighted Laplacians too), applied matrix-free.
 *
 * For the n particles of the list, each an unknown, the operator is
 *   (A x)_i = sum_{j ~ i} c_ij (x_i - x_j) + d_i x_i + sum_v w_iv (x_i - x_v),
 * a fixed particle's row the identity, (A x)_i = x_i, where
 *   - c_ij is the pair's weight, given by the solver for every entry (i, j) of
 *     the half list (0 for an entry beyond the solver's reach: the list's skin);
 *   - d_i >= 0 is an extra diagonal (couplings to values held at 0);
 *   - w_iv are extra symmetric couplings (both rows list them, with equal
 *     weights), for example those through a solver's wall mirrors.
 * With c, d, w >= 0 the operator is symmetric, and positive definite once every
 * connected set of unknowns touches a fixed particle or a d_i > 0; its values
 * at the fixed particles must be 0 in x (as a solve keeps them: identity rows
 * with source 0), else they would enter their neighbours' rows.
 *
 * The rows may be a subset of the list's (rj, rn): the pairs within the
 * solver's reach at the current positions, which a pass before the build
 * (a density pass, say) lists, so that the product skips the list's skin.
 *
 * Memory: 8 bytes per entry of the half list and 8 per particle, against a
 * stored CSR matrix's 16 per entry of both rows.  Both passes (the
 * coefficients with the diagonal, and each product) run on the blocked
 * schedule of core/pairtasks.h: each pair once, its term added to both
 * particles, every sum receiving its terms in one order, so the bits do not
 * depend on the thread count. */
#ifndef PFB_PAIROP_H
#define PFB_PAIROP_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "halflist.h"
#include "pairtasks.h"

/* The weight c_ij of the list's pair (i, j), its entry q (the index into
 * op->c), or 0 for none; called once per entry and build, from any thread, for
 * i's block.  op->c[q] holds what the caller left there (pairop_reserve) until
 * the weight returns: a pass before the build may keep a per-entry value there
 * for the weight to use. */
typedef double (*pfb_pair_weight)(void *ctx, size_t i, size_t j, size_t q);
/* The weights of particle i's row at once: c[q] for its entries ls[i] <= q <
 * ls[i+1], each what pfb_pair_weight would give it (the same contract); for
 * a solver that computes a row's weights together (in lanes, say). */
typedef void (*pfb_pair_weight_row)(void *ctx, size_t i, double *c);

typedef struct pfb_pairop {
    /* set by the caller before pairop_build */
    const pfb_halflist *L;
    pfb_pairtasks *T;
    int threads, parallel;       /* pairtasks_run's */
    const unsigned char *fixed;  /* per particle: an identity row (NULL: none) */
    const double *d;             /* per particle: the extra diagonal (NULL: none) */
    const uint32_t *xs, *xv;     /* the extra couplings: row i is xv[xs[i] .. xs[i+1]-1] (xs NULL: none) */
    const double *xw;            /* their weights */
    const uint32_t *rj, *rn;     /* rows: L's (rj NULL), or row i the rn[i] entries rj[ls[i] ..] (L's
                                  * row i's partners within the solver's reach, in L's blocks: a
                                  * subset of L's row, so L's schedule holds; op->c is then indexed
                                  * alike, and rj has 3 readable entries past its last row's) */
    int lanes;                   /* the product's pairs: 0 one at a time, or 1 + a lane level of
                                  * core/lanes.h (lanes_level): four at a time, the row sums in
                                  * four lanes (pairop_rows.inc; other bits than 0's, the same
                                  * at every level) */
    /* made by pairop_build */
    double *c;                   /* per entry of L */
    double *diag;                /* per particle: A's diagonal (1 at a fixed particle) */
    size_t cap_c, cap_n;
    /* an apply's state */
    const double *x;
    double *y;
    int rc;                      /* the first apply that failed (pairtasks_run), or 0 */
    pfb_err err;
} pfb_pairop;

/* Row i of the operator: its entries q = *q0 .. *q1 - 1, partner lj[q] and
 * weight op->c[q], with lj the returned array (L's rows, or the subset rj, rn). */
static inline const uint32_t *pairop_row(const pfb_pairop *op, size_t i, size_t *q0, size_t *q1)
{
    const pfb_halflist *L = op->L;
    *q0 = L->ls[i];
    *q1 = op->rj ? *q0 + op->rn[i] : L->ls[i + 1];
    return op->rj ? op->rj : L->lj;
}

/* Room for the coefficients and the diagonal of the n particles' list (op->L
 * set); op->c's contents are kept by pairop_build until each entry's weight. */
int pairop_reserve(pfb_pairop *op, size_t n, pfb_err *err);

/* The coefficients of the n particles' list (weight(ctx, i, j, q) for each
 * entry q) and the diagonal. */
int pairop_build(pfb_pairop *op, size_t n, pfb_pair_weight weight, void *ctx, pfb_err *err);
/* pairop_build with the weights by rows: the same coefficients and diagonal,
 * bit for bit, as pairop_build with the per-entry weights the rows equal. */
int pairop_build_rows(pfb_pairop *op, size_t n, pfb_pair_weight_row row, void *ctx, pfb_err *err);

/* y = A x (pfb_linop's apply, core/pcg.h; threads is ignored: the passes run on
 * op->threads).  A failure (out of memory in the schedule) is kept in op->rc
 * and op->err, and y is then undefined. */
void pairop_apply(void *op, const double *x, double *y, int threads);

void pairop_free(pfb_pairop *op);

#endif
