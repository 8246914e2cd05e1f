/* properties.c — each method's effective material: kinematic viscosity (or
 * shear modulus) from a decaying shear wave, sound speed from the settled pool,
 * surface tension from the Laplace pressure of drops, and the dimensionless
 * groups they give the experiments' scenes.
 *
 * Every solver runs the same three scenes with the same diagnostics, at the volume
 * experiment's pool spacing and with the material preset (the calibrated fluid by
 * default, the one the volume, stability and snapshot experiments run; the
 * calibration, calibrate.c, uses these measurements through material.h):
 *
 *  - Viscosity.  The shear_wave scene: a periodic box of 40 spacings in 2D, 20
 *    in 3D (20 and 12 in the quick version), u_x = U sin(k y), k = 2 pi / L, no walls, no gravity, its
 *    v_ref set to the pool's sqrt(g D) so that every relative default (muller's
 *    k = (10 v_ref)^2, the sound speeds of clavet and miller_pearce) is the
 *    pool's.  The wave's amplitude is the projection of the velocity on the mode,
 *    A(t) = 2 sum m v_x sin(k y) / sum m (and its cos(k y) twin, which stays ~0).
 *    For a Newtonian fluid A = A0 exp(-nu k^2 t) exactly (u . grad u = 0, no
 *    pressure gradient), so ln A is fitted by a least-squares line (GSL's
 *    gsl_fit_linear through exp_line_slope, with its standard error) over the
 *    samples while A > 2% of A0 (below that particle noise sets A):
 *    nu_eff = -slope / k^2.  A signal that changes sign at least twice is an
 *    elastic response (a Maxwell material's shear wave oscillates at
 *    omega^2 = G k^2 / rho): the damped cosine of core/fit.c is fitted, and
 *    G = rho omega^2 / k^2 is reported instead of a viscosity (the rule).
 *    A wave that does not decay within the run (nu_eff below its own standard
 *    error) is reported as it is measured, with its error.
 *  - Sound speed.  The pool (the volume experiment's, 2 s): in a settled column
 *    the hydrostatic compression is d(rho/rho_0)/d(depth) = g / c^2.  The density
 *    is the common one of the diagnostics (core/diag.h: the normalised cubic
 *    spline of support 2 spacings, the same for every method), regressed on the
 *    height over the particles more than 1.25 supports from the floor and from
 *    the free surface (nearer, the kernel's support is cut); c_eff = sqrt(-g /
 *    slope), the slope averaged over the frames of the last third (settled).
 *    The slope is independent of any uniform pre-strain of the lattice, which a
 *    volume or a column height would not be.
 *  - Surface tension.  Free drops at rest (the drop scene without its
 *    perturbation, v_ref the pool's) of the drop experiment's radii: the
 *    mechanical pressure of the disc or ball of radius R/2 about the centre of
 *    mass, from the virial theorem for a subsystem, p = (sum m |v - v_mean|^2 +
 *    sum_i sum_j (1/2) r_ij . f_ij) / (dim V), each method's own pair forces
 *    (solver.h, pair_virial: clavet and miller_pearce have no pressure field,
 *    so this is the one pressure every method has), averaged over the second
 *    half of the run.  Laplace: p = p_0 + (dim - 1) sigma / R, so sigma_eff is
 *    the slope of p against 1 / R over the radii (exp_line_slope, with its
 *    standard error; p_0 absorbs any pressure the method holds at rest) divided
 *    by dim - 1.  The drop experiment's frequency gives the cross-check.
 *  - Groups (dam break and pool, H = 0.5 m, the column height 2a and the depth):
 *    Re = H sqrt(g H) / nu_eff, Ma = sqrt(g H) / c_eff, Bo = rho g H^2 / sigma_eff,
 *    each only where its quantity exceeds twice its standard error (NaN else: a
 *    surface tension that is zero within its error has no Bond number).
 *
 * Outputs:
 *   properties_signal.csv   solver,dim,t,amp_sin,amp_cos
 *   properties_pool.csv     solver,dim,t,drho_slope
 *   properties_drops.csv    solver,dim,radius,n,status,p_virial,p_err
 *   properties_summary.csv  solver,dim,nu_set,nu_eff,nu_err,response,shear_modulus,omega,c_eff,c_err,
 *                           sigma_set,sigma_eff,sigma_err,Re,Ma,Bo,status_wave,status_pool
 * nu_set is the Newtonian kinematic viscosity a solver's parameters state
 * (muller mu / rho0, read from its run.meta), where it has one; empty otherwise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/fit.h"
#include "../core/grid.h"
#include "../core/kernels.h"
#include "experiment.h"
#include "material.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define PROP_G 9.81
#define PROP_DEPTH 0.5

static const char *const wave_names[] = {"amp_sin", "amp_cos", NULL};

typedef struct wave_ctx {
    double k;
} wave_ctx;

/* The shear wave's amplitude: the velocity's projection on sin(k y) and cos(k y). */
static void wave_row(void *ctx, const pfb_sim *sim, double *values)
{
    const wave_ctx *w = ctx;
    const pfb_particles *p = &sim->p;
    double m = 0.0, s = 0.0, c = 0.0;
    for (size_t i = 0; i < p->n; i++) {
        const double a = w->k * p->x[1][i];
        m += p->m[i];
        s += p->m[i] * p->v[0][i] * sin(a);
        c += p->m[i] * p->v[0][i] * cos(a);
    }
    values[0] = m > 0 ? 2.0 * s / m : NAN;
    values[1] = m > 0 ? 2.0 * c / m : NAN;
}

