/* halflist.h — the half neighbour list with a skin, kept by the framework for a
 * solver that requests it (issue 33; after LAMMPS's Neighbor class: a pair
 * style asks for a list, the framework builds it and decides when to rebuild).
 *
 * The list: the pairs i < j with pfb_dist2 < hl^2 at its build, hl = h (1 +
 * skin), in rows ls[i] .. ls[i+1]-1 of lj, each row in increasing j (grid.h's
 * half rows on the grid of the run's last sort, so storage is in cell order);
 * 4 bytes per pair, and 4 zero entries past the last (a row's last four may be
 * read as one vector).  With periodic axes the pairs are the framework's
 * minimum-image list's (core/periodic.h), laid on a ring: a pair is row i's
 * when its j is ahead of i by at most half the storage, j > i, or around the
 * end, j < i with i - j more than half (the pairs across the faces of the cell
 * order's slowest axis, from the last particles to the first).  Such a row
 * holds its partners ahead in increasing j, then those around the end in
 * increasing j; the list is a ring (ring = 1) when it has any.
 *
 * When it is rebuilt: the list stays valid for the interaction radius h while
 * no pair has come closer than h that was at hl or more at the build.  With
 * every particle's move since the sort inside one box of half-diagonal below
 * 0.45 (hl - h), any two moves differ by less than 0.9 (hl - h), so such a pair
 * is still farther than h: the list is kept.  When the moves spread wider, the
 * local test (local_valid in halflist.c) looks at 2 x 2 x 2-cell blocks of the sort's
 * grid and their 3 x 3 x 3 neighbourhoods instead.  Otherwise the particles are
 * sorted again and the list rebuilt.  0.45 instead of 0.5 leaves room for the
 * rounding of the moves.
 *
 * The blocks: the storage cut into ranges B_b .. B_b+1 with B_0 = 0, B_1 =
 * min(n, HALFLIST_BLOCK_MIN), B_b+2 = max(B_b+1 + HALFLIST_BLOCK_MIN, 1 + the
 * largest j of block b's rows).  The rows of block b therefore touch only
 * blocks b and b + 1, so the even blocks' rows can run at once, then the odd
 * ones (core/pairtasks.h), with no two threads adding to the same particle
 * and every sum receiving its terms in one order whatever the threads.
 * On a ring, B_1 is at least `wrap` (one past the largest partner around the
 * end), and the first block that has a row around the end runs to the end of
 * the storage: only the last block's rows wrap, into block 0, so block b
 * touches blocks b and b + 1 mod nblk.  nblk is then even (the last two merge
 * when it would be odd), so that the last block and block 0 differ in parity. */
#ifndef PFB_HALFLIST_H
#define PFB_HALFLIST_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "grid.h"
#include "sim.h"

/* the most threads the list's scans (and core/pairtasks.h's runs) use */
#define PFB_MAX_THREADS 256
/* rows per block, at least */
#define HALFLIST_BLOCK_MIN 256

/* The box of the particles' moves since the list's sort: componentwise lo
 * (min) to hi (max) of x_i - xs_i, axes beyond dim 0.  Empty: lo > hi.  A NaN
 * move leaves it as it was (the run's blow-up check reports the NaN). */
typedef struct {
    double lo[3], hi[3];
} pfb_move_box;

#define PFB_MOVE_BOX_EMPTY {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}}

/* Box b grown by the moves x - xs of particles [lo, hi) (axes below dim). */
static inline void move_box_add(pfb_move_box *b, int dim, const double *const x[3], const double *const xs[3],
                                size_t lo, size_t hi)
{
    for (int k = 0; k < dim; k++) {
        const double *xk = x[k], *sk = xs[k];
        double l = b->lo[k], u = b->hi[k];
        for (size_t i = lo; i < hi; i++) {
            const double d = xk[i] - sk[i];
            l = d < l ? d : l;
            u = d > u ? d : u;
        }
        b->lo[k] = l;
        b->hi[k] = u;
    }
}

/* Box b grown to hold box o too. */
static inline void move_box_merge(pfb_move_box *b, const pfb_move_box *o)
{
    for (int k = 0; k < 3; k++) {
        b->lo[k] = o->lo[k] < b->lo[k] ? o->lo[k] : b->lo[k];
        b->hi[k] = o->hi[k] > b->hi[k] ? o->hi[k] : b->hi[k];
    }
}

/* The squared half-diagonal of box b (0 for an empty box). */
static inline double move_box_r2(const pfb_move_box *b)
{
    double r2 = 0.0;
    for (int k = 0; k < 3; k++)
        if (b->hi[k] >= b->lo[k])
            r2 += 0.25 * (b->hi[k] - b->lo[k]) * (b->hi[k] - b->lo[k]);
    return r2;
}

