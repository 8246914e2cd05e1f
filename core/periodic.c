/* periodic.c — periodic boundaries: wrapping and the periodic neighbour list
 * (see periodic.h).
 *
 * The grid's choice: image points, not wrapped cells.  core/grid is tuned for a
 * bounded box (cell-ordered copies, a single-precision filter, half rows that
 * rely on slot order); image points leave all of it as it is and cost only the
 * images, a layer of width h' on each periodic face (about 2 dim h' / L of the
 * points).  For each periodic axis d, with [mn, mx] the points' extent on it:
 *   a point with x < mx - L + h' gets an image at x + L,
 *   a point with x > mn + L - h' gets an image at x - L,
 * and a point near an edge or corner gets every combination of its axes' shifts
 * (up to 3 images in 2D, 7 in 3D).  A pair whose minimum image is within h' of
 * each other then meets as point and original or point and image: if x_i - x_j
 * - L lies in (-h', h'), then x_j + L < x_i + h' <= mx + h', and symmetrically.
 * h' = h (1 + 1e-9) + 16 eps E (E the largest |coordinate| or period), so the
 * difference between x_i - (x_j + L), which the grid computes, and the minimum
 * image (x_i - x_j) - L rint(.), which decides, is far inside the margin.  With
 * L > 2 h', no point meets another twice (an original and an image, or two
 * images, are L apart on some axis), and no point meets its own image.
 *
 * The extended set's list is then read row by row for the n originals: each hit
 * mapped to its original, kept iff period_dist2 < h^2, and the row sorted.  Two
 * passes (count, then fill) over rows in parallel, each row by one thread from
 * the same values, so the list does not depend on the thread count. */
#include "periodic.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

void period_set(pfb_period *pp, int d, double lo, double L)
{
    pp->L[d] = L > 0 ? L : 0.0;
    pp->inv[d] = L > 0 ? 1.0 / L : 0.0;
    pp->lo[d] = L > 0 ? lo : 0.0;
}

int period_set_le(pfb_period *pp, double U, pfb_err *err)
{
    if (!(pp->L[0] > 0) || !(pp->L[1] > 0))
        return pfb_err_set(err, PFB_EINVAL, "Lees-Edwards boundaries need x and y periodic (periods %g and %g); "
                           "valid: both > 0", pp->L[0], pp->L[1]);
    if (!isfinite(U))
        return pfb_err_set(err, PFB_EINVAL, "Lees-Edwards boundaries: the sliding velocity %g is invalid; it must "
                           "be finite", U);
    pp->le = 1;
    pp->le_U = U;
    pp->le_s = 0.0;
    pp->le_t = 0.0;
    return PFB_OK;
}

double period_dist2_le(const pfb_period *pp, int dim, const double *const x[3], size_t a, size_t b)
{
    double d[3] = {x[0][a] - x[0][b], x[1][a] - x[1][b], dim == 3 ? x[2][a] - x[2][b] : 0.0};
    period_vec(pp, dim, d);
    double d2 = d[0] * d[0] + d[1] * d[1];
    if (dim == 3)
        d2 += d[2] * d[2];
    return d2;
}

void period_le_at(pfb_period *pp, double t)
{
    if (!pp->le)
        return;
    double s = fmod(pp->le_U * t, pp->L[0]);
    if (s < 0)
        s += pp->L[0];
    if (!(s < pp->L[0]))
        s = 0.0;
    pp->le_s = s;
    pp->le_t = t;
}