static const char *const pool_names[] = {"drho_slope", NULL};

typedef struct pool_ctx {
    pfb_grid grid;
    pfb_nlist nl;
    pfb_kernel w;
    double *rho;
    size_t cap;
    int ok;
} pool_ctx;

/* The slope of the common-kernel density, relative to its mean, against height
 * over the interior particles (see the header); NaN when too few. */
static void pool_row(void *ctx, const pfb_sim *sim, double *values)
{
    pool_ctx *c = ctx;
    const pfb_particles *p = &sim->p;
    const double *const *x = (const double *const *)p->x;
    values[0] = NAN;
    pfb_err err;
    if (!c->ok || grid_build(&c->grid, x, p->n, &err) || grid_neighbours(&c->grid, x, &c->nl, &err))
        return;
    if (p->n > c->cap) {
        free(c->rho);
        c->rho = malloc(p->n * sizeof *c->rho);
        c->cap = c->rho ? p->n : 0;
        if (!c->rho)
            return;
    }
    double ytop = -INFINITY, ybot = INFINITY;
    for (size_t i = 0; i < p->n; i++) {
        double r = p->m[i] * kernel_w(&c->w, 0.0);
        for (size_t q = c->nl.start[i]; q < c->nl.start[i + 1]; q++)
            r += p->m[c->nl.idx[q]] * kernel_w_r2(&c->w, pfb_dist2(sim->dim, x, i, c->nl.idx[q]));
        c->rho[i] = r;
        ytop = fmax(ytop, p->x[1][i]);
        ybot = fmin(ybot, p->x[1][i]);
    }
    const double band = 1.25 * c->w.h; /* a kernel support and a quarter: complete neighbourhoods */
    double sy = 0, sr = 0, syy = 0, syr = 0, nn = 0;
    for (size_t i = 0; i < p->n; i++) {
        const double y = p->x[1][i];
        if (y < ybot + band || y > ytop - band)
            continue;
        sy += y;
        sr += c->rho[i];
        syy += y * y;
        syr += y * c->rho[i];
        nn += 1.0;
    }
    if (nn < 10)
        return;
    const double my = sy / nn, mr = sr / nn, vyy = syy / nn - my * my;
    if (!(vyy > 0) || !(mr > 0))
        return;
    values[0] = (syr / nn - my * mr) / vyy / mr;
}

static const char *const drop_names[] = {"p_virial", NULL};

