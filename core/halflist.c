/* halflist.c — the half neighbour list with a skin (halflist.h says what it
 * is and when it is rebuilt). */
#include "halflist.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "pairtasks.h"

void halflist_init(pfb_halflist *L, pfb_sim *sim, double h, double skin)
{
    memset(L, 0, sizeof *L);
    L->h = h;
    L->hl = h * (1.0 + skin);
    L->periodic = sim_periodic(sim);
    sim->sort_h = L->hl;
}

double halflist_skin(const pfb_sim *sim, double h, double skin, int user_set)
{
    if (user_set || !(h > 0))
        return skin;
    for (int d = 0; d < sim->dim; d++)
        if (sim->period.L[d] > 0) {
            const double lim = 0.98 * (0.5 * sim->period.L[d] / h - 1.0);
            skin = fmax(0.0, fmin(skin, lim));
        }
    return skin;
}

void halflist_free(pfb_halflist *L)
{
    free(L->ls);
    free(L->lj);
    free(L->blk);
    free(L->bord);
    free(L->sbox[0]);
    free(L->sbox[1]);
    for (int t = 0; t < PFB_MAX_THREADS; t++)
        grid_half_scan_free(L->scan[t]);
    free(L->lbuf[0]);
    free(L->lbuf[1]);
    nlist_free(&L->pl);
    memset(L, 0, sizeof *L);
}

/* Room for the rows of n particles and their blocks. */
static int ensure_rows(pfb_halflist *L, size_t n, pfb_err *err)
{
    if (n + 1 > L->cap_n) {
        const size_t cap = n + n / 4 + 64;
        uint32_t *ls = realloc(L->ls, (cap + 1) * sizeof *ls);
        if (ls)
            L->ls = ls;
        const size_t mb = cap / HALFLIST_BLOCK_MIN + 3; /* room for the blocks, nblk + 1 <= mb */
        size_t *blk = ls ? realloc(L->blk, mb * sizeof *blk) : NULL;
        if (blk)
            L->blk = blk;
        size_t *bord = blk ? realloc(L->bord, mb * sizeof *bord) : NULL;
        if (!bord)
            return pfb_err_set(err, PFB_ENOMEM, "pair list: out of memory for the rows of %zu particles", n);
        L->bord = bord;
        L->cap_n = cap;
    }
    return PFB_OK;
}

/* The running thread's scan for the rows (made on first use, kept), reset
 * for a new grid; NULL when out of memory. */
static pfb_half_scan *half_scan(pfb_halflist *L)
{
    const int t = pfb_thread_num();
    if (t >= PFB_MAX_THREADS)
        return NULL;
    if (!L->scan[t])
        L->scan[t] = grid_half_scan_new();
    if (L->scan[t])
        grid_half_scan_reset(L->scan[t]);
    return L->scan[t];
}

/* One pass over the rows on nt threads: each row's length to ls[k + 1] when
 * lj is NULL, else the row written at lj + ls[k].  Returns 1 when a thread
 * had no scan (out of memory). */
static int list_pass(pfb_halflist *L, const pfb_grid *g, size_t n, int nt, uint32_t *lj)
{
    uint32_t *restrict ls = L->ls;
    int failed = 0;
#pragma omp parallel num_threads(nt) if (nt > 1) reduction(| : failed)
    {
        pfb_half_scan *w = half_scan(L);
        failed = w == NULL;
#pragma omp for schedule(dynamic, 512)
        for (size_t k = 0; k < n; k++)
            if (w) {
                const size_t len = grid_half_row(g, w, k, lj ? lj + ls[k] : NULL, lj ? ls[k + 1] - ls[k] : 0);
                if (!lj)
                    ls[k + 1] = (uint32_t)len;
            }
    }
    return failed;
}

/* rows per chunk of the one-pass build, at most (n / 16, at least 64) */
#define HALFLIST_CHUNK 512

/* The rows in one pass on nt <= 2 threads, into the storage the last list
 * left (cap_pairs): the rows are cut into chunks of HALFLIST_CHUNK; one side
 * takes them from the first on and places them from the storage's start, the
 * other from the last down and places them from its end, each chunk written
 * into the side's buffer first and copied once its size is known, so that the
 * two never overlap (the room is claimed by one atomic count).  Then the end
 * part is moved down to close the gap, and ls[k + 1] holds row k's length.
 * The rows are list_pass's, whichever side made them.  Returns 0, 1 when the
 * storage was too small (nothing usable written), or -1 when out of memory. */
