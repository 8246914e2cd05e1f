/* diag.c — the common diagnostics (see diag.h for the definitions). */
#include "diag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


#define DIAG_MAX_SAMPLES 50000000.0

int diag_init(pfb_diag_ctx *c, const pfb_sim *sim, pfb_err *err)
{
    memset(c, 0, sizeof *c);
    c->dim = sim->dim;
    c->spacing = sim->spacing;
    double h = 2.0 * sim->spacing;
    int rc = kernel_init(&c->w, PFB_KERNEL_CUBIC, sim->dim, h, err);
    if (!rc)
        rc = grid_init(&c->grid, sim->dim, h, err);
    if (rc)
        return rc;
    double m = sim->p.n ? particles_total_mass(&sim->p) / (double)sim->p.n : 0.0;
    double s = sim->spacing;
    c->rho_lat = lattice_density(&c->w, s, m);
    c->res = 0.5 * s;
    c->vol_nominal = (double)sim->p.n * pow(s, sim->dim);
    c->vol_raw0 = 1.0; /* provisional, so diag_compute can measure the raw volume */
    pfb_diag d;
    rc = diag_compute(c, sim, &d, err);
    if (rc)
        return rc;
    c->vol_raw0 = d.volume_rel;
    return PFB_OK;
}

double lattice_sum(int dim, double reach, double (*f)(double r, void *ctx), void *ctx)
{
    int m = (int)ceil(reach);
    int kz = dim == 3 ? m : 0;
    double sum = 0.0;
    for (int k = -kz; k <= kz; k++)
        for (int j = -m; j <= m; j++)
            for (int i = -m; i <= m; i++)
                sum += f(sqrt((double)(i * i + j * j + k * k)), ctx);
    return sum;
}

struct kernel_at_spacing {
    const pfb_kernel *w;
    double spacing;
};

static double kernel_term(double r, void *ctx)
{
    const struct kernel_at_spacing *k = ctx;
    return kernel_w(k->w, k->spacing * r);
}

double lattice_density(const pfb_kernel *w, double spacing, double mass)
{
    struct kernel_at_spacing k = {w, spacing};
    return mass * lattice_sum(w->dim, w->h / spacing, kernel_term, &k);
}

void diag_free(pfb_diag_ctx *c)
{
    if (!c)
        return;
    grid_free(&c->grid);
    nlist_free(&c->nl);
    periodic_ws_free(&c->pws);
    free(c->field);
    memset(c, 0, sizeof *c);
}

void diag_basic(const pfb_sim *sim, pfb_diag *d)
{
    const pfb_particles *p = &sim->p;
    memset(d, 0, sizeof *d);
    d->t = sim->t;
    d->n = p->n;
    for (int k = 0; k < 3; k++) {
        d->lo[k] = p->n ? INFINITY : 0.0;
        d->hi[k] = p->n ? -INFINITY : 0.0;
    }
    /* periodic axes: extents of the positions wrapped into the box; the
     * centre of mass, energy and angular momentum of the unwrapped positions
     * x + image L (the field counts the wraps of each particle), so that the
     * centre moves with the momentum, continuously, as in an open box; on a
     * sheared box the velocities too are unwrapped, v_x + image_y U (a point
     * wrapped across a sliding face lost U: core/periodic.h) */
    const pfb_period *pp = &sim->period;
    const int per = sim_periodic(sim) && sim->f_image >= 0;
    const double *img = per ? p->field[sim->f_image].data : NULL;
    for (size_t i = 0; i < p->n; i++) {
        double m = p->m[i];
        double x[3] = {p->x[0][i], p->x[1][i], p->x[2][i]};
        double v[3] = {p->v[0][i], p->v[1][i], p->v[2][i]};
        double xw[3] = {x[0], x[1], x[2]};
        if (per)
            for (int k = 0; k < sim->dim; k++)
                if (pp->L[k] > 0) {
                    const double w = floor((x[k] - pp->lo[k]) * pp->inv[k]);
                    xw[k] = x[k] - pp->L[k] * w;
                    x[k] += pp->L[k] * img[3 * i + (size_t)k];
                }
        if (per && pp->le)
            v[0] += pp->le_U * img[3 * i + 1];
        d->mass += m;
        d->ke += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        d->pe -= m * (sim->g[0] * x[0] + sim->g[1] * x[1] + sim->g[2] * x[2]);
        for (int k = 0; k < 3; k++) {
            d->p[k] += m * v[k];
            d->com[k] += m * x[k];
            if (xw[k] < d->lo[k])
                d->lo[k] = xw[k];
            if (xw[k] > d->hi[k])
                d->hi[k] = xw[k];
        }
        d->l[0] += m * (x[1] * v[2] - x[2] * v[1]);
        d->l[1] += m * (x[2] * v[0] - x[0] * v[2]);
        d->l[2] += m * (x[0] * v[1] - x[1] * v[0]);
    }
    if (d->mass > 0)
        for (int k = 0; k < 3; k++)
            d->com[k] /= d->mass;
}