unsigned char *material_marks(unsigned char **in, size_t *cap, size_t n)
{
    if (n > *cap) {
        free(*in);
        *in = malloc(n);
        *cap = *in ? n : 0;
    }
    return *in;
}

typedef struct drop_ctx {
    double r_region; /* the region's radius about the centre of mass */
    unsigned char *in;
    size_t cap;
} drop_ctx;

double material_virial_pressure(const pfb_sim *sim, const pfb_solver_ops *so, const void *state,
                                const unsigned char *in, double V, double normal[3])
{
    const pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    double mr = 0.0, vm[3] = {0, 0, 0};
    for (size_t i = 0; i < p->n; i++)
        if (in[i]) {
            mr += p->m[i];
            for (int k = 0; k < 3; k++)
                vm[k] += p->m[i] * p->v[k][i];
        }
    if (normal)
        normal[0] = normal[1] = normal[2] = NAN;
    if (!so->pair_virial || !(mr > 0) || !(V > 0))
        return NAN;
    double K = 0.0, Kk[3] = {0.0, 0.0, 0.0};
    for (size_t i = 0; i < p->n; i++)
        if (in[i])
            for (int k = 0; k < dim; k++) {
                const double e = p->m[i] * (p->v[k][i] - vm[k] / mr) * (p->v[k][i] - vm[k] / mr);
                K += e;
                Kk[k] += e;
            }
    double Wk[4];
    const double W = so->pair_virial(state, sim, in, normal ? Wk : NULL);
    for (int k = 0; normal && k < dim; k++)
        normal[k] = (Kk[k] + Wk[k]) / V;
    return (K + W) / (dim * V);
}

/* The mechanical pressure of the region within r_region of the centre of mass
 * (material_virial_pressure). */
static void drop_row(void *ctx, const pfb_sim *sim, const pfb_solver_ops *so, const void *state, double *values)
{
    drop_ctx *c = ctx;
    const pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    values[0] = NAN;
    if (!so->pair_virial || p->n == 0)
        return;
    if (!material_marks(&c->in, &c->cap, p->n))
        return;
    double m = 0.0, com[3] = {0, 0, 0};
    for (size_t i = 0; i < p->n; i++) {
        m += p->m[i];
        for (int k = 0; k < 3; k++)
            com[k] += p->m[i] * p->x[k][i];
    }
    for (int k = 0; k < 3; k++)
        com[k] /= m;
    for (size_t i = 0; i < p->n; i++) {
        double r2 = 0.0;
        for (int k = 0; k < dim; k++)
            r2 += (p->x[k][i] - com[k]) * (p->x[k][i] - com[k]);
        c->in[i] = r2 < c->r_region * c->r_region;
    }
    const double R = c->r_region;
    const double V = dim == 2 ? M_PI * R * R : 4.0 / 3.0 * M_PI * R * R * R;
    values[0] = material_virial_pressure(sim, so, state, c->in, V, NULL);
}

int material_wave_decay(const double *t, const double *a, size_t n, double k, double *nu, double *nu_err)
{
    double *lt = malloc((n + 1) * sizeof *lt), *la = malloc((n + 1) * sizeof *la);
    size_t m = 0;
    for (size_t r = 0; r < n && lt && la; r++) {
        if (!(a[r] > 0.02 * a[0]))
            break;
        lt[m] = t[r];
        la[m++] = log(a[r]);
    }
    int ok = 0;
    if (m >= 4) {
        double b, berr;
        exp_line_slope(lt, la, m, &b, &berr);
        *nu = -b / (k * k);
        *nu_err = berr / (k * k);
        ok = 1;
    }
    free(lt);
    free(la);
    return ok;
}

/* The viscosity (or shear modulus) of the wave signal A(t) (see the header). */
typedef struct wave_fit {
    double nu, nu_err, G, omega;
    const char *response; /* viscous, elastic or none */
} wave_fit;

