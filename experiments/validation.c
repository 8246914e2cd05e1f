/* validation.c — each method against the continuum solution of the same
 * problem (the Gerris reference, issue 46) and against experiment and theory,
 * at several resolutions, with the observed order of its error (issue 32).
 * validate.h defines the measurements, gerris.h the reference.
 *
 * The yardstick.  A method's error means something against the converged
 * solution of the same fluid with the same walls: the reference experiment
 * (reference.c, `make reference`, committed under data/reference and read from
 * --reference DIR) solves the dam break and the drop for the reference fluid
 * with Gerris at three levels and gives its own error bar.  Martin & Moyce's
 * water (Re 10^4 to 10^5 against the reference fluid's 35) and Rayleigh's
 * inviscid frequency stay as secondary columns: they validate the reference,
 * not the methods.  A reference made for another fluid is refused.
 *
 * Case: the dam break.  The dam_break scene is Martin & Moyce's n^2 = 2 column
 * (width a = 0.25 m, height 2a, at the tank's left wall), run with the material
 * preset (the calibrated fluid by default) and free-slip walls, every method's
 * default (the no-slip dam break has no converged reference,
 * reference_convergence.csv shows its levels drifting), for T = t sqrt(2 g / a)
 * <= 3 (t_end = 3 / sqrt(2 g / a) plus one frame), at 120 frames per second (T advances 0.074 between frames).  Each
 * frame's front is validate_front's: the end of the fluid connected to the
 * wall, spray (a particle more than two spacings ahead of the fluid behind it)
 * left out.  Against the reference (reference_dam_break_slip.csv in 2D, the
 * indicative reference_dam_break_3d.csv in 3D), on T_k = 0.5, 0.6, ..., 3 (both
 * fronts interpolated linearly in T):
 *   ref_err_mean = mean |Z_run(T_k) - Z_ref(T_k)| / Z_ref(T_k),  ref_err_max,
 *   ref_bias = the mean signed error (negative: the run is behind),
 * with the reference's own error bar (ref_bar: its largest relative error over
 * the same T) beside them.  Against Martin & Moyce at their points with T <= 3
 * (both column sizes): err_mean, err_max, bias alike.  Resolutions a / dx: 25,
 * 50, 100 in 2D; 10, 20 in 3D (quick: 8, 12 in 2D and 4, 5 in 3D, a pair for
 * the plumbing, not for the numbers).  The observed orders are validate_order's
 * of ref_err_mean (case dam_break_ref) and err_mean (dam_break) against dx.
 * Re = sqrt(g a) a / nu_ref, the reference fluid's Reynolds number at the
 * column's scale.
 *
 * Case: the front's response to the viscosity.  Where a method states a
 * Newtonian viscosity (a "viscosity" parameter, muller's and mao_yang's), the 2D
 * dam break at a / dx = 50 (quick 12) runs again with it halved, and both fronts
 * are set against the reference at the fluid's nu and at nu / 2
 * (reference_dam_break_half.csv) on the same T_k (validate.h,
 * validate_viscous_response): s_run, the mean relative advance of the front
 * when the method's viscosity is halved, against s_ref, the reference's;
 * response = s_run / s_ref; and nu_equiv_rel = 2^(-bias / s_ref), the
 * viscosity (over nu) at which the reference's front would have the method's
 * bias.  A method that converges to a front other than the reference's, with
 * a viscosity calibrated on the shear wave, is told apart this way: a front
 * that answers its viscosity less than the continuum's (response < 1) carries
 * a viscous term that the bulk shear wave does not measure (at a free surface,
 * in the collapse's stretching flow).
 *
 * Case: hydrostatic pressure in the settled pool (width 1 m, depth D = 0.5 m,
 * 2 s; quick 0.2 s, not settled: for the plumbing), started from the scene's
 * lattice displaced at random by up to HYD_JITTER = 0.05 spacings per axis
 * (run.jitter, seeded).  A square lattice under pressure is an unstable
 * equilibrium of particles that repel each other: alternate rows slide apart
 * into a denser packing, first at the floor where the pressure is highest.
 * From the exact lattice a method leaves it when its own round-off or its
 * solver's error has grown enough, at a time set by that seed (mao_yang's
 * 2D pool at D/dx = 50: 2.25 s with the residual rule, 1.2 s with the density
 * rule), so a window in the first seconds measured the lattice for one
 * setting and the rearranging pool for another.  The jitter makes every
 * method leave it at once (0.5 s in that pool, whatever the rule) and settle
 * before the window.  The mechanical pressure of
 * three horizontal slabs, 0.1 m thick, centred at depths d = 0.15, 0.25 and 0.35 m below the free surface (the
 * highest particle plus half a spacing) and 0.1 m clear of the side walls (more
 * than 1.25 of the widest support, clavet's 3.75 spacings at D/dx = 25): the
 * virial pressure of a subsystem, p = (sum m |v - v_mean|^2 + the method's pair
 * virial) / (dim V), as the properties experiment measures the drops' (solver.h,
 * pair_virial: the one pressure every method has), averaged over the frames of
 * the last third.  Against p_h = rho g d (rho the scene's density):
 *   err = mean over the slabs of |p - p_h| / p_h,
 * and slope_rel = the least-squares slope of p against d over rho g (1 for a
 * hydrostatic column, whatever pressure offset the method holds at its surface).
 * Beside it the vertical normal stress of the same slabs, p_vert = (sum m (v_y -
 * v_mean,y)^2 + the pair virial's y terms) / V (material_virial_pressure's
 * normal[1], from the same pass), with err_vert and slope_rel_vert alike: the
 * weight above a slab rests on its vertical stress in any material at rest,
 * while the pressure, the mean of the normal stresses, equals it only where
 * the material holds no shear stress at rest.  So p_vert near rho g d with p
 * away from it says that the method's pool is not a fluid at rest (it carries
 * a deviatoric stress, as a packed solid does), and p_vert away from it that
 * the pool has not settled or its density is not the scene's.  rho_rel: the
 * slab's mass over its volume, over the scene's density rho (the summary: the
 * mean over the slabs), which says the latter (a pool that packs denser than
 * its lattice weighs more).
 * p_weight: the weight above the slab's centre over the span's area (each
 * particle's mass spread over a layer one spacing thick), the stress a column at
 * rest must carry whatever its density; err_weight = mean over the slabs of
 * |p_vert - p_weight| / p_weight (order case hydrostatic_weight), which leaves
 * the density out: a pool that packs denser than the scene (rho_rel > 1) has a
 * p_vert above rho g d and still carries its own weight.
 * surface_rise (the summary, the last third's mean): the highest particle less
 * the lowest of the highest particles of the 0.1 m columns over the slabs'
 * span; a fluid at rest settles flat (rise about a spacing), a material with a
 * yield stress can hold a heap, under which the depths from the highest
 * particle are too small and the stresses carry part of the heap's weight.
 * Resolutions D / dx: 25, 50, 100 in 2D; 10, 20 in 3D (quick: 8, 12 in 2D and
 * 5, 6 in 3D, where a 0.1 m slab is one or two layers: plumbing, not numbers).
 * Seeds (`pfbench exp validation --seeds K`, default 1).  Which packing the
 * jittered lattice settles into, and so the slabs' stresses, depends on the
 * jitter's draw, and at D/dx = 100 more than the resolution moves them: one
 * run's error is then one sample of that spread, which a change of round-off
 * alone can move (mao_yang's err_weight 0.0054 and 0.0167 at two commits
 * whose only difference was a summation order).  With K seeds each
 * resolution runs K times, run.seed = 1..K (the first is the one-seed run,
 * id and inputs unchanged), and the summary gives the seeds' means (the
 * order rows are fitted to them) and the sample standard deviations err_sd,
 * err_vert_sd and err_weight_sd (NaN for one seed): the case's error bar, the
 * yardstick a change of a method's settings must be held against.
 *
 * Case: viscous decay.  The properties experiment's shear wave (material.h:
 * u_x = U sin(k y) in a periodic box, k = 2 pi / L, no walls, no gravity) in a box
 * of L = 0.8 m in 2D (20, 40, 80 spacings; 40 is the calibration's own run) and
 * L = 1 m in 3D (10, 20 spacings), 2 s in 2D and 1.5 s in 3D; quick 10, 20 in
 * 2D for 1 s and none in 3D (its periodic runs cost a minute and test no
 * other code).  For a Newtonian fluid
 * of viscosity nu the analytic solution is A(t) = A0 exp(-nu k^2 t); the run's
 * nu_eff is material_wave's fit of ln A, and
 *   err = |nu_eff - nu_ref| / nu_ref
 * against the reference fluid's nu (scenes/fluid.ini: the viscosity every method
 * was calibrated to; the calibration's own resolution gives its residual, the
 * others say whether the calibrated preset carries over), and err_set against
 * the viscosity the parameters state where a method states one (muller's
 * mu / rho0).  An elastic response (clavet) has no viscosity: its shear modulus
 * is reported and its error left empty, as is its order.
 *
 * Case: the drop.  A free drop of R = 0.1 m (the drop scene: no gravity, a
 * volume-preserving mode-2 stretch of amplitude 0.05, the drop experiment's
 * overrides in scenes/drop.ini) at R / dx = 10, 20, 40 in 2D and 5, 10 in 3D
 * (quick 5, 10 and 4, 5), 2 s (quick 1 s) at 120 frames per second.  The
 * deformation signal and its damped-cosine fit are the drop experiment's
 * (material.h, core/fit.h), giving omega and beta.  The drop's sigma:
 *  - explicit (muller): the drop experiment's sigma_t = GFS_DROP_SIGMA is the
 *    target, and the explicit parameter is calibrated to it as every other
 *    parameter is, in 2D at the finest spacing: the Laplace sigma_eff of drops
 *    of R = 0.05, 0.07, 0.1 m at the set sigma_t gives sigma_set = sigma_t^2 /
 *    sigma_eff (the Laplace pressure is linear in the explicit sigma), checked
 *    by the same drops at sigma_set (sigma_eff_set and sigma_eff_cal in the
 *    table; source "calibrated").  Muller's sigma_eff exceeds its set sigma by
 *    2.4, 1.4 and 1.25 at R/dx = 10, 20, 40: the colour field's curvature
 *    converges slowly.  In 3D the explicit sigma is used as set (no 3D reference
 *    drop);
 *  - else the Laplace sigma_eff of those drops at the same spacing (clavet's
 *    emergent cohesion depends on the spacing), where it exceeds twice its
 *    standard error.  A method with neither (miller_pearce's fluid, mao_yang's
 *    Newtonian fluid) has no capillary mode: its drops are not run and its rows
 *    say so (where the coarsest spacing has no surface tension, the finer ones
 *    are not measured either).
 * Against the reference drop (reference_drop.csv: Gerris's 2D drop at sigma_t
 * and the reference fluid's nu, fitted as the methods are), where the drop's
 * sigma is sigma_t: omega_ref_err = |omega / omega_ref - 1| and beta_ref_err
 * alike (orders drop_ref, drop_damping_ref).  Against Rayleigh's
 * omega_R^2 = 6 sigma / (rho R^3) (2D mode 2), 8 sigma / (rho R^3) (3D l = 2)
 * and the weak-damping rate beta_v = 4 nu / R^2 (2D), 5 nu / R^2 (3D), nu the
 * method's nu_eff at the viscous case's finest resolution (secondary: at the
 * reference fluid's viscosity the drop is not in either limit, and the viscous
 * mode rings at 0.93 omega_R and decays at 0.75 beta_v):
 *   omega_rel_err = |omega / omega_R - 1|,  beta_rel_err = |beta / beta_v - 1|
 * (orders drop and drop_damping).
 * Against the method's own continuum (omega_own, beta_own; order drop_own),
 * where the drop's sigma is sigma_t and the method states the form of its
 * viscous stress (solver.h's viscous_stress): the exact linear mode of the
 * same 2D drop with the method's nu_eff and the free-surface traction of that
 * stress (maxwell_drop_root_traction, from the reference's omega and beta).
 * A Laplacian viscosity (Müller's eq. 14, mu lap v) has the stress mu grad v:
 * its drop's surface traction is not the fluid's, and it dissipates half of a
 * potential flow (test_muller), so it converges to this drop, not to
 * Gerris's; the two modes' difference is the method's, the run's distance from
 * its own mode the discretisation's.
 *
 * Outputs:
 *   validation_front.csv      solver,dim,a_dx,dx,t,T,Z
 *   validation_dam_break.csv  solver,dim,a_dx,dx,n,status,reason,err_mean,err_max,bias,npoints,steps,
 *                             wall_seconds,Re,ref_err_mean,ref_err_max,ref_bias,ref_bar,ref_level
 *   validation_reference.csv  case,dim,level,dx,bar,T,Z,omega,beta  (the reference used: the fronts'
 *                             rows, and the drop's fitted omega and beta)
 *   validation_hydrostatic.csv solver,dim,D_dx,dx,n,status,reason,depth,p,p_hydro,rel_err,p_vert,
 *                             rel_err_vert,rho_rel,p_weight,rel_err_weight,seed
 *   validation_hydrostatic_summary.csv solver,dim,D_dx,dx,err,slope_rel,err_vert,slope_rel_vert,rho_rel,
 *                             err_weight,surface_rise,seeds,err_sd,err_vert_sd,err_weight_sd
 *   validation_viscous.csv    solver,dim,cells,dx,response,nu_eff,nu_err,nu_ref,err,nu_set,err_set,
 *                             shear_modulus,status
 *   validation_viscosity.csv  solver,dim,a_dx,dx,status,reason,viscosity,viscosity_half,bias,bias_half,
 *                             s_run,s_ref,response,nu_equiv_rel,ref_bar_half,ref_level_half
 *   validation_drop.csv       solver,dim,R_dx,dx,n,status,reason,sigma_source,sigma,omega_rayleigh,omega,
 *                             omega_err,omega_rel_err,beta_viscous,beta,beta_err,beta_rel_err,omega_ref,
 *                             beta_ref,omega_ref_err,beta_ref_err,sigma_set,sigma_eff_set,sigma_eff_cal,
 *                             omega_own,beta_own,omega_own_err,beta_own_err
 *   validation_drop_signal.csv solver,dim,R_dx,t,deformation
 *   validation_order.csv      case,solver,dim,nres,order,order_err,err_coarse,err_fine
 *                             (case: dam_break_ref, dam_break, hydrostatic, hydrostatic_vertical,
 *                             hydrostatic_weight, viscous, drop_ref, drop_damping_ref, drop_own,
 *                             drop_damping_own, drop,
 *                             drop_damping) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/fit.h"
#include "../core/maxwell.h"
#include "experiment.h"
#include "fluid.h"
#include "gerris.h"
#include "material.h"
#include "presets.h"
#include "reference_gen.h" /* PFB_REF_MARTIN_MOYCE: data/reference/martin_moyce_1952.csv as text */
#include "validate.h"