static int list_one_pass(pfb_halflist *L, const pfb_grid *g, size_t n, int nt)
{
    uint32_t *restrict ls = L->ls, *lj = L->lj;
    /* the end side starts at most 1/32 above the last list's size: the
     * storage's spare beyond (a quarter) stays untouched, out of the resident set */
    const size_t pairs = L->last_pairs, room = pairs + pairs / 32 + 1024,
                 cap = room < L->cap_pairs ? room : L->cap_pairs,
                 ch = n / 16 > HALFLIST_CHUNK ? HALFLIST_CHUNK : n / 16 < 64 ? 64 : n / 16,
                 nc = (n + ch - 1) / ch;
    size_t used_side[2] = {0, 0};
    atomic_size_t taken, used;
    atomic_int stop;
    atomic_init(&taken, 0);
    atomic_init(&used, 0);
    atomic_init(&stop, 0);
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        const int side = pfb_thread_num();
        pfb_half_scan *w = half_scan(L);
        if (!L->lbuf[side]) {
            L->lbuf[side] = malloc(4096 * sizeof *L->lbuf[side]);
            L->lbuf_cap[side] = L->lbuf[side] ? 4096 : 0;
        }
        if (!w || !L->lbuf[side])
            atomic_store(&stop, -1);
        size_t mine = 0, pos = 0; /* chunks taken, pairs placed */
        while (!atomic_load_explicit(&stop, memory_order_relaxed) &&
               atomic_fetch_add_explicit(&taken, 1, memory_order_relaxed) < nc) {
            const size_t c = side == 0 ? mine : nc - 1 - mine;
            mine++;
            const size_t lo = c * ch, hi = lo + ch < n ? lo + ch : n;
            size_t m = 0;
            for (size_t k = lo; k < hi; k++) {
                size_t len;
                while ((len = grid_half_row(g, w, k, L->lbuf[side] + m, L->lbuf_cap[side] - m)) >
                       L->lbuf_cap[side] - m) {
                    const size_t want = m + len + (m + len) / 4 + 1024;
                    uint32_t *b = realloc(L->lbuf[side], want * sizeof *b);
                    if (!b)
                        break;
                    L->lbuf[side] = b;
                    L->lbuf_cap[side] = want;
                }
                if (len > L->lbuf_cap[side] - m) {
                    atomic_store(&stop, -1);
                    break;
                }
                ls[k + 1] = (uint32_t)len;
                m += len;
            }
            if (atomic_load(&stop))
                break;
            if (atomic_fetch_add(&used, m) + m > cap) {
                atomic_store(&stop, 1);
                break;
            }
            pos += m;
            memcpy(side == 0 ? lj + pos - m : lj + cap - pos, L->lbuf[side], m * sizeof *lj);
        }
        used_side[side] = pos;
    }
    const int rc = atomic_load(&stop);
    if (rc)
        return rc;
    memmove(lj + used_side[0], lj + cap - used_side[1], used_side[1] * sizeof *lj);
    return 0;
}

/* Room for total entries and the 4 spare the rows' last four read. */
static int reserve_pairs(pfb_halflist *L, size_t total, pfb_err *err)
{
    if (total + 4 > L->cap_pairs) {
        const size_t cap = total + total / 4 + 64;
        uint32_t *lj = realloc(L->lj, cap * sizeof *lj);
        if (!lj)
            return pfb_err_set(err, PFB_ENOMEM, "pair list: out of memory for %zu listed pairs", total);
        L->lj = lj;
        L->cap_pairs = cap;
    }
    return PFB_OK;
}

static int too_many_pairs(pfb_err *err)
{
    return pfb_err_set(err, PFB_EINVAL, "pair list: more than %lu pairs within the list radius; "
                       "valid: fewer particles or a smaller list_skin", (unsigned long)UINT32_MAX);
}

/* Row k's entries ahead of it, ls[k] .. the returned end (the rest of a ring
 * row are its wrapping partners, j < k). */
static inline size_t row_ahead_end(const pfb_halflist *L, size_t k)
{
    size_t e = L->ls[k + 1];
    if (L->ring)
        while (e > L->ls[k] && L->lj[e - 1] < k)
            e--;
    return e;
}

