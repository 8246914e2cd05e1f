/* grid.h — uniform-grid neighbour search with counting sort (2D and 3D).
 *
 * Cells have edge h (the search radius).  The grid covers the bounding box of the
 * points at each build; when that box would need more than max_cells cells (points
 * spread far apart), cells are hashed into a table instead (Clavet 2005 §7.1), so
 * the domain is effectively unbounded.  Particles are counting-sorted by cell:
 * `order` lists point indices cell by cell, and grid_sort_permutation gives the
 * permutation that makes storage cell-ordered.
 *
 * A pair (i, j), i != j, is a neighbour pair iff pfb_dist2(xi, xj) < h*h, with the
 * squared distance computed exactly as pfb_dist2 does, so results equal a
 * brute-force search bit for bit.
 *
 * The neighbour list is a full list in compressed-row form: the neighbours of i
 * are idx[start[i] .. start[i+1]-1] (32-bit indices), in increasing index order;
 * it keeps no distances (pfb_dist2 of the coordinates gives them, bit for bit).
 * grid_neighbours runs on several threads (OpenMP) for 512 points or more. */
#ifndef PFB_GRID_H
#define PFB_GRID_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"

/* Squared distance between points a and b (dim 2 or 3), the one definition used. */
static inline double pfb_dist2(int dim, const double *const x[3], size_t a, size_t b)
{
    double dx = x[0][a] - x[0][b];
    double dy = x[1][a] - x[1][b];
    double d2 = dx * dx + dy * dy;
    if (dim == 3) {
        double dz = x[2][a] - x[2][b];
        d2 += dz * dz;
    }
    return d2;
}

/* The most points a grid takes: indices and slots are 32-bit (4 bytes a point
 * each, not 8), and the hashed table has fewer than 4n slots. */
#define GRID_MAX_POINTS (UINT32_MAX / 4)

typedef struct pfb_grid {
    int dim;
    double h, inv_h;
    double origin[3];      /* lower corner of the covered box */
    long ncell[3];         /* cells per axis (bounded mode) */
    int hashed;            /* 1 if cells are hashed into a table */
    size_t ntable;         /* number of cell slots (ncell product or hash size) */
    size_t n;              /* number of points in the last build */
    size_t *cell_start;    /* ntable + 1 offsets into order */
    uint32_t *order;       /* point indices sorted by cell slot (32-bit: GRID_MAX_POINTS) */
    uint32_t *slot;        /* slot of each point (size n; at most UINT32_MAX cells) */
    long *cellc;           /* hashed mode: integer cell coordinates of each point, dim per
                              point (bounded mode derives them from slot: grid_cell_of) */
    size_t cap_points, cap_table;
    size_t max_cells;      /* bound on bounded-mode cells before hashing (0: max(4n, 1024)) */
    double scale;          /* binning scale of the last build: cell = floor((x - origin) * scale),
                              inv_h shrunk by a few ulps per cell of span (see grid.c) */
    double *xs;            /* cell-ordered copy of the coordinates: xs[d * cap_points + k]
                              = x[d][order[k]]; grid_neighbours reads it */
    int ready;             /* 1 after a successful grid_build */
    int ordered;           /* 1 if the points were stored in cell order (order[k] = k) */
    int threads;           /* threads of grid_neighbours (0: the OpenMP default from 512
                              points on, else 1); the list does not depend on it */
    size_t chunk_points;   /* points per chunk of a parallel grid_neighbours, about (0: 16384;
                              at most 16 chunks per thread); the list does not depend on it */
    int sub;               /* cells per h wanted (1 or 2; grid_init sets 1): cells of edge
                              h / 2 halve a point's candidates, but cost more than
                              they save unless cells hold many points */
    int sub_used;          /* cells per h of the last build (1 in hashed mode, or when the
                              box would need too many half cells) */
    int exact_only;        /* 1: never use the single-precision filter (tests compare both) */
    int filter;            /* 1 if the last build allows the filter (grid.c) */
    float f_lo2, f_hi2;    /* filter: float r^2 < f_lo2 is surely a hit, >= f_hi2 surely not */
    float *xf;             /* grid_neighbours' float offsets xs - origin, xf[d * cap_xf + k],
                              made by it when the filter is on (only its callers pay for it) */
    size_t cap_xf;
} pfb_grid;

typedef struct pfb_nlist {
    size_t n;              /* number of points (at most UINT32_MAX) */
    size_t *start;         /* n + 1 offsets */
    uint32_t *idx;         /* neighbour indices; a pair's squared distance is pfb_dist2
                              of the coordinates the list was made from */
    size_t cap_n, cap_pairs;
    int nchunk;            /* grid_neighbours' per-thread row buffers, kept between calls */
    uint32_t **chunk;
    size_t *chunk_cap;
} pfb_nlist;