void period_wrap_le(const pfb_period *pp, int dim, double *const x[3], double *const v[3], size_t n,
                    double *image)
{
    if (pp->le) {
        /* y first: a point k periods out is the image k periods up of where it
         * is put back, so x and v_x take k s and k U off */
        const double L = pp->L[1], inv = pp->inv[1], lo = pp->lo[1], hi = lo + L;
        for (size_t i = 0; i < n; i++) {
            double y = x[1][i];
            if (y >= lo && y < hi)
                continue;
            double k = floor((y - lo) * inv);
            y -= L * k;
            if (y >= hi) {
                y -= L;
                k += 1.0;
            }
            if (y < lo)
                y = lo;
            x[1][i] = y;
            x[0][i] -= k * pp->le_s;
            if (v)
                v[0][i] -= k * pp->le_U;
            if (image) {
                image[3 * i] += k * pp->le_s * pp->inv[0];
                image[3 * i + 1] += k;
            }
        }
    }
    pfb_period rest = *pp;
    if (pp->le)
        rest.L[1] = rest.inv[1] = 0.0; /* y is wrapped */
    period_wrap(&rest, dim, x, n, image);
}

void period_wrap(const pfb_period *pp, int dim, double *const x[3], size_t n, double *image)
{
    for (int d = 0; d < dim; d++) {
        const double L = pp->L[d], inv = pp->inv[d], lo = pp->lo[d], hi = lo + L;
        if (!(L > 0))
            continue;
        double *restrict xd = x[d];
        for (size_t i = 0; i < n; i++) {
            double v = xd[i];
            if (v >= lo && v < hi)
                continue;
            double k = floor((v - lo) * inv);
            v -= L * k;
            /* rounding may leave v a step outside [lo, hi) */
            if (v >= hi) {
                v -= L;
                k += 1.0;
            }
            if (v < lo)
                v = lo;
            xd[i] = v;
            if (image)
                image[3 * i + (size_t)d] += k;
        }
    }
}

void periodic_ws_free(pfb_periodic_ws *w)
{
    if (!w)
        return;
    grid_free(&w->grid);
    nlist_free(&w->ext);
    for (int d = 0; d < 3; d++)
        free(w->xe[d]);
    free(w->orig);
    memset(w, 0, sizeof *w);
}

static int reserve_ext(pfb_periodic_ws *w, size_t need)
{
    if (need <= w->cap)
        return PFB_OK;
    size_t cap = need + need / 4 + 64;
    for (int d = 0; d < 3; d++) {
        double *t = realloc(w->xe[d], cap * sizeof *t);
        if (!t)
            return PFB_ENOMEM;
        w->xe[d] = t;
    }
    uint32_t *o = realloc(w->orig, cap * sizeof *o);
    if (!o)
        return PFB_ENOMEM;
    w->orig = o;
    w->cap = cap;
    return PFB_OK;
}

/* Shifts (-1, 0, +1 periods) point i needs per axis: bit 0 for +L, bit 1 for -L. */
static unsigned image_shifts(const pfb_period *pp, int dim, const double *const x[3], size_t i, const double mn[3],
                             const double mx[3], double hp, unsigned s[3])
{
    unsigned any = 0;
    for (int d = 0; d < 3; d++) {
        s[d] = 0;
        if (d >= dim || !(pp->L[d] > 0))
            continue;
        const double v = x[d][i], L = pp->L[d];
        if (v < mx[d] - L + hp)
            s[d] |= 1u;
        if (v > mn[d] + L - hp)
            s[d] |= 2u;
        any |= s[d];
    }
    return any;
}

/* Append point i's images (every combination of its shifts but none) at xe[m..]. */
static size_t add_images(const pfb_period *pp, int dim, const double *const x[3], size_t i, const unsigned s[3],
                         pfb_periodic_ws *w, size_t m)
{
    static const double shift[3] = {0.0, 1.0, -1.0}; /* none, +L, -L */
    for (int a = 0; a < 3; a++) {
        if (a && !(s[0] & (unsigned)a))
            continue;
        for (int b = 0; b < 3; b++) {
            if (b && !(s[1] & (unsigned)b))
                continue;
            for (int c = 0; c < (dim == 3 ? 3 : 1); c++) {
                if (c && !(s[2] & (unsigned)c))
                    continue;
                if (!a && !b && !c)
                    continue;
                const int k[3] = {a, b, c};
                for (int d = 0; d < 3; d++)
                    w->xe[d][m] = d < dim ? x[d][i] + shift[k[d]] * pp->L[d] : 0.0;
                w->orig[m] = (uint32_t)i;
                m++;
            }
        }
    }
    return m;
}