/* The blocks and the reach of the rows just written into ls and lj. */
static void finish(pfb_halflist *L, pfb_sim *sim, size_t total)
{
    const size_t n = sim->p.n;
    const uint32_t *restrict ls = L->ls, *restrict lj = L->lj;
    memset(L->lj + total, 0, 4 * sizeof *lj);
    L->last_pairs = total;
    size_t *blk = L->blk, nb = 1;
    blk[0] = 0;
    blk[1] = n < HALFLIST_BLOCK_MIN ? n : HALFLIST_BLOCK_MIN;
    if (L->ring && L->wrap > blk[1]) /* block 0 holds every wrapping partner */
        blk[1] = L->wrap;
    while (blk[nb] < n) {
        size_t top = blk[nb] + HALFLIST_BLOCK_MIN;
        int wraps = 0;
        for (size_t k = blk[nb - 1]; k < blk[nb]; k++) {
            const size_t e = row_ahead_end(L, k); /* a row's largest j ahead is its last there (rows ascend) */
            wraps |= e < ls[k + 1];
            if (e > ls[k] && lj[e - 1] + (size_t)1 > top)
                top = lj[e - 1] + (size_t)1;
        }
        if (wraps) { /* a block with wrapping rows is the last: it runs to the end */
            blk[nb] = n;
            break;
        }
        blk[nb + 1] = top < n ? top : n;
        nb++;
    }
    if (L->ring && nb > 1 && nb % 2) { /* the last block must not share block 0's parity: merge the last two */
        blk[nb - 1] = n;
        nb--;
    }
    L->nblk = nb;
    /* largest blocks first within each parity, so that the last block a thread
     * takes is a small one (the order does not change any result) */
    size_t *bord = L->bord, m = 0;
    for (size_t par = 0; par < 2; par++)
        for (size_t b = par, m0 = m; b < nb; b += 2) {
            size_t a = m++, w = ls[blk[b + 1]] - ls[blk[b]];
            while (a > m0 && ls[blk[bord[a - 1] + 1]] - ls[blk[bord[a - 1]]] < w) {
                bord[a] = bord[a - 1];
                a--;
            }
            bord[a] = b;
        }
    size_t reach = 0, maxrow = 0;
    for (size_t k = 0; k < n; k++) {
        if (ls[k + 1] > ls[k]) { /* the last entry is the farthest ahead, around the ring for a wrapping one */
            const size_t j = lj[ls[k + 1] - 1], ahead = j > k ? j - k : j + n - k;
            reach = ahead > reach ? ahead : reach;
        }
        maxrow = ls[k + 1] - ls[k] > maxrow ? ls[k + 1] - ls[k] : maxrow;
    }
    L->reach = reach;
    L->maxrow = maxrow;
    L->gen = sim->grid_gen;
    L->builds++;
}

/* Whether the pair of i and j (i != j) is row i's on the ring of n: j ahead
 * of i by at most half the ring (j > i, 2 (j - i) <= n), or around its end
 * (j < i, 2 (i - j) > n). */
static inline int ring_row(size_t i, size_t j, size_t n)
{
    return j > i ? 2 * (j - i) <= n : 2 * (i - j) > n;
}

/* Periodic axes: the framework's minimum-image list of radius hl at the
 * positions of the sort just made (which wrapped them into the box), each
 * pair once, on a ring (halflist.h): at the particle from which the other is
 * the nearer ahead around the storage.  The pairs across the faces of the
 * slowest axis of the cell order join the first particles with the last;
 * stored at the last, they keep every row's reach to about the open list's,
 * so the blocks stay short. */
static int build_periodic(pfb_halflist *L, pfb_sim *sim, pfb_err *err)
{
    const size_t n = sim->p.n;
    int rc = sim_periodic_list(sim, L->hl, (const double *const *)sim->p.x, n, &L->pl, err);
    if (rc)
        return rc;
    size_t total = 0;
    L->ls[0] = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t q = L->pl.start[i]; q < L->pl.start[i + 1]; q++)
            total += ring_row(i, L->pl.idx[q], n);
        if (total > UINT32_MAX)
            return too_many_pairs(err);
        L->ls[i + 1] = (uint32_t)total;
    }
    rc = reserve_pairs(L, total, err);
    if (rc)
        return rc;
    size_t wrap = 0;
    for (size_t i = 0; i < n; i++) {
        /* the partners ahead in increasing j, then those around the end in
         * increasing j (insertion: a row is short) */
        const size_t r0 = L->ls[i];
        size_t m = r0;
        for (size_t q = L->pl.start[i]; q < L->pl.start[i + 1]; q++) {
            const size_t j = L->pl.idx[q];
            if (!ring_row(i, j, n))
                continue;
            const size_t key = j > i ? j - i : j + n - i;
            size_t a = m++;
            while (a > r0 && (L->lj[a - 1] > i ? L->lj[a - 1] - i : L->lj[a - 1] + n - i) > key) {
                L->lj[a] = L->lj[a - 1];
                a--;
            }
            L->lj[a] = (uint32_t)j;
            if (j < i && j + 1 > wrap)
                wrap = j + 1;
        }
    }
    L->ring = wrap > 0;
    L->wrap = wrap;
    finish(L, sim, total);
    return PFB_OK;
}