static wave_fit fit_wave(const double *t, const double *a, size_t n, double k, double rho)
{
    wave_fit f = {NAN, NAN, NAN, NAN, "none"};
    if (n < 4 || !(a[0] > 0))
        return f;
    size_t crossings = 0;
    for (size_t r = 1; r < n; r++)
        crossings += (a[r] > 0) != (a[r - 1] > 0);
    if (crossings >= 2) {
        pfb_fit_result fr;
        pfb_err ferr;
        if (fit_damped_cosine(t, a, n, &fr, &ferr) == 0 && fr.p[FIT_OMEGA] > 0) {
            f.omega = fr.p[FIT_OMEGA];
            f.G = rho * f.omega * f.omega / (k * k);
            f.response = "elastic";
        }
        return f;
    }
    if (material_wave_decay(t, a, n, k, &f.nu, &f.nu_err))
        f.response = "viscous";
    return f;
}

double material_meta_value(const pfb_exp_ctx *ctx, const char *id, const char *key)
{
    char path[1024], line[1024];
    snprintf(path, sizeof path, "%s/runs/%s/run.meta", ctx->out_dir, id);
    FILE *f = fopen(path, "r");
    double v = NAN;
    const size_t kl = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && !strncmp(line + kl, " = ", 3))
            v = strtod(line + kl + 3, NULL);
    if (f)
        fclose(f);
    return v;
}

/* muller's stated kinematic viscosity mu / rho0 (solvers/muller.c: mu =
 * viscosity, or viscosity_alpha rho0 c h with c = sqrt(k), k = 0 meaning
 * (10 v_ref)^2; the density the stated mu divides by is rho0, the lattice's,
 * which the diag column rho0 gives) from run.meta and series.csv's first row. */
static double muller_nu(const pfb_exp_ctx *ctx, const char *id)
{
    const double mu = material_meta_value(ctx, id, "solver.viscosity");
    const double alpha = material_meta_value(ctx, id, "solver.viscosity_alpha");
    const double k = material_meta_value(ctx, id, "solver.k"), hf = material_meta_value(ctx, id, "solver.h_factor");
    const double vref = material_meta_value(ctx, id, "v_ref"), dx = material_meta_value(ctx, id, "spacing");
    if (mu >= 0) {
        char path[1024];
        csv_table t;
        memset(&t, 0, sizeof t);
        pfb_err e;
        snprintf(path, sizeof path, "%s/runs/%s/series.csv", ctx->out_dir, id);
        double rho0 = NAN;
        if (csv_table_load(&t, path, &e) == 0 && t.nrow > 0)
            rho0 = csv_table_get(&t, 0, csv_table_col(&t, "rho0"));
        csv_table_free(&t);
        return mu / rho0;
    }
    const double c = k > 0 ? sqrt(k) : 10.0 * vref;
    return alpha * c * hf * dx;
}

typedef struct prop_setup {
    int dim;
    double spacing[2]; /* full, quick: the volume experiment's pool spacings */
    double cells[2];   /* the wave's box in spacings, full and quick */
} prop_setup;

/* 3D boxes of 20 spacings (8,000 particles): mao_yang's step costs ~8 us per
 * particle, and 40 would take it hours */
static const prop_setup setups[] = {{2, {0.02, 0.05}, {40, 20}}, {3, {0.05, 0.1}, {20, 12}}};

/* The drops: the drop experiment's radii and spacings (R / dx = 10 .. 28 in 2D,
 * 6 .. 12 in 3D; the quick version the smallest two at its coarser spacing) */
static const double drop_radii[2][4] = {{0.05, 0.07, 0.1, 0.14}, {0.06, 0.08, 0.1, 0.12}};
static const double drop_spacing[2][2] = {{0.005, 0.01}, {0.01, 0.02}};

/* Append sets (NULL-terminated) after base (NULL-terminated) into out (cap entries). */
static void join_sets(const char **out, size_t cap, const char *const *base, const char *const *sets)
{
    size_t n = 0;
    for (size_t i = 0; base && base[i] && n + 1 < cap; i++)
        out[n++] = base[i];
    for (size_t i = 0; sets && sets[i] && n + 1 < cap; i++)
        out[n++] = sets[i];
    out[n] = NULL;
}