/* Point i's images on a sheared box (Lees-Edwards, the header's rule), counted
 * (w NULL) or appended at xe[m..]: its y images at y +- L_y with x +- s wrapped
 * into [lo, lo + L_x), then for the point and each y image its x images by the
 * extents mn0, mx0 of them all, and z's as image_shifts decides; returns the
 * new m (or m plus the count). */
static size_t le_images(const pfb_period *pp, int dim, const double *const x[3], size_t i, const double mn[3],
                        const double mx[3], double hp, pfb_periodic_ws *w, size_t m)
{
    const double Lx = pp->L[0], Ly = pp->L[1], Lz = dim == 3 ? pp->L[2] : 0.0;
    const double y = x[1][i];
    double ys[3], xs[3];
    int ny = 0;
    ys[ny] = y;
    xs[ny++] = x[0][i];
    for (int sgn = 1; sgn >= -1; sgn -= 2) {
        if (sgn > 0 ? !(y < mx[1] - Ly + hp) : !(y > mn[1] + Ly - hp))
            continue;
        double xv = x[0][i] + sgn * pp->le_s;
        xv -= Lx * floor((xv - pp->lo[0]) * pp->inv[0]);
        ys[ny] = y + sgn * Ly;
        xs[ny++] = xv;
    }
    /* z's shifts (none, +L, -L) as image_shifts gives them */
    double zs[3];
    int nz = 0;
    const double z = dim == 3 ? x[2][i] : 0.0;
    zs[nz++] = z;
    if (Lz > 0) {
        if (z < mx[2] - Lz + hp)
            zs[nz++] = z + Lz;
        if (z > mn[2] + Lz - hp)
            zs[nz++] = z - Lz;
    }
    for (int a = 0; a < ny; a++) {
        double xx[3];
        int nx = 0;
        xx[nx++] = xs[a];
        if (xs[a] < mx[0] - Lx + hp)
            xx[nx++] = xs[a] + Lx;
        if (xs[a] > mn[0] + Lx - hp)
            xx[nx++] = xs[a] - Lx;
        for (int b = 0; b < nx; b++)
            for (int c = 0; c < nz; c++) {
                if (a == 0 && b == 0 && c == 0)
                    continue;
                if (w) {
                    w->xe[0][m] = xx[b];
                    w->xe[1][m] = ys[a];
                    w->xe[2][m] = zs[c];
                    w->orig[m] = (uint32_t)i;
                }
                m++;
            }
    }
    return m;
}

/* Sort a row of indices ascending (rows are short: insertion sort). */
static void sort_row(uint32_t *r, size_t m)
{
    for (size_t a = 1; a < m; a++) {
        uint32_t v = r[a];
        size_t b = a;
        while (b > 0 && r[b - 1] > v) {
            r[b] = r[b - 1];
            b--;
        }
        r[b] = v;
    }
}

static int reserve_list(pfb_nlist *nl, size_t n, size_t pairs)
{
    if (n + 1 > nl->cap_n || !nl->start) {
        size_t *t = realloc(nl->start, (n + 1) * sizeof *t);
        if (!t)
            return PFB_ENOMEM;
        nl->start = t;
        nl->cap_n = n + 1;
    }
    if (pairs > nl->cap_pairs || !nl->idx) {
        size_t cap = pairs + pairs / 4 + 16;
        uint32_t *t = realloc(nl->idx, cap * sizeof *t);
        if (!t)
            return PFB_ENOMEM;
        nl->idx = t;
        nl->cap_pairs = cap;
    }
    return PFB_OK;
}

/* Check the periods against the search radius; extent mn, mx of the points
 * (failing on a non-finite coordinate); the margin radius hp. */