/* The list from sim->grid, which must be the grid of the sort of the current
 * storage (halflist_is_sort). */
static int build(pfb_halflist *L, pfb_sim *sim, pfb_err *err)
{
    const pfb_grid *g = &sim->grid;
    const size_t n = sim->p.n;
    int rc = ensure_rows(L, n, err);
    if (rc)
        return rc;
    uint32_t *restrict ls = L->ls;
    ls[0] = 0;
    L->ring = 0;
    L->wrap = 0;
    if (L->periodic)
        return build_periodic(L, sim, err);
    const int nt = sim_parallel_pairs(sim, n) ? sim_threads(sim) : 1;
    /* one pass into the last list's storage when it is large enough (and the
     * threads are at most two), else counted first and then written */
    const int one = nt <= 2 && L->cap_pairs > 0 ? list_one_pass(L, g, n, nt) : 1;
    if (one < 0)
        return pfb_err_set(err, PFB_ENOMEM, "pair list: out of memory for the rows of %zu particles", n);
    if (one && list_pass(L, g, n, nt, NULL))
        return pfb_err_set(err, PFB_ENOMEM, "pair list: out of memory for the scan of %zu particles", n);
    size_t total = 0;
    for (size_t k = 0; k < n; k++) {
        total += ls[k + 1];
        if (total > UINT32_MAX)
            return too_many_pairs(err);
        ls[k + 1] = (uint32_t)total;
    }
    rc = reserve_pairs(L, total, err);
    if (rc)
        return rc;
    if (one && list_pass(L, g, n, nt, L->lj))
        return pfb_err_set(err, PFB_ENOMEM, "pair list: out of memory for the scan of %zu particles", n);
    finish(L, sim, total);
    return PFB_OK;
}

int halflist_is_sort(const pfb_halflist *L, const pfb_sim *sim)
{
    const pfb_grid *g = &sim->grid;
    return sim->sort_gen == sim->grid_gen && g->ready && g->h == L->hl && g->n == sim->p.n;
}

/* The union along one axis of the boxes of blocks b - st and b + st with b's
 * own (a sliding 3-block window; from into to, nb blocks each; len blocks
 * along the axis, st apart). */
static void sbox_pass(const pfb_move_box *restrict from, pfb_move_box *restrict to, size_t nb, size_t st, size_t len)
{
    for (size_t b = 0; b < nb; b++) {
        const size_t a = b / st % len; /* b's place along the axis */
        to[b] = from[b];
        if (a > 0)
            move_box_merge(&to[b], &from[b - st]);
        if (a + 1 < len)
            move_box_merge(&to[b], &from[b + st]);
    }
}

/* The local test, for when the moves' box (squared half-diagonal box2) is too
 * wide: the list is still valid if every 2 x 2 x 2-cell block of the sort's
 * grid (cells of edge >= hl) has, over the moves of the particles in the 3 x 3
 * x 3 blocks around it, a box of half-diagonal below 0.45 (hl - h), and 2
 * sqrt(box2) < 2 hl - h.  Why it is exact: a pair closer than h now that the
 * list lacks was at hl or more at the sort and, by the second condition,
 * closer than 2 hl, so its cells were at most 2 apart on each axis and its
 * blocks neighbours (or one block); both moves then lie in one such box,
 * which bounds their difference by 0.9 (hl - h), and the pair would still be
 * farther than h.  Only on a bounded grid, and only while the blocks number at
 * most n / 16 (their boxes, 2 x 48 bytes each, then cost at most 6 bytes per
 * particle); otherwise 0 (rebuild). */