const char *const material_deformation_names[] = {"deformation", NULL};

/* The drop's mode-2 deformation (material.h). */
void material_deformation_row(void *ctx, const pfb_sim *sim, double *values)
{
    (void)ctx;
    const pfb_particles *p = &sim->p;
    double m = 0.0, c[3] = {0, 0, 0}, I[3] = {0, 0, 0};
    for (size_t i = 0; i < p->n; i++) {
        m += p->m[i];
        for (int k = 0; k < 3; k++)
            c[k] += p->m[i] * p->x[k][i];
    }
    for (int k = 0; k < 3; k++)
        c[k] /= m;
    for (size_t i = 0; i < p->n; i++)
        for (int k = 0; k < 3; k++) {
            double d = p->x[k][i] - c[k];
            I[k] += p->m[i] * d * d;
        }
    if (sim->dim == 2)
        values[0] = (I[0] - I[1]) / (I[0] + I[1]);
    else
        values[0] = (2.0 * I[1] - I[0] - I[2]) / (I[0] + I[1] + I[2]);
}

int material_wave_run(const pfb_exp_ctx *ctx, const char *experiment, const char *id, const pfb_solver_ops *so,
                      int dim, double dx, double cells, double t_max, const char *const *sets, FILE *signal,
                      material_wave_signal *o, pfb_err *err)
{
    const double vref = sqrt(PROP_G * PROP_DEPTH);
    const double L = cells * dx, k = 2.0 * M_PI / L;
    memset(o, 0, sizeof *o);
    o->k = k;
    /* long enough for a viscosity of 0.1 dx v_ref to decay by e^-2, at most t_max */
    const double t_wave = fmin(2.0 / (0.1 * dx * vref * k * k), t_max);
    char sdim[32], spacing[64], tend[64], len[64], sref[64], frames[64];
    snprintf(sdim, sizeof sdim, "run.dim=%d", dim);
    snprintf(spacing, sizeof spacing, "run.spacing=%.17g", dx);
    snprintf(tend, sizeof tend, "run.t_end=%.17g", t_wave);
    snprintf(frames, sizeof frames, "run.frames=%d", 120); /* a fast decay still gets 4 samples */
    snprintf(len, sizeof len, "scene.length=%.17g", L);
    snprintf(sref, sizeof sref, "scene.speed_ref=%.17g", vref);
    const char *base[] = {sdim, spacing, tend, frames, len, sref, "scene.amplitude=0.05", NULL};
    const char *all[64];
    join_sets(all, 64, base, sets);
    wave_ctx wc = {k};
    exp_extra wextra = {wave_names, wave_row, &wc, NULL};
    exp_run_spec wspec = {experiment, id, so, "shear_wave", all, &wextra, 0};
    exp_run_out wout;
    int rc = exp_run(ctx, &wspec, &wout, err);
    if (rc)
        return rc;
    const csv_table *x = &wout.extra;
    const int ct = csv_table_col(x, "t"), cs = csv_table_col(x, "amp_sin"), cc = csv_table_col(x, "amp_cos");
    o->t = malloc((x->nrow + 1) * sizeof *o->t);
    o->a = malloc((x->nrow + 1) * sizeof *o->a);
    for (size_t r = 0; r < x->nrow && o->t && o->a; r++) {
        o->t[o->n] = csv_table_get(x, r, ct);
        o->a[o->n] = csv_table_get(x, r, cs);
        if (signal)
            fprintf(signal, "%s,%d,%.9g,%.10g,%.10g\n", so->name, dim, o->t[o->n], o->a[o->n],
                    csv_table_get(x, r, cc));
        o->n++;
    }
    o->unstable = wout.unstable;
    exp_reason(&wout, o->status, sizeof o->status);
    exp_run_out_free(&wout);
    if (!o->t || !o->a) {
        material_wave_signal_free(o);
        return pfb_err_set(err, PFB_ENOMEM, "%s: out of memory for the wave signal of run %s", experiment, id);
    }
    return PFB_OK;
}