#define VAL_A 0.25
#define VAL_G 9.81
#define VAL_T_MAX 3.0
#define VAL_FPS 120.0

typedef struct val_res {
    int dim;
    double a_dx[2][3]; /* full, quick; 0 ends */
} val_res;

static const val_res resolutions[] = {
    {2, {{25, 50, 100}, {8, 12, 0}}},
    {3, {{10, 20, 0}, {4, 5, 0}}},
};

static const char *const front_names[] = {"front", NULL};

typedef struct front_ctx {
    double *work;
    size_t cap;
} front_ctx;

static void front_row(void *vctx, const pfb_sim *sim, double *values)
{
    front_ctx *c = vctx;
    if (sim->p.n > c->cap) {
        double *w = realloc(c->work, sim->p.n * sizeof *w);
        if (!w) {
            values[0] = NAN;
            return;
        }
        c->work = w;
        c->cap = sim->p.n;
    }
    values[0] = validate_front(sim->p.x[0], sim->p.n, 0.0, sim->spacing, 2.0 * sim->spacing, c->work);
}

#define HYD_DEPTH 0.5
#define HYD_NSLAB 3
#define HYD_RHO 1000.0 /* the pool scene's density (kg/m^3) */
#define HYD_JITTER 0.05 /* the start's random displacement, in spacings (the header's Case: hydrostatic) */
static const double slab_depth[HYD_NSLAB] = {0.15, 0.25, 0.35};
/* per slab the pressure, then the vertical normal stress, the density over
 * the scene's and the weight above its centre; last the surface's rise over
 * the slabs' span */