static int local_valid(pfb_halflist *L, const pfb_sim *sim, double box2)
{
    const pfb_grid *g = &sim->grid;
    const double lim = 0.45 * (L->hl - L->h), far = 2.0 * L->hl - L->h;
    if (L->periodic || g->hashed || g->sub_used != 1 || !(4.0 * box2 < far * far))
        return 0;
    const int dim = sim->dim;
    const size_t nx = (size_t)g->ncell[0], ny = (size_t)g->ncell[1], nz = dim == 3 ? (size_t)g->ncell[2] : 1;
    const size_t bx = (nx + 1) / 2, by = (ny + 1) / 2, bz = (nz + 1) / 2, nb = bx * by * bz, n = sim->p.n;
    if (nb > n / 16 + 64)
        return 0;
    if (nb > L->cap_sbox) {
        for (int q = 0; q < 2; q++) {
            pfb_move_box *t = realloc(L->sbox[q], nb * sizeof *t);
            if (!t)
                return 0; /* (a rebuild instead) */
            L->sbox[q] = t;
        }
        L->cap_sbox = nb;
    }
    pfb_move_box *A = L->sbox[0], *B = L->sbox[1];
    const double *const *x = (const double *const *)sim->p.x;
    const double *xs[3];
    grid_xs(g, xs);
    const size_t *cs = g->cell_start;
    /* each block's moves' box, a layer of blocks (two layers of cells, one
     * range of storage) per iteration */
#pragma omp parallel for schedule(static) num_threads(sim_threads(sim)) if (sim_parallel(sim, n))
    for (size_t lz = 0; lz < bz; lz++) {
        pfb_move_box *layer = A + lz * bx * by;
        for (size_t q = 0; q < bx * by; q++)
            layer[q] = (pfb_move_box)PFB_MOVE_BOX_EMPTY;
        const size_t z1 = 2 * lz + 2 < nz ? 2 * lz + 2 : nz;
        for (size_t cz = 2 * lz; cz < z1; cz++)
            for (size_t cy = 0; cy < ny; cy++)
                for (size_t cx = 0; cx < nx; cx++) {
                    const size_t c = (cz * ny + cy) * nx + cx;
                    if (cs[c] < cs[c + 1])
                        move_box_add(&layer[(cy / 2) * bx + cx / 2], dim, x, xs, cs[c], cs[c + 1]);
                }
    }
    /* the unions over the 3 x 3 x 3 blocks around each, one axis at a time */
    sbox_pass(A, B, nb, 1, bx);
    sbox_pass(B, A, nb, bx, by);
    const pfb_move_box *U = A;
    if (dim == 3) {
        sbox_pass(A, B, nb, bx * by, bz);
        U = B;
    }
    for (size_t b = 0; b < nb; b++)
        if (!(move_box_r2(&U[b]) < lim * lim))
            return 0;
    return 1;
}

int halflist_ensure(pfb_halflist *L, pfb_sim *sim, double box2, uint64_t skip, int *built, pfb_err *err)
{
    const size_t n = sim->p.n;
    const pfb_grid *g = &sim->grid;
    int sorted = halflist_is_sort(L, sim);
    double lim = 0.45 * (L->hl - L->h);
    *built = 0;
    if (sim_sheared(sim)) {
        /* a pair across the sliding faces has also moved by the images' slide
         * since the sort, U (t - t_sort): two moves plus it must stay below
         * 0.9 (hl - h); the local test does not know it, so it is not tried */
        lim -= 0.5 * fabs(sim->period.le_U) * fabs(sim->period.le_t - sim->t_sort);
        if (sorted && !(lim > 0))
            sorted = 0;
        else if (sorted && box2 >= 0.0)
            sorted = box2 < lim * lim;
        else if (sorted) {
            box2 = -1.0;
            const double *xs[3];
            grid_xs(g, xs);
            pfb_move_box b = PFB_MOVE_BOX_EMPTY;
            move_box_add(&b, sim->dim, (const double *const *)sim->p.x, xs, 0, n);
            sorted = move_box_r2(&b) < lim * lim;
        }
    } else if (sorted && box2 >= 0.0) {
        sorted = box2 < lim * lim || local_valid(L, sim, box2);
    } else if (sorted) {
        const double *xs[3];
        grid_xs(g, xs);
        pfb_move_box b = PFB_MOVE_BOX_EMPTY;
#pragma omp parallel num_threads(sim_threads(sim)) if (sim_parallel(sim, n))
        {
            const int t = pfb_thread_num(), m = pfb_team_size();
            pfb_move_box own = PFB_MOVE_BOX_EMPTY;
            move_box_add(&own, sim->dim, (const double *const *)sim->p.x, xs, n * (size_t)t / (size_t)m,
                         n * (size_t)(t + 1) / (size_t)m);
#pragma omp critical(pfb_move_box)
            move_box_merge(&b, &own); /* (min and max: any order gives the same box) */
        }
        const double r2 = move_box_r2(&b);
        sorted = r2 < lim * lim || local_valid(L, sim, r2);
    }
    if (!sorted) {
        int rc = sim_sort_particles_except(sim, L->hl, skip, err);
        if (rc)
            return rc;
    }
    /* a new sort (ours, or the run's at a frame) needs a new list */
    if (L->gen == sim->grid_gen && L->builds > 0)
        return PFB_OK;
    *built = 1;
    return build(L, sim, err);
}