void material_wave_signal_free(material_wave_signal *o)
{
    free(o->t);
    free(o->a);
    o->t = o->a = NULL;
    o->n = 0;
}

int material_wave(const pfb_exp_ctx *ctx, const char *experiment, const char *id, const pfb_solver_ops *so, int dim,
                  double dx, double cells, double t_max, const char *const *sets, FILE *signal, material_wave_out *o,
                  pfb_err *err)
{
    const double rho = 1000.0;
    material_wave_signal w;
    int rc = material_wave_run(ctx, experiment, id, so, dim, dx, cells, t_max, sets, signal, &w, err);
    if (rc)
        return rc;
    const wave_fit wf = w.unstable ? (wave_fit){NAN, NAN, NAN, NAN, "none"} : fit_wave(w.t, w.a, w.n, w.k, rho);
    o->nu = wf.nu;
    o->nu_err = wf.nu_err;
    o->G = wf.G;
    o->omega = wf.omega;
    o->response = wf.response;
    o->unstable = w.unstable;
    snprintf(o->status, sizeof o->status, "%s", w.status);
    o->nu_set = strcmp(so->name, "muller") ? NAN : muller_nu(ctx, id);
    material_wave_signal_free(&w);
    return PFB_OK;
}

int material_pool(const pfb_exp_ctx *ctx, const char *experiment, const char *id, const pfb_solver_ops *so, int dim,
                  double dx, double t_end, const char *const *sets, FILE *series, material_pool_out *o, pfb_err *err)
{
    char sdim[32], spacing[64], ptend[64];
    snprintf(sdim, sizeof sdim, "run.dim=%d", dim);
    snprintf(spacing, sizeof spacing, "run.spacing=%.17g", dx);
    snprintf(ptend, sizeof ptend, "run.t_end=%.17g", t_end);
    const char *base[] = {sdim, spacing, ptend, NULL};
    const char *all[64];
    join_sets(all, 64, base, sets);
    pool_ctx pc;
    memset(&pc, 0, sizeof pc);
    pfb_err kerr;
    pc.ok = kernel_init(&pc.w, PFB_KERNEL_CUBIC, dim, 2.0 * dx, &kerr) == 0 && grid_init(&pc.grid, dim, 2.0 * dx, &kerr) == 0;
    exp_extra pextra = {pool_names, pool_row, &pc, NULL};
    exp_run_spec pspec = {experiment, id, so, "pool", all, &pextra, 0};
    exp_run_out pout;
    int rc = exp_run(ctx, &pspec, &pout, err);
    grid_free(&pc.grid);
    nlist_free(&pc.nl);
    free(pc.rho);
    if (rc)
        return rc;
    const csv_table *y = &pout.extra;
    const int pt = csv_table_col(y, "t"), ps = csv_table_col(y, "drho_slope");
    double t_last = 0.0;
    for (size_t r = 0; r < y->nrow; r++)
        t_last = fmax(t_last, csv_table_get(y, r, pt));
    double sum = 0, sum2 = 0, cnt = 0;
    for (size_t r = 0; r < y->nrow; r++) {
        const double tt = csv_table_get(y, r, pt), sl = csv_table_get(y, r, ps);
        if (series)
            fprintf(series, "%s,%d,%.9g,%.10g\n", so->name, dim, tt, sl);
        if (tt >= 2.0 / 3.0 * t_last && isfinite(sl)) {
            sum += sl;
            sum2 += sl * sl;
            cnt += 1.0;
        }
    }
    o->c = o->c_err = NAN;
    if (!pout.unstable && cnt >= 2 && sum < 0) {
        const double ms = sum / cnt, sd = sqrt(fmax(sum2 / cnt - ms * ms, 0.0) / (cnt - 1.0));
        o->c = sqrt(-PROP_G / ms);
        o->c_err = 0.5 * o->c * sd / fabs(ms); /* dc/c = (1/2) ds/s */
    }
    o->unstable = pout.unstable;
    exp_reason(&pout, o->status, sizeof o->status);
    exp_run_out_free(&pout);
    return PFB_OK;
}