/* The three coordinate arrays of the grid's cell-ordered copy xs (in 2D the z
 * entry repeats x, never read). */
static inline void grid_xs(const pfb_grid *g, const double *xs[3])
{
    xs[0] = g->xs;
    xs[1] = g->xs + g->cap_points;
    xs[2] = g->dim == 3 ? g->xs + 2 * g->cap_points : g->xs;
}

/* Initialise an empty grid for dimension dim and cell size h. */
int grid_init(pfb_grid *g, int dim, double h, pfb_err *err);

/* Free a grid's storage (accepts a zeroed grid). */
void grid_free(pfb_grid *g);

/* Bin n points (coordinate arrays x[0..dim-1]) into cells; reuses storage. */
int grid_build(pfb_grid *g, const double *const x[3], size_t n, pfb_err *err);

/* Build the full neighbour list of the last grid_build (radius h). */
int grid_neighbours(pfb_grid *g, const double *const x[3], pfb_nlist *nl, pfb_err *err);

/* Candidate ranges of sorted positions (into g->order and g->xs) for one point:
 * every point within h of it lies in one of them.  Bounded mode: at most one
 * range per row of cells, (2 sub + 1)^(dim-1) rows, without the rows and row
 * ends whose gap to the point is h or more; hashed mode: up to 27 cells.
 *
 * The struct also caches the rows of the last cell it was used for (the cell
 * starts of every row around it), so that a caller walking the points in cell
 * order looks cell_start up once per cell: zero it (or set cached = 0) before
 * the first call of each build, and keep one per thread. */
typedef struct pfb_cell_ranges {
    int n;
    size_t lo[27], hi[27];
    int cached;                /* 1 if the rows below belong to cell `cache_slot` */
    size_t cache_slot;
    long cache_c[3];           /* that cell's coordinates */
    int nrows;
    int row_dy[25], row_dz[25];
    size_t row_x[25][6];       /* cell_start at x offsets -S .. S + 1 (S = sub_used) */
} pfb_cell_ranges;

/* The integer cell coordinates (floor((x - origin) * scale), clamped in bounded
 * mode to the last cell) of point i of the last build; c[2] = 0 in 2D. */
void grid_cell_of(const pfb_grid *g, size_t i, long c[3]);

/* The candidate ranges of the point at sorted position k of the last build. */
void grid_candidates(const pfb_grid *g, size_t k, pfb_cell_ranges *r);

/* Append to pos[m..] the sorted positions c in [lo, hi), c != ki, with
 * pfb_dist2(ki, c) < hh (in increasing order; xs the grid's cell-ordered copy);
 * returns the new m.  Branch-free, and four at a time with AVX2 where the CPU has
 * it: pos needs room for GRID_HITS_SPARE entries past the last hit. */
#define GRID_HITS_SPARE 4
size_t grid_hits(int dim, const double *const xs[3], size_t ki, size_t lo, size_t hi, double hh, size_t *pos,
                 size_t m);

/* Half rows: the sorted positions c > k of the last build with pfb_dist2 < h^2
 * (the same pairs as the full list, each once), in increasing order, one point
 * k at a time.  With the single-precision filter (g->filter, bounded mode) a
 * cell's candidates are converted once into a block that its points share, so
 * walk the points in sorted order; otherwise the exact ranges are scanned.
 * One pfb_half_scan per thread (about 60 KB); reset it after each grid_build. */
typedef struct pfb_half_scan pfb_half_scan;
pfb_half_scan *grid_half_scan_new(void); /* NULL when out of memory */
void grid_half_scan_reset(pfb_half_scan *w);
void grid_half_scan_free(pfb_half_scan *w);
/* The half row of sorted position k, written to row when its length is at
 * most cap (else row's contents are unspecified; row NULL: only counted);
 * returns its length. */
size_t grid_half_row(const pfb_grid *g, pfb_half_scan *w, size_t k, uint32_t *row, size_t cap);

/* Permutation perm[new] = old that makes storage cell-ordered (i.e. g->order). */
const uint32_t *grid_sort_permutation(const pfb_grid *g);

/* Free a neighbour list (accepts a zeroed list). */
void nlist_free(pfb_nlist *nl);

/* Brute-force O(n^2) neighbour list with the same definition (reference for tests). */
int nlist_brute_force(int dim, double h, const double *const x[3], size_t n, pfb_nlist *nl,
                      pfb_err *err);

#endif