static const char *const slab_names[] = {"p_d15",   "p_d25",   "p_d35", "pv_d15", "pv_d25", "pv_d35", "rho_d15",
                                         "rho_d25", "rho_d35", "w_d15", "w_d25",  "w_d35",  "rise",   NULL};

typedef struct slab_ctx {
    unsigned char *in;
    size_t cap;
} slab_ctx;

/* The virial pressure of each slab (the header's definition). */
static void slab_row(void *vctx, const pfb_sim *sim, const pfb_solver_ops *so, const void *state, double *values)
{
    slab_ctx *c = vctx;
    const pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    for (int k = 0; k <= 4 * HYD_NSLAB; k++)
        values[k] = NAN;
    if (!so->pair_virial || p->n == 0)
        return;
    if (!material_marks(&c->in, &c->cap, p->n))
        return;
    double top = -INFINITY, wlo[3] = {INFINITY, INFINITY, INFINITY}, whi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < p->n; i++) {
        top = fmax(top, p->x[1][i]);
        for (int d = 0; d < dim; d++) {
            wlo[d] = fmin(wlo[d], p->x[d][i]);
            whi[d] = fmax(whi[d], p->x[d][i]);
        }
    }
    /* the slabs' span: 0.1 m clear of the walls (the fluid's extent) */
    double slo[3], shi[3];
    for (int d = 0; d < 3; d++) {
        slo[d] = wlo[d] + 0.1;
        shi[d] = whi[d] - 0.1;
    }
    const double *const *xs = (const double *const *)p->x;
    values[4 * HYD_NSLAB] = validate_surface_rise(xs, p->n, dim, slo, shi, 0.1);
    top += 0.5 * sim->spacing;
    double V = 0.1; /* the slab: 0.1 m thick, the fluid's width less 0.1 m per side */
    for (int d = 0; d < dim; d++)
        if (d != 1)
            V *= (whi[d] - wlo[d] + sim->spacing) - 0.2;
    for (int k = 0; k < HYD_NSLAB; k++) {
        const double ylo = top - slab_depth[k] - 0.05, yhi = top - slab_depth[k] + 0.05;
        for (size_t i = 0; i < p->n; i++) {
            int in = p->x[1][i] >= ylo && p->x[1][i] < yhi;
            for (int d = 0; d < dim; d++)
                if (d != 1)
                    in &= p->x[d][i] >= slo[d] && p->x[d][i] <= shi[d];
            c->in[i] = (unsigned char)in;
        }
        double normal[3];
        values[k] = material_virial_pressure(sim, so, state, c->in, V, normal);
        values[HYD_NSLAB + k] = normal[1];
        double mass = 0.0;
        for (size_t i = 0; i < p->n; i++)
            mass += c->in[i] ? p->m[i] : 0.0;
        values[2 * HYD_NSLAB + k] = mass / (V * HYD_RHO);
        /* the weight above the slab's centre over the span's area (validate.h) */
        const double above = validate_mass_above(xs, p->m, p->n, dim, 0.5 * (ylo + yhi), sim->spacing, slo, shi);
        values[3 * HYD_NSLAB + k] = above * fabs(sim->g[1]) * 0.1 / V;
    }
}

/* One row of validation_order.csv: the observed order of err against dx over the
 * nres resolutions (validate_order), NaN unless every resolution has an error (an
 * order over a subset would mix what refinement does with what failed). */
static void order_row(exp_csv *order, const char *cname, const pfb_solver_ops *so, int dim, const double *dxs,
                      const double *errs, int nres)
{
    double p = NAN, perr = NAN;
    int all = nres > 0;
    for (int k = 0; k < nres; k++)
        all &= isfinite(errs[k]) && errs[k] > 0.0;
    if (all)
        validate_order(dxs, errs, (size_t)nres, &p, &perr);
    fprintf(order->f, "%s,%s,%d,%d,%.6g,%.6g,%.6g,%.6g\n", cname, so->name, dim, nres, p, perr,
            nres ? errs[0] : NAN, nres ? errs[nres - 1] : NAN);
}

/* ---- the continuum reference (gerris.h; data/reference) ------------------- */

/* The reference's CSV NAME in ctx's reference directory, for the fluid rho, nu,
 * sigma; an error (naming the file and `make reference`) when it is missing or
 * bad. */
static int ref_load(const pfb_exp_ctx *ctx, const char *name, const char *const *need, double rho, double nu,
                    double sigma, gfs_ref *r, pfb_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", ctx->reference_dir ? ctx->reference_dir : "data/reference", name);
    if (access(path, R_OK) != 0)
        return pfb_err_set(err, PFB_EIO, "the continuum reference '%s' is missing; valid: the committed "
                                         "data/reference, or make reference (Gerris)",
                           path);
    return gfs_ref_load(path, need, rho, nu, sigma, r, err);
}

/* The front against the reference: e(T) = (Z_run - Z_ref) / Z_ref on T = 0.5,
 * 0.6, ..., 3 (both interpolated linearly between their samples). */
#define REF_T0 0.5
#define REF_NT 26
static void front_ref_errors(const double *T, const double *Z, size_t n, const gfs_ref *ref, double *mean,
                             double *max, double *bias)
{
    const int cT = gfs_ref_col(ref, "T"), cZ = gfs_ref_col(ref, "Z");
    double s = 0.0, b = 0.0, m = 0.0;
    for (int k = 0; k < REF_NT; k++) {
        const double Tk = REF_T0 + 0.1 * k;
        const double zr = cT < 0 || cZ < 0 ? NAN
                                           : validate_interp(ref->data + cT, ref->data + cZ, ref->nrow, ref->ncol, Tk);
        const double e = (validate_interp(T, Z, n, 1, Tk) - zr) / zr;
        s += fabs(e);
        b += e;
        m = isnan(e) ? NAN : fmax(m, fabs(e));
    }
    *mean = s / REF_NT;
    *bias = b / REF_NT;
    *max = isnan(s) ? NAN : m;
}

static const val_res hyd_resolutions[] = {
    {2, {{25, 50, 100}, {8, 12, 0}}},
    {3, {{10, 20, 0}, {5, 6, 0}}},
};

/* The mean of column col of a run's extra values over the frames of the last
 * third (t >= 2 t_end / 3); NaN without one. */
static double last_third_mean(const exp_run_out *out, const char *col, double t_end)
{
    const int ct = csv_table_col(&out->series, "t"), c = csv_table_col(&out->extra, col);
    double sum = 0.0;
    size_t n = 0;
    for (size_t r = 0; r < out->extra.nrow && r < out->series.nrow; r++)
        if (csv_table_get(&out->series, r, ct) >= 2.0 / 3.0 * t_end - 1e-12) {
            sum += csv_table_get(&out->extra, r, c);
            n++;
        }
    return n ? sum / (double)n : NAN;
}

/* The mean and the sample standard deviation of v[0..k-1] (sd NaN for one). */
static void seed_stats(const double *v, int k, double *mean, double *sd)
{
    double m = 0.0, q = 0.0;
    for (int a = 0; a < k; a++)
        m += v[a];
    m /= k;
    for (int a = 0; a < k; a++)
        q += (v[a] - m) * (v[a] - m);
    *mean = m;
    *sd = k > 1 ? sqrt(q / (k - 1)) : NAN;
}

/* The hydrostatic case for one solver (the header's definitions): at each
 * resolution, ctx->seeds runs that differ only in run.seed (the jitter's
 * displacements), the first of them the single run of one seed. */