static int prepare(const char *who, const pfb_period *pp, int dim, double h, const double *const x[3], size_t n,
                   double mn[3], double mx[3], double *hp, pfb_err *err)
{
    if (dim != 2 && dim != 3)
        return pfb_err_set(err, PFB_EINVAL, "%s: dim = %d is invalid; dim must be 2 or 3", who, dim);
    if (!(h > 0) || !isfinite(h))
        return pfb_err_set(err, PFB_EINVAL, "%s: h = %g is invalid; h must be a finite number > 0", who, h);
    double E = 0.0;
    for (int d = 0; d < 3; d++) {
        mn[d] = mx[d] = 0.0;
        if (d >= dim)
            continue;
        double a = INFINITY, b = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            const double v = x[d][i];
            if (!isfinite(v))
                return pfb_err_set(err, PFB_EINVAL, "%s: point %zu has a non-finite coordinate %c = %g; "
                                   "coordinates must be finite", who, i, "xyz"[d], v);
            a = v < a ? v : a;
            b = v > b ? v : b;
        }
        mn[d] = n ? a : 0.0;
        mx[d] = n ? b : 0.0;
        E = fmax(E, fmax(fabs(mn[d]), fabs(mx[d])));
        E = fmax(E, pp->L[d]);
    }
    *hp = h * (1.0 + 1e-9) + 16.0 * DBL_EPSILON * E;
    for (int d = 0; d < dim; d++) {
        const double L = pp->L[d];
        if (!(L > 0))
            continue;
        if (!(L > 2.0 * h * (1.0 + 1e-6)) || !(L > 2.0 * *hp))
            return pfb_err_set(err, PFB_EINVAL, "%s: the period %g on axis %c is too short for the search radius "
                               "%g; a period must exceed twice the radius (2h = %g)", who, L, "xyz"[d], h, 2.0 * h);
        if (n && !(mx[d] - mn[d] <= 1.5 * L))
            return pfb_err_set(err, PFB_EINVAL, "%s: the points spread over [%g, %g] on periodic axis %c, more than "
                               "1.5 periods (%g); wrap them into the box (period_wrap) first", who, mn[d], mx[d],
                               "xyz"[d], L);
    }
    return PFB_OK;
}