typedef struct pfb_halflist {
    double h, hl;          /* the interaction radius and the list's, h (1 + skin) */
    int periodic;          /* the scene has periodic axes: rows from pl */
    pfb_nlist pl;          /* periodic: the full minimum-image list the rows come from */
    uint32_t *ls, *lj;     /* the rows (see above) */
    size_t last_pairs;     /* pairs of the last list */
    size_t cap_n, cap_pairs;
    size_t *blk, nblk;     /* the blocks blk[0 .. nblk] */
    int ring;              /* periodic rows around the end: the last block touches block 0 */
    size_t wrap;           /* one past the largest partner around the end (0: none) */
    size_t *bord;          /* the even blocks, then the odd, each largest first */
    size_t reach, maxrow;  /* the farthest a row reaches ahead (its last j - i, around the ring: + n), the longest row */
    unsigned long gen;     /* sim->grid_gen of the grid it was built on (0: none yet) */
    long builds;           /* lists built so far */
    void *sbox[2];         /* the local test's boxes of 2 x 2 x 2-cell blocks */
    size_t cap_sbox;
    pfb_half_scan *scan[PFB_MAX_THREADS]; /* per thread, for the rows (kept) */
    uint32_t *lbuf[2];     /* the one-pass build's chunk of rows, per side (kept) */
    size_t lbuf_cap[2];
} pfb_halflist;

/* A list of radius h (1 + skin) for sim, empty until halflist_ensure; the run's
 * sorts are set to its radius (sim->sort_h), so that a sort at a frame serves
 * the list too. */
void halflist_init(pfb_halflist *L, pfb_sim *sim, double h, double skin);

/* The skin a solver asks for: `skin`, or when the user did not set it
 * (user_set 0) and sim has periodic axes, at most 0.98 of the largest skin
 * that keeps h (1 + skin) below half of every period (the minimum image must
 * stay unique; never below 0).  A skin the user set is kept: the periodic
 * list then reports a period too short for it. */
double halflist_skin(const pfb_sim *sim, double h, double skin, int user_set);
void halflist_free(pfb_halflist *L);

/* Whether sim->grid is the grid of the last sort of the current storage, at
 * the list's radius (then its xs are the positions at that sort). */
int halflist_is_sort(const pfb_halflist *L, const pfb_sim *sim);

/* Keep the list valid for the current positions (see above).  box2 is the
 * squared half-diagonal of the moves' box since the sort when the caller has
 * it (a solver's drift can measure it as it moves the particles), else
 * negative.  A sort moves every particle field but those in `skip` (bit f:
 * field f, rewritten before anything reads it).  *built is 1 when the list was
 * rebuilt (its blocks and reach are new), else 0.  Fails on out of memory or
 * more than UINT32_MAX pairs. */
int halflist_ensure(pfb_halflist *L, pfb_sim *sim, double box2, uint64_t skip, int *built, pfb_err *err);

/* Checkpoints (solver.h's save and load): the list follows from the sort it
 * was built on (core/sim.h's sim_restore_sort restores that), so a checkpoint
 * holds its build count and whether it was built on the current sort.  load
 * builds it again from the restored sort when it was (*rebuilt 1: the solver
 * sizes what depends on it), keeping the count. */
struct pfb_ckpt_w;
struct pfb_ckpt_r;
void halflist_save(const pfb_halflist *L, const pfb_sim *sim, struct pfb_ckpt_w *w);
int halflist_load(pfb_halflist *L, pfb_sim *sim, struct pfb_ckpt_r *r, int *rebuilt, pfb_err *err);

/* The full form of a half list, for a solver that walks every particle's whole
 * neighbourhood (a Gauss-Seidel sweep, a gather, a matrix row): row i is fj[fs[i]
 * .. fs[i+1]-1], every listed partner of i, first those below i (the half rows
 * that hold i, in row order), then i's own half row; so each row ascends (on a
 * ring, the partners around the end break the order).  Pairs at h or beyond (the
 * skin) are listed: the caller skips them by their distance, as with the half
 * list.  8 bytes per pair. */
typedef struct pfb_fulllist {
    uint32_t *fs, *fj; /* the rows */
    uint32_t *fc;      /* the rows' cursors while it is made */
    size_t cap_fs, cap_fj;
    size_t longest;    /* the longest row */
    long builds;       /* L->builds it was made from (-1: none yet) */
} pfb_fulllist;
#define PFB_FULLLIST_EMPTY {NULL, NULL, NULL, 0, 0, 0, -1}
/* Make F the full form of L (for its n = sim's particles), unless it already is
 * (F->builds == L->builds).  Fails on out of memory. */
int halflist_full(const pfb_halflist *L, size_t n, pfb_fulllist *F, pfb_err *err);
void fulllist_free(pfb_fulllist *F);
#endif