static int hydrostatic_case(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, exp_csv *rows, exp_csv *summary,
                            exp_csv *order, pfb_err *err)
{
    const int q = ctx->quick ? 1 : 0;
    const double t_end = q ? 0.2 : 2.0;
    const int nseed = ctx->seeds > 1 ? ctx->seeds : 1;
    slab_ctx sc = {NULL, 0};
    double *per = malloc(7 * (size_t)nseed * sizeof *per); /* per seed: err, slope, err_vert, slope_vert, rho, err_weight, rise */
    if (!per)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory for %d seeds", nseed);
    int rc = PFB_OK;
    for (size_t k = 0; k < sizeof hyd_resolutions / sizeof hyd_resolutions[0] && !rc; k++) {
        const val_res *vr = &hyd_resolutions[k];
        double dxs[3], errs[3], errsv[3], errsw[3];
        int nres = 0;
        for (int j = 0; j < 3 && vr->a_dx[q][j] > 0 && !rc; j++) {
            const double D_dx = vr->a_dx[q][j], dx = HYD_DEPTH / D_dx;
            for (int sd = 0; sd < nseed && !rc; sd++) {
                char id[128], dim[32], spacing[64], tend[64], sdp[64], sg[64], jit[64], seed[64];
                snprintf(id, sizeof id, sd ? "%s_pool_%dd_D%g_seed%d" : "%s_pool_%dd_D%g", so->name, vr->dim, D_dx,
                         1 + sd);
                snprintf(dim, sizeof dim, "run.dim=%d", vr->dim);
                snprintf(spacing, sizeof spacing, "run.spacing=%.17g", dx);
                snprintf(tend, sizeof tend, "run.t_end=%.17g", t_end);
                snprintf(sdp, sizeof sdp, "scene.depth=%.17g", HYD_DEPTH);
                snprintf(sg, sizeof sg, "scene.gravity=%.17g", VAL_G);
                snprintf(jit, sizeof jit, "run.jitter=%.17g", HYD_JITTER);
                snprintf(seed, sizeof seed, "run.seed=%d", 1 + sd); /* (1: run.seed's default, the first run's) */
                const char *sets[] = {dim, spacing, tend, sdp, sg, jit, sd ? seed : NULL, NULL};
                exp_extra ex = {slab_names, NULL, &sc, slab_row};
                exp_run_spec spec = {"validation", id, so, "pool", sets, &ex, 0};
                exp_run_out out;
                rc = exp_run(ctx, &spec, &out, err);
                if (rc)
                    break;
                double pm[HYD_NSLAB], pv[HYD_NSLAB], pr[HYD_NSLAB], pw[HYD_NSLAB], ph[HYD_NSLAB];
                double err_sum = 0.0, errv_sum = 0.0, errw_sum = 0.0, rho_sum = 0.0;
                const double rise = last_third_mean(&out, "rise", t_end);
                for (int sl = 0; sl < HYD_NSLAB; sl++) {
                    pm[sl] = last_third_mean(&out, slab_names[sl], t_end);
                    pv[sl] = last_third_mean(&out, slab_names[HYD_NSLAB + sl], t_end);
                    pr[sl] = last_third_mean(&out, slab_names[2 * HYD_NSLAB + sl], t_end);
                    pw[sl] = last_third_mean(&out, slab_names[3 * HYD_NSLAB + sl], t_end);
                    ph[sl] = HYD_RHO * VAL_G * slab_depth[sl];
                    err_sum += fabs(pm[sl] - ph[sl]) / ph[sl];
                    errv_sum += fabs(pv[sl] - ph[sl]) / ph[sl];
                    errw_sum += fabs(pv[sl] - pw[sl]) / pw[sl];
                    rho_sum += pr[sl];
                }
                char reason[320];
                exp_reason(&out, reason, sizeof reason);
                for (int sl = 0; sl < HYD_NSLAB; sl++)
                    fprintf(rows->f, "%s,%d,%g,%.10g,%zu,%s,%s,%g,%.8g,%.8g,%.6g,%.8g,%.6g,%.6g,%.8g,%.6g,%d\n",
                            so->name, vr->dim, D_dx, dx, out.n, exp_status_word(&out), reason, slab_depth[sl], pm[sl],
                            ph[sl], fabs(pm[sl] - ph[sl]) / ph[sl], pv[sl], fabs(pv[sl] - ph[sl]) / ph[sl], pr[sl],
                            pw[sl], fabs(pv[sl] - pw[sl]) / pw[sl], 1 + sd);
                double b, berr, bv, bverr;
                exp_line_slope(slab_depth, pm, HYD_NSLAB, &b, &berr);
                exp_line_slope(slab_depth, pv, HYD_NSLAB, &bv, &bverr);
                double *o = per + 7 * sd;
                o[0] = err_sum / HYD_NSLAB;
                o[1] = b / (HYD_RHO * VAL_G);
                o[2] = errv_sum / HYD_NSLAB;
                o[3] = bv / (HYD_RHO * VAL_G);
                o[4] = rho_sum / HYD_NSLAB;
                o[5] = errw_sum / HYD_NSLAB;
                o[6] = rise;
                exp_run_out_free(&out);
            }
            if (rc)
                break;
            /* the seeds' means, and the spread of the errors over the seeds */
            double mean[7], sdv[7], col[64];
            for (int c = 0; c < 7; c++) {
                for (int sd = 0; sd < nseed && sd < 64; sd++)
                    col[sd] = per[7 * sd + c];
                seed_stats(col, nseed < 64 ? nseed : 64, &mean[c], &sdv[c]);
            }
            fprintf(summary->f, "%s,%d,%g,%.10g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d,%.6g,%.6g,%.6g\n", so->name,
                    vr->dim, D_dx, dx, mean[0], mean[1], mean[2], mean[3], mean[4], mean[5], mean[6], nseed, sdv[0],
                    sdv[2], sdv[5]);
            dxs[nres] = dx;
            errs[nres] = mean[0];
            errsv[nres] = mean[2];
            errsw[nres] = mean[5];
            nres++;
        }
        if (rc)
            break;
        order_row(order, "hydrostatic", so, vr->dim, dxs, errs, nres);
        order_row(order, "hydrostatic_vertical", so, vr->dim, dxs, errsv, nres);
        order_row(order, "hydrostatic_weight", so, vr->dim, dxs, errsw, nres);
    }
    free(per);
    free(sc.in);
    return rc;
}

/* ---- viscous decay (the header's definitions) ---------------------------- */
typedef struct visc_res {
    int dim;
    double L, t_max[2];
    double cells[2][3]; /* full, quick; 0 ends */
} visc_res;

static const visc_res visc_resolutions[] = {
    {2, 0.8, {2.0, 1.0}, {{20, 40, 80}, {10, 20, 0}}},
    {3, 1.0, {1.5, 0.0}, {{10, 20, 0}, {0, 0, 0}}},
};

/* The shear wave's decay for one solver; nu_fine[dim - 2] gets nu_eff at the
 * finest resolution (NaN where the response is not viscous), for the drops. */
static int viscous_case(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, exp_csv *rows, exp_csv *order,
                        double nu_fine[2], pfb_err *err)
{
    const int q = ctx->quick ? 1 : 0;
    const double nu_ref = ctx->fluid->nu;
    int rc = PFB_OK;
    for (size_t k = 0; k < sizeof visc_resolutions / sizeof visc_resolutions[0] && !rc; k++) {
        const visc_res *vr = &visc_resolutions[k];
        double dxs[3], errs[3];
        int nres = 0;
        nu_fine[vr->dim - 2] = NAN;
        for (int j = 0; j < 3 && vr->cells[q][j] > 0 && !rc; j++) {
            const double cells = vr->cells[q][j], dx = vr->L / cells;
            char id[128];
            snprintf(id, sizeof id, "%s_wave_%dd_L%g", so->name, vr->dim, cells);
            material_wave_out w;
            rc = material_wave(ctx, "validation", id, so, vr->dim, dx, cells, vr->t_max[q], NULL, NULL, &w, err);
            if (rc)
                break;
            const int viscous = !strcmp(w.response, "viscous") && !w.unstable;
            const double e = viscous ? fabs(w.nu - nu_ref) / nu_ref : NAN;
            const double es = viscous && isfinite(w.nu_set) ? fabs(w.nu - w.nu_set) / w.nu_set : NAN;
            fprintf(rows->f, "%s,%d,%g,%.10g,%s,%.8g,%.6g,%.8g,%.6g,%.8g,%.6g,%.8g,%s\n", so->name, vr->dim, cells,
                    dx, w.response, w.nu, w.nu_err, nu_ref, e, w.nu_set, es, w.G, w.status[0] ? w.status : "ok");
            nu_fine[vr->dim - 2] = viscous ? w.nu : NAN;
            dxs[nres] = dx;
            errs[nres++] = e;
        }
        if (rc)
            break;
        if (nres == 0)
            continue; /* no resolution in this dimension (quick 3D) */
        order_row(order, "viscous", so, vr->dim, dxs, errs, nres);
    }
    return rc;
}