static int density_error(pfb_diag_ctx *c, const pfb_sim *sim, pfb_diag *d, pfb_err *err)
{
    const pfb_particles *p = &sim->p;
    const double *const *x = (const double *const *)p->x;
    const int per = sim_periodic(sim);
    int rc;
    if (per) {
        rc = periodic_neighbours(&c->pws, &sim->period, sim->dim, c->w.h, 1, x, p->n, &c->nl, err);
    } else {
        rc = grid_build(&c->grid, x, p->n, err);
        if (!rc)
            rc = grid_neighbours(&c->grid, x, &c->nl, err);
    }
    if (rc)
        return rc;
    double w0 = kernel_w(&c->w, 0.0), sum = 0.0, mx = 0.0;
    for (size_t i = 0; i < p->n; i++) {
        double rho = p->m[i] * w0;
        for (size_t q = c->nl.start[i]; q < c->nl.start[i + 1]; q++)
            rho += p->m[c->nl.idx[q]] * kernel_w_r2(&c->w, period_dist2(&sim->period, sim->dim, x, i, c->nl.idx[q]));
        double e = fmax(rho / c->rho_lat - 1.0, 0.0);
        sum += e;
        if (e > mx)
            mx = e;
    }
    d->density_err_mean = p->n ? sum / (double)p->n : 0.0;
    d->density_err_max = mx;
    return PFB_OK;
}

/* Raw measure of {c > 1/2} on the sample grid, or NaN when the extent is too large. */
static int raw_volume(pfb_diag_ctx *c, const pfb_sim *sim, const pfb_diag *d, double *vol, pfb_err *err)
{
    const pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    const double h = c->w.h, res = c->res;
    double org[3] = {0, 0, 0};
    long nn[3] = {1, 1, 1};
    double total = 1.0;
    for (int k = 0; k < dim; k++) {
        org[k] = d->lo[k] - h;
        nn[k] = (long)ceil((d->hi[k] - d->lo[k] + 2.0 * h) / res) + 1;
        total *= (double)nn[k];
    }
    if (p->n == 0 || !(total <= DIAG_MAX_SAMPLES)) {
        *vol = NAN;
        return PFB_OK;
    }
    size_t ns = (size_t)total;
    if (ns > c->field_cap) {
        double *f = realloc(c->field, ns * sizeof *f);
        if (!f)
            return pfb_err_set(err, PFB_ENOMEM, "out of memory for %zu volume samples", ns);
        c->field = f;
        c->field_cap = ns;
    }
    double *field = c->field;
    memset(field, 0, ns * sizeof *field);
    const long reach = (long)ceil(h / res);
    const double h2 = h * h;
    for (size_t i = 0; i < p->n; i++) {
        double wgt = p->m[i] / c->rho_lat;
        long ci[3] = {0, 0, 0}, lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
        for (int k = 0; k < dim; k++) {
            ci[k] = (long)floor((p->x[k][i] - org[k]) / res);
            lo[k] = ci[k] - reach < 0 ? 0 : ci[k] - reach;
            hi[k] = ci[k] + reach >= nn[k] ? nn[k] - 1 : ci[k] + reach;
        }
        for (long kz = lo[2]; kz <= hi[2]; kz++) {
            double dz = dim == 3 ? org[2] + (kz + 0.5) * res - p->x[2][i] : 0.0;
            for (long ky = lo[1]; ky <= hi[1]; ky++) {
                double dy = org[1] + (ky + 0.5) * res - p->x[1][i];
                double r2yz = dy * dy + dz * dz;
                if (r2yz >= h2)
                    continue;
                double *row = field + ((size_t)kz * (size_t)nn[1] + (size_t)ky) * (size_t)nn[0];
                for (long kx = lo[0]; kx <= hi[0]; kx++) {
                    double dx = org[0] + (kx + 0.5) * res - p->x[0][i];
                    double r2 = dx * dx + r2yz;
                    if (r2 < h2)
                        row[kx] += wgt * kernel_w_r2(&c->w, r2);
                }
            }
        }
    }
    size_t inside = 0;
    for (size_t s = 0; s < ns; s++)
        inside += field[s] > 0.5;
    *vol = (double)inside * pow(res, dim);
    return PFB_OK;
}

int diag_compute(pfb_diag_ctx *c, const pfb_sim *sim, pfb_diag *d, pfb_err *err)
{
    diag_basic(sim, d);
    int rc = density_error(c, sim, d, err);
    double raw = NAN;
    if (!rc)
        rc = raw_volume(c, sim, d, &raw, err);
    if (rc)
        return rc;
    d->volume_rel = raw / c->vol_raw0;
    d->volume = d->volume_rel * c->vol_nominal;
    return PFB_OK;
}