int material_drops(const pfb_exp_ctx *ctx, const char *experiment, const char *id_prefix, const pfb_solver_ops *so,
                   int dim, const double *radii, int nr, double ddx, double t_end, const char *const *sets,
                   FILE *drops, material_drops_out *o, pfb_err *err)
{
    const double vref = sqrt(PROP_G * PROP_DEPTH);
    double invR[8], dp[8];
    size_t nd = 0;
    int rc = PFB_OK;
    o->sigma_set = NAN;
    o->unstable = 0;
    for (int ri = 0; ri < nr && ri < 8 && !rc; ri++) {
        const double R = radii[ri];
        char did[160], sdim[32], dsp[64], rad[64], dtend[64], sref[64];
        snprintf(did, sizeof did, "%s_R%.3f", id_prefix, R);
        snprintf(sdim, sizeof sdim, "run.dim=%d", dim);
        snprintf(dsp, sizeof dsp, "run.spacing=%.17g", ddx);
        snprintf(rad, sizeof rad, "scene.radius=%.17g", R);
        snprintf(dtend, sizeof dtend, "run.t_end=%.17g", t_end);
        snprintf(sref, sizeof sref, "scene.speed_ref=%.17g", vref);
        const char *base[] = {sdim, dsp, rad, dtend, "run.frames=30", "scene.amplitude=0", sref, NULL};
        const char *all[64];
        join_sets(all, 64, base, sets);
        drop_ctx dc = {0.5 * R, NULL, 0};
        exp_extra dextra = {drop_names, NULL, &dc, drop_row};
        exp_run_spec dspec = {experiment, did, so, "drop", all, &dextra, 0};
        exp_run_out dout;
        rc = exp_surface_tension(ctx, &dspec, &o->sigma_set, err);
        if (!rc)
            rc = exp_run(ctx, &dspec, &dout, err);
        free(dc.in);
        if (rc)
            break;
        /* the mean over the second half of the run (the drop settled) */
        const csv_table *z = &dout.extra;
        const int zt = csv_table_col(z, "t"), zp = csv_table_col(z, "p_virial");
        double zs = 0, zs2 = 0, zn = 0, tl = 0;
        for (size_t r = 0; r < z->nrow; r++)
            tl = fmax(tl, csv_table_get(z, r, zt));
        for (size_t r = 0; r < z->nrow; r++) {
            const double v = csv_table_get(z, r, zp);
            if (csv_table_get(z, r, zt) >= 0.5 * tl && isfinite(v)) {
                zs += v;
                zs2 += v * v;
                zn += 1.0;
            }
        }
        const double pm = zn > 0 ? zs / zn : NAN;
        const double pe = zn > 1 ? sqrt(fmax(zs2 / zn - pm * pm, 0.0) / (zn - 1.0)) : NAN;
        if (drops)
            fprintf(drops, "%s,%d,%.6g,%zu,%s,%.10g,%.6g\n", so->name, dim, R, dout.n, exp_status_word(&dout), pm, pe);
        if (!dout.unstable && isfinite(pm)) {
            invR[nd] = 1.0 / R;
            dp[nd++] = pm;
        }
        o->unstable |= dout.unstable;
        exp_run_out_free(&dout);
    }
    if (rc)
        return rc;
    /* Delta p = (dim - 1) sigma / R: the slope of p against 1 / R */
    double slope = NAN, slope_err = NAN;
    if (nd >= 3)
        exp_line_slope(invR, dp, nd, &slope, &slope_err);
    else if (nd == 2)
        slope = (dp[1] - dp[0]) / (invR[1] - invR[0]);
    o->sigma = slope / (dim - 1);
    o->sigma_err = slope_err / (dim - 1);
    return PFB_OK;
}