/* ---- drop against Rayleigh (the header's definitions) ------------------- */
#define DROP_R 0.1
static const double laplace_radii[3] = {0.05, 0.07, 0.1};

static const val_res drop_resolutions[] = {
    {2, {{10, 20, 40}, {5, 10, 0}}},
    {3, {{5, 10, 0}, {4, 5, 0}}},
};

/* The sigma a drop at spacing dx is compared with: the solver's explicit one,
 * else the Laplace pressure's sigma_eff at that spacing where it exceeds twice
 * its standard error; NaN (and why, in why) where there is none. */
static int drop_sigma(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, int dim, double dx, double *sigma,
                      const char **source, pfb_err *err)
{
    char id[128];
    snprintf(id, sizeof id, "%s_drop_%dd_R%g_sigma", so->name, dim, DROP_R / dx);
    exp_run_spec spec = {"drop", id, so, "drop", NULL, NULL, 0};
    double s = NAN;
    int rc = exp_surface_tension(ctx, &spec, &s, err);
    if (rc)
        return rc;
    if (s > 0) {
        *sigma = s;
        *source = "explicit";
        return PFB_OK;
    }
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%s_laplace_%dd_dx%g", so->name, dim, dx);
    material_drops_out d;
    rc = material_drops(ctx, "drop", prefix, so, dim, laplace_radii, 3, dx, 1.5, NULL, NULL, &d, err);
    if (rc)
        return rc;
    const int ok = !d.unstable && d.sigma > 0 && !(d.sigma < 2.0 * d.sigma_err);
    *sigma = ok ? d.sigma : NAN;
    *source = ok ? "laplace" : "none";
    return PFB_OK;
}

/* The reference drop (reference_drop.csv): omega and beta of its deformation,
 * fitted as the methods' are, and its error bar. */
typedef struct drop_ref {
    double omega, beta, bar;
    int level;
} drop_ref;

/* Calibrate an explicit sigma (the header's Drop, calibrated): the Laplace
 * sigma_eff of drops at spacing dx with the preset's sigma_t, then sigma_set =
 * sigma_t^2 / sigma_eff (the Laplace pressure is linear in the explicit sigma),
 * checked by the Laplace drops at sigma_set.  *sigma_cal NaN where sigma_eff is
 * not measured (within twice its error, or a drop blew up). */
static int drop_calibrate(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, int dim, double dx, double sigma_t,
                          double *sigma_eff0, double *sigma_cal, double *sigma_eff1, pfb_err *err)
{
    char prefix[128], set[96];
    *sigma_eff0 = *sigma_cal = *sigma_eff1 = NAN;
    snprintf(prefix, sizeof prefix, "%s_laplace_%dd_dx%g", so->name, dim, dx);
    material_drops_out d;
    int rc = material_drops(ctx, "drop", prefix, so, dim, laplace_radii, 3, dx, 1.5, NULL, NULL, &d, err);
    if (rc || d.unstable || !(d.sigma > 2.0 * d.sigma_err) || !(d.sigma > 0))
        return rc;
    *sigma_eff0 = d.sigma;
    *sigma_cal = sigma_t * sigma_t / d.sigma;
    snprintf(prefix, sizeof prefix, "%s_laplace_%dd_dx%g_cal", so->name, dim, dx);
    snprintf(set, sizeof set, "solver.surface_tension=%.17g", *sigma_cal);
    const char *sets[] = {set, NULL};
    rc = material_drops(ctx, "drop", prefix, so, dim, laplace_radii, 3, dx, 1.5, sets, NULL, &d, err);
    if (!rc && !d.unstable)
        *sigma_eff1 = d.sigma;
    return rc;
}