int periodic_neighbours(pfb_periodic_ws *w, const pfb_period *pp, int dim, double h, int threads,
                        const double *const x[3], size_t n, pfb_nlist *out, pfb_err *err)
{
    double mn[3], mx[3], hp;
    int rc = prepare("periodic_neighbours", pp, dim, h, x, n, mn, mx, &hp, err);
    if (rc)
        return rc;
    if (n > UINT32_MAX / 8)
        return pfb_err_set(err, PFB_EINVAL, "periodic_neighbours: %zu points are too many; at most %lu", n,
                           (unsigned long)(UINT32_MAX / 8));
    /* the extended set: the points, then their images */
    size_t nimg = 0;
    if (pp->le) {
        /* the y images' x lie in [lo, lo + L_x): the x extents include them */
        mn[0] = fmin(mn[0], pp->lo[0]);
        mx[0] = fmax(mx[0], pp->lo[0] + pp->L[0]);
        for (size_t i = 0; i < n; i++)
            nimg = le_images(pp, dim, x, i, mn, mx, hp, NULL, nimg);
    }
    for (size_t i = 0; i < n && !pp->le; i++) {
        unsigned s[3];
        if (image_shifts(pp, dim, x, i, mn, mx, hp, s)) {
            size_t c = 1;
            for (int d = 0; d < dim; d++)
                c *= 1 + (size_t)((s[d] & 1u) != 0) + (size_t)((s[d] & 2u) != 0);
            nimg += c - 1;
        }
    }
    if (reserve_ext(w, n + nimg) != PFB_OK)
        return pfb_err_set(err, PFB_ENOMEM, "periodic_neighbours: out of memory for %zu points and %zu images", n,
                           nimg);
    for (int d = 0; d < 3; d++) {
        if (d < dim)
            memcpy(w->xe[d], x[d], n * sizeof(double));
        else
            memset(w->xe[d], 0, n * sizeof(double));
    }
    size_t m = n;
    for (size_t i = 0; i < n && pp->le; i++)
        m = le_images(pp, dim, x, i, mn, mx, hp, w, m);
    for (size_t i = 0; i < n && !pp->le; i++) {
        unsigned s[3];
        if (image_shifts(pp, dim, x, i, mn, mx, hp, s))
            m = add_images(pp, dim, x, i, s, w, m);
    }
    w->nimg = nimg;
    if (w->grid.h != hp || w->grid.dim != dim) {
        grid_free(&w->grid);
        rc = grid_init(&w->grid, dim, hp, err);
        if (rc)
            return rc;
    }
    w->grid.threads = threads;
    const double *const xe[3] = {w->xe[0], w->xe[1], w->xe[2]};
    rc = grid_build(&w->grid, xe, m, err);
    if (!rc)
        rc = grid_neighbours(&w->grid, xe, &w->ext, err);
    if (rc)
        return rc;
    /* the rows of the originals, mapped back and decided by the minimum image */
    if (reserve_list(out, n, 0) != PFB_OK)
        return pfb_err_set(err, PFB_ENOMEM, "periodic_neighbours: out of memory for %zu row offsets", n + 1);
    const double hh = h * h;
    const pfb_nlist *e = &w->ext;
    const uint32_t *orig = w->orig;
    out->start[0] = 0;
#pragma omp parallel for schedule(dynamic, 1024) num_threads(threads > 0 ? threads : 1) if (threads > 1)
    for (size_t i = 0; i < n; i++) {
        size_t c = 0;
        for (size_t q = e->start[i]; q < e->start[i + 1]; q++) {
            const size_t j = e->idx[q] < n ? e->idx[q] : orig[e->idx[q]];
            c += period_dist2(pp, dim, x, i, j) < hh;
        }
        out->start[i + 1] = c;
    }
    for (size_t i = 0; i < n; i++)
        out->start[i + 1] += out->start[i];
    if (reserve_list(out, n, out->start[n]) != PFB_OK)
        return pfb_err_set(err, PFB_ENOMEM, "periodic_neighbours: out of memory for %zu pairs", out->start[n]);
#pragma omp parallel for schedule(dynamic, 1024) num_threads(threads > 0 ? threads : 1) if (threads > 1)
    for (size_t i = 0; i < n; i++) {
        uint32_t *row = out->idx + out->start[i];
        size_t c = 0;
        for (size_t q = e->start[i]; q < e->start[i + 1]; q++) {
            const size_t j = e->idx[q] < n ? e->idx[q] : orig[e->idx[q]];
            if (period_dist2(pp, dim, x, i, j) < hh)
                row[c++] = (uint32_t)j;
        }
        sort_row(row, c);
    }
    out->n = n;
    return PFB_OK;
}

int nlist_brute_periodic(const pfb_period *pp, int dim, double h, const double *const x[3], size_t n,
                         pfb_nlist *nl, pfb_err *err)
{
    double mn[3], mx[3], hp;
    int rc = prepare("nlist_brute_periodic", pp, dim, h, x, n, mn, mx, &hp, err);
    if (rc)
        return rc;
    if (reserve_list(nl, n, 0) != PFB_OK)
        return pfb_err_set(err, PFB_ENOMEM, "nlist_brute_periodic: out of memory for %zu row offsets", n + 1);
    const double hh = h * h;
    nl->start[0] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t c = 0;
        for (size_t j = 0; j < n; j++)
            c += j != i && period_dist2(pp, dim, x, i, j) < hh;
        nl->start[i + 1] = nl->start[i] + c;
    }
    if (reserve_list(nl, n, nl->start[n]) != PFB_OK)
        return pfb_err_set(err, PFB_ENOMEM, "nlist_brute_periodic: out of memory for %zu pairs", nl->start[n]);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (j != i && period_dist2(pp, dim, x, i, j) < hh)
                nl->idx[m++] = (uint32_t)j;
    nl->n = n;
    return PFB_OK;
}