static int properties_run(const pfb_exp_ctx *ctx, pfb_err *err)
{
    const int q = ctx->quick ? 1 : 0;
    const double rho = 1000.0;
    const double H = PROP_DEPTH, U = sqrt(PROP_G * H);
    exp_csv sig, pool, summary, drops;
    memset(&sig, 0, sizeof sig);
    memset(&pool, 0, sizeof pool);
    memset(&summary, 0, sizeof summary);
    memset(&drops, 0, sizeof drops);
    int rc = exp_csv_open(&sig, ctx, "properties_signal.csv", "solver,dim,t,amp_sin,amp_cos", err);
    if (!rc)
        rc = exp_csv_open(&drops, ctx, "properties_drops.csv", "solver,dim,radius,n,status,p_virial,p_err", err);
    if (!rc)
        rc = exp_csv_open(&pool, ctx, "properties_pool.csv", "solver,dim,t,drho_slope", err);
    if (!rc)
        rc = exp_csv_open(&summary, ctx, "properties_summary.csv",
                          "solver,dim,nu_set,nu_eff,nu_err,response,shear_modulus,omega,c_eff,c_err,sigma_set,sigma_eff,"
                          "sigma_err,Re,Ma,Bo,status_wave,status_pool",
                          err);
    const size_t nsetup = q ? 1 : sizeof setups / sizeof setups[0];
    for (size_t si = 0; si < ctx->nsolvers && !rc; si++) {
        const pfb_solver_ops *so = ctx->solvers[si];
        for (size_t u = 0; u < nsetup && !rc; u++) {
            const prop_setup *su = &setups[u];
            const double dx = su->spacing[q];
            char id[128];
            snprintf(id, sizeof id, "%s_wave_%dd", so->name, su->dim);
            material_wave_out wf;
            rc = material_wave(ctx, "properties", id, so, su->dim, dx, su->cells[q], q ? 1.0 : su->dim == 2 ? 2.0 : 1.5,
                               NULL, sig.f, &wf, err);
            if (rc)
                break;
            snprintf(id, sizeof id, "%s_pool_%dd", so->name, su->dim);
            material_pool_out pf;
            rc = material_pool(ctx, "properties", id, so, su->dim, dx, q ? 0.5 : 2.0, NULL, pool.f, &pf, err);
            if (rc)
                break;
            snprintf(id, sizeof id, "%s_laplace_%dd", so->name, su->dim);
            material_drops_out df;
            rc = material_drops(ctx, "properties", id, so, su->dim, drop_radii[su->dim - 2], q ? 2 : 4,
                                drop_spacing[su->dim - 2][q], q ? 0.5 : 1.5, NULL, drops.f, &df, err);
            if (rc)
                break;
            /* a group only from a measured value above twice its standard error (a
             * sigma_eff that is zero within its error gives no Bond number) */
            const double Re = wf.nu > 0 && !(wf.nu < 2.0 * wf.nu_err) ? H * U / wf.nu : NAN;
            const double Ma = pf.c > 0 && !(pf.c < 2.0 * pf.c_err) ? U / pf.c : NAN;
            const double Bo = df.sigma > 0 && !(df.sigma < 2.0 * df.sigma_err) ? rho * PROP_G * H * H / df.sigma : NAN;
            fprintf(summary.f,
                    "%s,%d,%.10g,%.10g,%.6g,%s,%.10g,%.10g,%.10g,%.6g,%.10g,%.10g,%.6g,%.10g,%.10g,%.10g,%s,%s\n",
                    so->name, su->dim, wf.nu_set, wf.nu, wf.nu_err, wf.response, wf.G, wf.omega, pf.c, pf.c_err,
                    df.sigma_set, df.sigma, df.sigma_err, Re, Ma, Bo, wf.status[0] ? wf.status : "ok",
                    pf.status[0] ? pf.status : "ok");
        }
    }
    exp_csv *const cs[] = {&sig, &pool, &drops, &summary};
    return exp_csv_finish(cs, 4, rc, err);
}

const pfb_experiment pfb_exp_properties = {
    "properties", "each method's effective material: viscosity (shear wave), sound speed (settled pool), Re and Ma",
    properties_run};