static int drop_case(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, const double nu[2], const drop_ref *ref,
                     exp_csv *rows, exp_csv *signal, exp_csv *order, pfb_err *err)
{
    const int q = ctx->quick ? 1 : 0;
    const double t_end = q ? 1.0 : 2.0, rho = 1000.0;
    int rc = PFB_OK;
    for (size_t k = 0; k < sizeof drop_resolutions / sizeof drop_resolutions[0] && !rc; k++) {
        const val_res *vr = &drop_resolutions[k];
        const int dim = vr->dim;
        double dxs[3], errs[3], berrs[3], rerrs[3], rberrs[3];
        int nres = 0, sigma0 = 0, jmax = 0;
        while (jmax < 3 && vr->a_dx[q][jmax] > 0)
            jmax++;
        /* an explicit sigma, calibrated in 2D at the finest spacing */
        double sigma_t = NAN, seff0 = NAN, scal = NAN, seff1 = NAN;
        {
            char id[128];
            snprintf(id, sizeof id, "%s_drop_%dd_sigma", so->name, dim);
            exp_run_spec spec = {"drop", id, so, "drop", NULL, NULL, 0};
            rc = exp_surface_tension(ctx, &spec, &sigma_t, err);
        }
        if (!rc && sigma_t > 0 && dim == 2)
            rc = drop_calibrate(ctx, so, dim, DROP_R / vr->a_dx[q][jmax - 1], sigma_t, &seff0, &scal, &seff1, err);
        /* the method's own continuum drop (the header) */
        double own_w = NAN, own_b = NAN;
        if (dim == 2 && ref && so->viscous_stress != PFB_STRESS_NONE && nu[0] > 0 && isfinite(nu[0])) {
            const pfb_maxwell m = {0.0, 1.0, rho * nu[0]};
            const int tr = so->viscous_stress == PFB_STRESS_GRADIENT ? MAXWELL_GRADIENT : MAXWELL_SYMMETRIC;
            double re, im;
            pfb_err oerr;
            if (maxwell_drop_root_traction(&m, tr, 2, 2, rho, DROP_R, GFS_DROP_SIGMA, -ref->beta, ref->omega, &re, &im,
                                           &oerr) == 0) {
                own_w = im;
                own_b = -re;
            }
        }
        double oerrs[3], oberrs[3];
        for (int j = 0; j < jmax && !rc; j++) {
            const double R_dx = vr->a_dx[q][j], dx = DROP_R / R_dx;
            double sigma = NAN, sigma_set = NAN;
            const char *source = "none";
            int calibrated = 0;
            if (sigma_t > 0) {
                sigma = sigma_t;
                sigma_set = dim == 2 ? scal : sigma_t;
                calibrated = dim == 2 && scal > 0;
                source = calibrated ? "calibrated" : dim == 2 ? "none" : "explicit";
                if (!(sigma_set > 0))
                    sigma = NAN;
            } else if (j == 0 || sigma0) { /* none at the coarsest: none finer (see the header) */
                rc = drop_sigma(ctx, so, dim, dx, &sigma, &source, err);
                sigma_set = NAN;
            }
            if (rc)
                break;
            if (j == 0)
                sigma0 = sigma > 0;
            if (!(sigma > 0)) {
                /* no surface tension to compare with: the drop is not run */
                fprintf(rows->f, "%s,%d,%g,%.10g,0,skipped,no surface tension (explicit none; Laplace sigma_eff "
                                 "within twice its error),none,,,,,,,,,,,,,,,,,,,,\n",
                        so->name, dim, R_dx, dx);
                dxs[nres] = dx;
                berrs[nres] = rerrs[nres] = rberrs[nres] = oerrs[nres] = oberrs[nres] = NAN;
                errs[nres++] = NAN;
                continue;
            }
            char id[128], sdim[32], spacing[64], tend[64], rad[64], frames[64], sset[96];
            snprintf(id, sizeof id, "%s_drop_%dd_R%g%s", so->name, dim, R_dx,
                     calibrated ? "_cal" : "");
            snprintf(sdim, sizeof sdim, "run.dim=%d", dim);
            snprintf(spacing, sizeof spacing, "run.spacing=%.17g", dx);
            snprintf(tend, sizeof tend, "run.t_end=%.17g", t_end);
            snprintf(rad, sizeof rad, "scene.radius=%.17g", DROP_R);
            snprintf(frames, sizeof frames, "run.frames=%ld", lround(VAL_FPS * t_end));
            snprintf(sset, sizeof sset, "solver.surface_tension=%.17g", sigma_set);
            const char *sets[] = {sdim, spacing, tend, rad, frames, "scene.perturb=shape", "scene.amplitude=0.05",
                                  calibrated ? sset : NULL, NULL};
            exp_extra ex = {material_deformation_names, material_deformation_row, NULL, NULL};
            exp_run_spec spec = {"drop", id, so, "drop", sets, &ex, 0};
            exp_run_out out;
            rc = exp_run(ctx, &spec, &out, err);
            if (rc)
                break;
            const csv_table *x = &out.extra;
            const int ct = csv_table_col(x, "t"), cd = csv_table_col(x, "deformation");
            double *t = malloc((x->nrow + 1) * sizeof *t), *y = malloc((x->nrow + 1) * sizeof *y);
            for (size_t r = 0; r < x->nrow && t && y; r++) {
                t[r] = csv_table_get(x, r, ct);
                y[r] = csv_table_get(x, r, cd);
                fprintf(signal->f, "%s,%d,%g,%.9g,%.10g\n", so->name, dim, R_dx, t[r], y[r]);
            }
            pfb_fit_result fr;
            pfb_err ferr;
            const size_t nw = t && y ? fit_ringdown_window(y, x->nrow, 0.1) : 0;
            const int fit_ok = !out.unstable && t && y && fit_damped_cosine(t, y, nw, &fr, &ferr) == 0 &&
                               fr.p[FIT_OMEGA] > 0 && isfinite(fr.err[FIT_OMEGA]);
            free(t);
            free(y);
            const double wR = sqrt((dim == 2 ? 6.0 : 8.0) * sigma / (rho * DROP_R * DROP_R * DROP_R));
            const double bv = (dim == 2 ? 4.0 : 5.0) * nu[dim - 2] / (DROP_R * DROP_R);
            /* the reference drop is 2D at GFS_DROP_SIGMA: compared where the drop's sigma is it */
            const int has_ref = dim == 2 && ref && fabs(sigma / GFS_DROP_SIGMA - 1.0) < 1e-6;
            char reason[320];
            exp_reason(&out, reason, sizeof reason);
            char refcols[256] = ",,,,";
            if (has_ref)
                snprintf(refcols, sizeof refcols, "%.8g,%.8g,%.6g,%.6g", ref->omega, ref->beta,
                         fit_ok ? fabs(fr.p[FIT_OMEGA] / ref->omega - 1.0) : NAN,
                         fit_ok ? fabs(fr.p[FIT_BETA] / ref->beta - 1.0) : NAN);
            char calcols[160], owncols[160] = ",,,";
            snprintf(calcols, sizeof calcols, "%.8g,%.8g,%.8g", sigma_set, dim == 2 ? seff0 : NAN,
                     dim == 2 ? seff1 : NAN);
            const int has_own = has_ref && own_w > 0;
            if (has_own)
                snprintf(owncols, sizeof owncols, "%.8g,%.8g,%.6g,%.6g", own_w, own_b,
                         fit_ok ? fabs(fr.p[FIT_OMEGA] / own_w - 1.0) : NAN,
                         fit_ok ? fabs(fr.p[FIT_BETA] / own_b - 1.0) : NAN);
            if (fit_ok) {
                const double w = fr.p[FIT_OMEGA], b = fr.p[FIT_BETA];
                const double ew = fabs(w / wR - 1.0), eb = fabs(b / bv - 1.0);
                fprintf(rows->f, "%s,%d,%g,%.10g,%zu,%s,%s,%s,%.8g,%.8g,%.8g,%.6g,%.6g,%.8g,%.6g,%.6g,%.6g,%s,%s,%s\n",
                        so->name, dim, R_dx, dx, out.n, exp_status_word(&out), reason, source, sigma, wR, w,
                        fr.err[FIT_OMEGA], ew, bv, b, fr.err[FIT_BETA], eb, refcols, calcols, owncols);
                dxs[nres] = dx;
                berrs[nres] = eb;
                rerrs[nres] = has_ref ? fabs(w / ref->omega - 1.0) : NAN;
                rberrs[nres] = has_ref ? fabs(b / ref->beta - 1.0) : NAN;
                oerrs[nres] = has_own ? fabs(w / own_w - 1.0) : NAN;
                oberrs[nres] = has_own ? fabs(b / own_b - 1.0) : NAN;
                errs[nres++] = ew;
            } else {
                fprintf(rows->f, "%s,%d,%g,%.10g,%zu,%s,%s,%s,%.8g,%.8g,,,,%.6g,,,,%s,%s,%s\n", so->name, dim, R_dx,
                        dx, out.n, exp_status_word(&out), reason[0] ? reason : "no oscillation fitted", source, sigma,
                        wR, bv, has_ref ? refcols : ",,,", calcols, owncols);
                dxs[nres] = dx;
                berrs[nres] = rerrs[nres] = rberrs[nres] = oerrs[nres] = oberrs[nres] = NAN;
                errs[nres++] = NAN;
            }
            exp_run_out_free(&out);
        }
        if (rc)
            break;
        if (dim == 2) {
            order_row(order, "drop_ref", so, dim, dxs, rerrs, nres);
            order_row(order, "drop_damping_ref", so, dim, dxs, rberrs, nres);
            order_row(order, "drop_own", so, dim, dxs, oerrs, nres);
            order_row(order, "drop_damping_own", so, dim, dxs, oberrs, nres);
        }
        order_row(order, "drop", so, dim, dxs, errs, nres);
        order_row(order, "drop_damping", so, dim, dxs, berrs, nres);
    }
    return rc;
}

/* One dam break (the header's set-up) at a / dx in dim, with one extra
 * "solver.key=value" (NULL: none) and the id suffix "_nuhalf" when it has one:
 * its run and its front T, Z (nr samples; *T and *Z the caller's to free, also on
 * an error).  A pending run has nr = 0. */
static int dam_front(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, int dim, double a_dx, const char *extra_set,
                     front_ctx *fc, exp_run_out *out, double **T, double **Z, size_t *nr, pfb_err *err)
{
    const double tscale = sqrt(2.0 * VAL_G / VAL_A);
    const long frames = lround(ceil(((VAL_T_MAX / tscale) + 1.0 / VAL_FPS) * VAL_FPS));
    const double dx = VAL_A / a_dx;
    char id[128], sdim[32], spacing[64], tend[64], fr[64], sa[64], sg[64];
    snprintf(id, sizeof id, "%s_dam_break_%dd_a%g%s", so->name, dim, a_dx, extra_set ? "_nuhalf" : "");
    snprintf(sdim, sizeof sdim, "run.dim=%d", dim);
    snprintf(spacing, sizeof spacing, "run.spacing=%.17g", dx);
    snprintf(tend, sizeof tend, "run.t_end=%.17g", (double)frames / VAL_FPS);
    snprintf(fr, sizeof fr, "run.frames=%ld", frames);
    snprintf(sa, sizeof sa, "scene.a=%.17g", VAL_A);
    snprintf(sg, sizeof sg, "scene.gravity=%.17g", VAL_G);
    const char *sets[] = {sdim, spacing, tend, fr, sa, sg, extra_set, NULL};
    exp_extra ex = {front_names, front_row, fc, NULL};
    exp_run_spec spec = {"validation", id, so, "dam_break", sets, &ex, 0};
    *T = *Z = NULL;
    *nr = 0;
    int rc = exp_run(ctx, &spec, out, err);
    if (rc)
        return rc;
    const csv_table *s = &out->series;
    const int ct = csv_table_col(s, "t"), cf = csv_table_col(&out->extra, "front");
    const size_t n = s->nrow < out->extra.nrow ? s->nrow : out->extra.nrow;
    *T = malloc((n + 1) * sizeof **T);
    *Z = malloc((n + 1) * sizeof **Z);
    if (!*T || !*Z) {
        exp_run_out_free(out);
        return pfb_err_set(err, PFB_ENOMEM, "out of memory in the validation experiment");
    }
    for (size_t r = 0; r < n; r++) {
        (*T)[r] = validate_mm_T(csv_table_get(s, r, ct), VAL_G, VAL_A);
        (*Z)[r] = validate_mm_Z(csv_table_get(&out->extra, r, cf), VAL_A);
    }
    *nr = n;
    return PFB_OK;
}

/* The viscosity a solver's preset states (its "viscosity" parameter, in Pa s),
 * or NaN: no such parameter, or the automatic -1. */