int halflist_full(const pfb_halflist *L, size_t n, pfb_fulllist *F, pfb_err *err)
{
    if (F->builds == L->builds)
        return PFB_OK;
    const size_t pairs = L->ls[n];
    if (n + 1 > F->cap_fs) {
        uint32_t *fs = realloc(F->fs, (n + 1) * sizeof *fs), *fc = fs ? realloc(F->fc, (n + 1) * sizeof *fc) : NULL;
        if (fs)
            F->fs = fs;
        if (!fc)
            return pfb_err_set(err, PFB_ENOMEM, "neighbour list: out of memory for the rows of %zu particles", n);
        F->fc = fc;
        F->cap_fs = n + 1;
    }
    if (2 * pairs > F->cap_fj) {
        free(F->fj);
        F->cap_fj = 2 * pairs + pairs / 4 + 1;
        if (!(F->fj = malloc(F->cap_fj * sizeof *F->fj))) {
            F->cap_fj = 0;
            return pfb_err_set(err, PFB_ENOMEM, "neighbour list: out of memory for a full list of %zu pairs", pairs);
        }
    }
    uint32_t *fs = F->fs, *fj = F->fj;
    memset(fs, 0, (n + 1) * sizeof *fs);
    for (size_t q = 0; q < pairs; q++) /* each i's count of entries below it */
        fs[L->lj[q] + 1]++;
    for (size_t i = 0; i < n; i++) /* row starts: below-i entries, then the half row */
        fs[i + 1] += fs[i] + (uint32_t)(L->ls[i + 1] - L->ls[i]);
    uint32_t *cur = F->fc; /* the below-i parts, i ascending, by a cursor per row */
    memcpy(cur, fs, n * sizeof *cur);
    for (size_t i = 0; i < n; i++)
        for (size_t q = L->ls[i]; q < L->ls[i + 1]; q++)
            fj[cur[L->lj[q]]++] = (uint32_t)i;
    for (size_t i = 0; i < n; i++) /* then i's own half row */
        if (L->ls[i + 1] > L->ls[i])
            memcpy(fj + cur[i], L->lj + L->ls[i], (L->ls[i + 1] - L->ls[i]) * sizeof *fj);
    size_t longest = 0;
    for (size_t i = 0; i < n; i++)
        longest = fs[i + 1] - fs[i] > longest ? fs[i + 1] - fs[i] : longest;
    F->longest = longest;
    F->builds = L->builds;
    return PFB_OK;
}

void fulllist_free(pfb_fulllist *F)
{
    free(F->fs);
    free(F->fj);
    free(F->fc);
    *F = (pfb_fulllist)PFB_FULLLIST_EMPTY;
}

void halflist_save(const pfb_halflist *L, const pfb_sim *sim, pfb_ckpt_w *w)
{
    const int current = L->builds > 0 && L->gen == sim->grid_gen && halflist_is_sort(L, sim);
    ckpt_put_many(w, "LIST", &L->builds, sizeof L->builds, &current, sizeof current, (void *)NULL);
}

int halflist_load(pfb_halflist *L, pfb_sim *sim, pfb_ckpt_r *r, int *rebuilt, pfb_err *err)
{
    long builds;
    int current;
    char buf[sizeof builds + sizeof current];
    *rebuilt = 0;
    int rc = ckpt_get_exact(r, "LIST", buf, sizeof buf, err);
    if (rc)
        return rc;
    memcpy(&builds, buf, sizeof builds);
    memcpy(&current, buf + sizeof builds, sizeof current);
    if (current) {
        if (!halflist_is_sort(L, sim))
            return pfb_err_set(err, PFB_EINVAL, "a checkpoint's list was built on a sort it does not hold; valid: "
                               "a checkpoint as written");
        rc = build(L, sim, err);
        if (rc)
            return rc;
        *rebuilt = 1;
    }
    L->builds = builds;
    return PFB_OK;
}