static double preset_viscosity(const pfb_exp_ctx *ctx, const pfb_solver_ops *so)
{
    pfb_params p;
    pfb_err e;
    double mu = NAN;
    if (params_init(&p, so->params, so->name, &e))
        return NAN;
    if (params_find(&p, "viscosity") >= 0 && (!ctx->preset || preset_apply(ctx->preset, so, &p, &e) == 0))
        mu = params_get(&p, "viscosity");
    params_free(&p);
    return mu > 0 ? mu : NAN;
}

/* The viscosity case (the header's): the 2D dam break at a / dx = VISC_A_DX
 * again with the solver's viscosity halved, against the reference at nu and at
 * nu / 2 (validate_viscous_response). */
#define VISC_A_DX_FULL 50
#define VISC_A_DX_QUICK 12
typedef struct visc_full {
    double *T, *Z;      /* the dam break's front at VISC_A_DX (the main loop's run) */
    size_t n;
    char status[32], reason[320];
} visc_full;

static int viscosity_case(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, const gfs_ref *ref,
                          const gfs_ref *ref_half, const visc_full *full, front_ctx *fc, exp_csv *rows, pfb_err *err)
{
    const double mu = preset_viscosity(ctx, so);
    if (!isfinite(mu))
        return PFB_OK; /* no Newtonian viscosity parameter to halve */
    const double a_dx = ctx->quick ? VISC_A_DX_QUICK : VISC_A_DX_FULL;
    char half[64];
    snprintf(half, sizeof half, "solver.viscosity=%.17g", 0.5 * mu);
    exp_run_out half_out;
    const double *T = full->T, *Z = full->Z;
    const size_t n = full->n;
    double *Th = NULL, *Zh = NULL;
    size_t nh = 0;
    int rc = dam_front(ctx, so, 2, a_dx, half, fc, &half_out, &Th, &Zh, &nh, err);
    if (!rc) {
        const int cT = gfs_ref_col(ref, "T"), cZ = gfs_ref_col(ref, "Z");
        const int hT = gfs_ref_col(ref_half, "T"), hZ = gfs_ref_col(ref_half, "Z");
        double zr[REF_NT], zrh[REF_NT], z[REF_NT], zh[REF_NT];
        for (int k = 0; k < REF_NT; k++) {
            const double Tk = REF_T0 + 0.1 * k;
            zr[k] = validate_interp(ref->data + cT, ref->data + cZ, ref->nrow, ref->ncol, Tk);
            zrh[k] = validate_interp(ref_half->data + hT, ref_half->data + hZ, ref_half->nrow, ref_half->ncol, Tk);
            z[k] = validate_interp(T, Z, n, 1, Tk);
            zh[k] = validate_interp(Th, Zh, nh, 1, Tk);
        }
        validate_visc_response v;
        validate_viscous_response(zr, zrh, z, zh, REF_NT, &v);
        char reason[320];
        exp_reason(&half_out, reason, sizeof reason);
        const int full_ok = !strcmp(full->status, "ok");
        fprintf(rows->f, "%s,2,%g,%.10g,%s,%s,%.8g,%.8g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d\n", so->name, a_dx,
                VAL_A / a_dx, full_ok ? exp_status_word(&half_out) : full->status, full_ok ? reason : full->reason,
                mu, 0.5 * mu, v.bias, v.bias_half, v.s_run, v.s_ref, v.response, v.nu_equiv_rel, ref_half->bar,
                ref_half->level);
        exp_run_out_free(&half_out);
    }
    free(Th);
    free(Zh);
    return rc;
}

int validate_mm_builtin(validate_mm_data *d, pfb_err *err)
{
    return validate_mm_parse(PFB_REF_MARTIN_MOYCE, "data/reference/martin_moyce_1952.csv (compiled in)", d, err);
}

/* The three reference CSVs the validation reads (validate.h). */
static int load_refs(const pfb_exp_ctx *ctx, const pfb_fluid *fl, gfs_ref *ref2, gfs_ref *ref3, gfs_ref *refd,
                     gfs_ref *refh, pfb_err *err)
{
    static const char *const need_front[] = {"t", "T", "Z", NULL}, *const need_drop[] = {"t", "deformation", NULL};
    memset(ref2, 0, sizeof *ref2);
    memset(ref3, 0, sizeof *ref3);
    memset(refd, 0, sizeof *refd);
    memset(refh, 0, sizeof *refh);
    int rc = ref_load(ctx, "reference_dam_break_slip.csv", need_front, fl->density, fl->nu, fl->sigma, ref2, err);
    if (!rc)
        rc = ref_load(ctx, "reference_dam_break_half.csv", need_front, fl->density, 0.5 * fl->nu, fl->sigma, refh,
                      err);
    if (!rc)
        rc = ref_load(ctx, "reference_dam_break_3d.csv", need_front, fl->density, fl->nu, fl->sigma, ref3, err);
    if (!rc)
        rc = ref_load(ctx, "reference_drop.csv", need_drop, fl->density, fl->nu, GFS_DROP_SIGMA, refd, err);
    if (rc) {
        gfs_ref_free(ref2);
        gfs_ref_free(ref3);
        gfs_ref_free(refd);
        gfs_ref_free(refh);
    }
    return rc;
}

int validation_check_reference(const char *dir, const pfb_fluid *fluid, pfb_err *err)
{
    pfb_exp_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.reference_dir = dir;
    gfs_ref a, b, c, d;
    int rc = load_refs(&ctx, fluid, &a, &b, &c, &d, err);
    if (!rc) {
        gfs_ref_free(&a);
        gfs_ref_free(&b);
        gfs_ref_free(&c);
        gfs_ref_free(&d);
    }
    return rc;
}

static int validation_run(const pfb_exp_ctx *ctx, pfb_err *err)
{
    const int q = ctx->quick ? 1 : 0;
    if (!ctx->fluid)
        return pfb_err_set(err, PFB_EINVAL, "the validation experiment needs the reference fluid (its viscosity is "
                                            "the viscous decay's reference); valid: --fluid FILE or scenes/fluid.ini");
    /* the continuum reference (data/reference; gerris.h), for this fluid */
    gfs_ref ref2, ref3, refd, refh;
    int rc = load_refs(ctx, ctx->fluid, &ref2, &ref3, &refd, &refh, err);
    if (rc)
        return rc;
    drop_ref dref = {NAN, NAN, NAN, -1};
    if (!rc) {
        double *t = malloc((refd.nrow + 1) * sizeof *t), *y = malloc((refd.nrow + 1) * sizeof *y);
        const int ct = gfs_ref_col(&refd, "t"), cd = gfs_ref_col(&refd, "deformation");
        pfb_fit_result fr;
        pfb_err ferr;
        for (size_t r = 0; t && y && r < refd.nrow; r++) {
            t[r] = gfs_ref_get(&refd, r, ct);
            y[r] = gfs_ref_get(&refd, r, cd);
        }
        if (t && y && fit_damped_cosine(t, y, fit_ringdown_window(y, refd.nrow, 0.1), &fr, &ferr) == 0) {
            dref.omega = fr.p[FIT_OMEGA];
            dref.beta = fr.p[FIT_BETA];
        }
        dref.bar = refd.bar;
        dref.level = refd.level;
        free(t);
        free(y);
        if (!(dref.omega > 0))
            rc = pfb_err_set(err, PFB_EINVAL, "the reference drop's deformation has no oscillation to fit; valid: "
                                              "make reference");
    }
    if (rc) {
        gfs_ref_free(&ref2);
        gfs_ref_free(&ref3);
        gfs_ref_free(&refd);
        gfs_ref_free(&refh);
        return rc;
    }
    validate_mm_data mm;
    rc = validate_mm_builtin(&mm, err);
    if (rc) {
        gfs_ref_free(&ref2);
        gfs_ref_free(&ref3);
        gfs_ref_free(&refd);
        gfs_ref_free(&refh);
        return rc;
    }
    exp_csv fronts, dam, hyd, hyds, order, visc, vresp, drops, dsig, rfront;
    memset(&visc, 0, sizeof visc);
    memset(&vresp, 0, sizeof vresp);
    memset(&drops, 0, sizeof drops);
    memset(&dsig, 0, sizeof dsig);
    memset(&hyd, 0, sizeof hyd);
    memset(&hyds, 0, sizeof hyds);
    memset(&fronts, 0, sizeof fronts);
    memset(&dam, 0, sizeof dam);
    memset(&order, 0, sizeof order);
    memset(&rfront, 0, sizeof rfront);
    rc = exp_csv_open(&fronts, ctx, "validation_front.csv", "solver,dim,a_dx,dx,t,T,Z", err);
    if (!rc)
        rc = exp_csv_open(&rfront, ctx, "validation_reference.csv", "case,dim,level,dx,bar,T,Z,omega,beta", err);
    for (int d = 2; d <= 3 && !rc; d++) {
        const gfs_ref *r = d == 2 ? &ref2 : &ref3;
        const int cT = gfs_ref_col(r, "T"), cZ = gfs_ref_col(r, "Z");
        for (size_t k = 0; k < r->nrow; k++)
            fprintf(rfront.f, "dam_break,%d,%d,%.9g,%.6g,%.9g,%.9g,,\n", d, r->level, r->dx, r->bar,
                    gfs_ref_get(r, k, cT), gfs_ref_get(r, k, cZ));
    }
    if (!rc)
        fprintf(rfront.f, "drop,2,%d,%.9g,%.6g,,,%.9g,%.9g\n", refd.level, refd.dx, refd.bar, dref.omega, dref.beta);
    if (!rc)
        rc = exp_csv_open(&dam, ctx, "validation_dam_break.csv",
                          "solver,dim,a_dx,dx,n,status,reason,err_mean,err_max,bias,npoints,steps,wall_seconds,Re,"
                          "ref_err_mean,ref_err_max,ref_bias,ref_bar,ref_level",
                          err);
    if (!rc)
        rc = exp_csv_open(&hyd, ctx, "validation_hydrostatic.csv",
                          "solver,dim,D_dx,dx,n,status,reason,depth,p,p_hydro,rel_err,p_vert,rel_err_vert,rho_rel,"
                          "p_weight,rel_err_weight,seed",
                          err);
    if (!rc)
        rc = exp_csv_open(&hyds, ctx, "validation_hydrostatic_summary.csv",
                          "solver,dim,D_dx,dx,err,slope_rel,err_vert,slope_rel_vert,rho_rel,err_weight,surface_rise,"
                          "seeds,err_sd,err_vert_sd,err_weight_sd",
                          err);
    if (!rc)
        rc = exp_csv_open(&visc, ctx, "validation_viscous.csv",
                          "solver,dim,cells,dx,response,nu_eff,nu_err,nu_ref,err,nu_set,err_set,shear_modulus,status",
                          err);
    if (!rc)
        rc = exp_csv_open(&vresp, ctx, "validation_viscosity.csv",
                          "solver,dim,a_dx,dx,status,reason,viscosity,viscosity_half,bias,bias_half,s_run,s_ref,"
                          "response,nu_equiv_rel,ref_bar_half,ref_level_half",
                          err);
    if (!rc)
        rc = exp_csv_open(&drops, ctx, "validation_drop.csv",
                          "solver,dim,R_dx,dx,n,status,reason,sigma_source,sigma,omega_rayleigh,omega,omega_err,"
                          "omega_rel_err,beta_viscous,beta,beta_err,beta_rel_err,omega_ref,beta_ref,omega_ref_err,"
                          "beta_ref_err,sigma_set,sigma_eff_set,sigma_eff_cal,omega_own,beta_own,omega_own_err,"
                          "beta_own_err",
                          err);
    if (!rc)
        rc = exp_csv_open(&dsig, ctx, "validation_drop_signal.csv", "solver,dim,R_dx,t,deformation", err);
    if (!rc)
        rc = exp_csv_open(&order, ctx, "validation_order.csv",
                          "case,solver,dim,nres,order,order_err,err_coarse,err_fine", err);
    front_ctx fc = {NULL, 0};
    for (size_t si = 0; si < ctx->nsolvers && !rc; si++) {
        const pfb_solver_ops *so = ctx->solvers[si];
        visc_full vf = {NULL, NULL, 0, "", ""};
        for (size_t k = 0; k < sizeof resolutions / sizeof resolutions[0] && !rc; k++) {
            const val_res *vr = &resolutions[k];
            double dxs[3], errs[3], rerrs[3];
            int nres = 0;
            for (int j = 0; j < 3 && vr->a_dx[q][j] > 0 && !rc; j++) {
                const double a_dx = vr->a_dx[q][j], dx = VAL_A / a_dx;
                exp_run_out out;
                double *T = NULL, *Z = NULL;
                size_t nr = 0;
                rc = dam_front(ctx, so, vr->dim, a_dx, NULL, &fc, &out, &T, &Z, &nr, err);
                if (rc) {
                    free(T);
                    free(Z);
                    break;
                }
                const int ct = csv_table_col(&out.series, "t");
                for (size_t r = 0; r < nr; r++)
                    fprintf(fronts.f, "%s,%d,%g,%.10g,%.9g,%.9g,%.9g\n", so->name, vr->dim, a_dx, dx,
                            csv_table_get(&out.series, r, ct), T[r], Z[r]);
                double emean, emax, bias;
                int np;
                validate_mm_errors(T, Z, nr, &mm, VAL_T_MAX, &emean, &emax, &bias, &np);
                char reason[320];
                exp_reason(&out, reason, sizeof reason);
                const gfs_ref *fr_ref = vr->dim == 2 ? &ref2 : &ref3;
                double rmean, rmax, rbias;
                front_ref_errors(T, Z, nr, fr_ref, &rmean, &rmax, &rbias);
                fprintf(dam.f, "%s,%d,%g,%.10g,%zu,%s,%s,%.6g,%.6g,%.6g,%d,%ld,%.4f,%.6g,%.6g,%.6g,%.6g,%.6g,%d\n",
                        so->name, vr->dim, a_dx, dx, out.n, exp_status_word(&out), reason, emean, emax, bias, np,
                        out.steps, out.wall_seconds, sqrt(VAL_G * VAL_A) * VAL_A / ctx->fluid->nu, rmean, rmax, rbias,
                        fr_ref->bar, fr_ref->level);
                rerrs[nres] = rmean;
                if (vr->dim == 2 && a_dx == (q ? VISC_A_DX_QUICK : VISC_A_DX_FULL) && !vf.T) {
                    /* kept for the viscosity case */
                    vf.T = T;
                    vf.Z = Z;
                    vf.n = nr;
                    snprintf(vf.status, sizeof vf.status, "%s", exp_status_word(&out));
                    snprintf(vf.reason, sizeof vf.reason, "%s", reason);
                } else {
                    free(T);
                    free(Z);
                }
                dxs[nres] = dx;
                errs[nres] = emean;
                nres++;
                exp_run_out_free(&out);
            }
            if (rc)
                break;
            order_row(&order, "dam_break_ref", so, vr->dim, dxs, rerrs, nres);
            order_row(&order, "dam_break", so, vr->dim, dxs, errs, nres);
        }
        if (!rc && vf.T)
            rc = viscosity_case(ctx, so, &ref2, &refh, &vf, &fc, &vresp, err);
        free(vf.T);
        free(vf.Z);
        if (!rc)
            rc = hydrostatic_case(ctx, so, &hyd, &hyds, &order, err);
        double nu[2] = {NAN, NAN};
        if (!rc)
            rc = viscous_case(ctx, so, &visc, &order, nu, err);
        if (!rc)
            rc = drop_case(ctx, so, nu, &dref, &drops, &dsig, &order, err);
    }
    free(fc.work);
    validate_mm_free(&mm);
    gfs_ref_free(&ref2);
    gfs_ref_free(&ref3);
    gfs_ref_free(&refd);
    gfs_ref_free(&refh);
    exp_csv *const cs[] = {&fronts, &dam, &hyd, &hyds, &visc, &vresp, &drops, &dsig, &order, &rfront};
    return exp_csv_finish(cs, 10, rc, err);
}

const pfb_experiment pfb_exp_validation = {
    "validation", "each method against the continuum reference (Gerris, data/reference) and against experiment and "
                  "theory at several resolutions, with the observed order (dam break, hydrostatic pressure, viscous "
                  "decay, drop)",
    validation_run};
