/* calibrate.c — one fluid for four methods: search each method's free parameters for
 * the reference fluid of scenes/fluid.ini (fluid.h: targets Re, Ma, Bo of the
 * gravity scenes, i.e. a kinematic viscosity nu_t, a sound speed c_t and a surface
 * tension sigma_t) and write them as a generated preset, calibrated.ini.
 *
 * Measurements: material.h's (the properties experiment's) shear wave (nu) and
 * settled pool (c) at the calibration resolution, 2D at the volume pool's spacing
 * 0.02 m (quick: 0.05 m, the properties experiment's quick setup, so that its runs
 * with the generated preset repeat the calibration's last trial exactly), and the
 * Laplace drops (sigma) once, at the final values.
 *
 * The knobs (absolute parameters, so that one preset is one material in every
 * scene; a sound speed relative to a scene's v_ref is not):
 *   muller         viscosity (mu; nu_eff ~ mu), k (c_eff ~ sqrt k), surface_tension
 *                  = sigma_t (explicit, eq. 19: set, not searched)
 *   clavet         sound_speed_si (c_eff ~ c): its shear response is elastic and its
 *                  surface tension emergent (see the reasons below)
 *   miller_pearce  drag_nu (nu_eff ~ drag), sound_speed_si (c_eff ~ c); the fluid
 *                  preset's c_r = 1 has no attraction, so no surface tension
 *   mao_yang       viscosity (nu_eff ~ mu) with mu_e = 0 (a Newtonian fluid); it
 *                  is incompressible (no sound speed) and has no surface tension
 *
 * Search: a log-space secant iteration per knob.  Each knob's property is nearly
 * a power of it (exponents above), so p <- p (target / achieved)^(1 / e), with e
 * the secant slope of the last two trials once there are two (bounded to
 * [e0 / 4, 4 e0]); the knobs move together each iteration (their cross effects,
 * e.g. k on the numerical viscosity, are small and the iteration absorbs them).
 * Done when every searched property is within tol of its target (5%: twice the
 * scatter of the measured viscosity between resolutions of the same material,
 * and above the pool's measured c_err, 1-3%) or the target lies within twice the
 * measurement's standard error (the quick pool's is 25-40%); the secant uses two
 * trials only where their difference exceeds twice their errors (else noise).  A trial that blows up halves the
 * step in log space towards the last stable trial.  A knob whose property moves
 * by less than a fifth of its expected exponent is at a floor or a ceiling: the
 * target is out of reach and the calibration says so.
 *
 * Out of reach (reported, never silently replaced by a best effort):
 *  - no measurable property (clavet's elastic wave has no viscosity; mao_yang's
 *    pool has no compressibility, no c); the row says what was measured instead;
 *  - no knob (clavet's sigma comes from eq. 2's cohesion, which is set by the same
 *    stiffness as its sound speed; mao_yang and miller_pearce's fluid have none);
 *  - a floor, a ceiling or instability, as above.
 *
 * How each parameter scales with the spacing dx (why one preset serves every
 * resolution): every knob is absolute, and each solver turns it into its own
 * coefficients at the run's spacing.
 *   muller viscosity: nu_eff = gamma mu / rho with the lattice factor gamma ~ 0.85
 *     independent of dx (0.843 to 0.849 at 20 to 80 cells, tests/test_muller.c);
 *     k: c_eff = sqrt(gamma_c k / 2), independent of dx; surface_tension: eq. 19's
 *     sigma is a material constant.
 *   miller_pearce drag_nu: the drag is 2 M nu / S with the lattice sum S ~ dx^2
 *     (solvers/miller_pearce.c), so the drag scales like dx^(dim - 2) and nu stays;
 *     sound_speed_si: b1 is recomputed from c at each r0 = dx.
 *   clavet sound_speed_si: k and k_near are rescaled to c through the lattice sums
 *     at each h = h_factor dx (solvers/clavet.c); its emergent surface tension,
 *     a cohesive pressure ~ rho c^2 over a surface layer ~ h thick, then grows
 *     like c^2 h (so like dx at a fixed c): it does not carry over, which is one
 *     more reason it is not calibrated.
 *   mao_yang viscosity: nu_eff ~ mu / rho (eq. 1's Mueller 2003 form), independent
 *     of dx.
 * Carry-over: the final parameters are measured again at half the spacing (0.01 m;
 * quick 0.025 m); the achieved values there are the check that the preset
 * describes the same material at another resolution (calibration_summary.csv,
 * column achieved_fine; tests/test_experiments.c asserts muller's).
 *
 * The price of one fluid: the suggested step of the 2D dam break (its default
 * spacing) with the calibrated parameters and with each paper's own (the paper
 * preset, presets.h); e.g. Clavet's paper stiffness allows its frame-sized step
 * but collapses a pool under gravity (solvers/clavet.c).
 *
 * Outputs:
 *   calibration_steps.csv    solver,dt_paper,dt_calibrated,ratio
 *   calibration_trials.csv   solver,iteration,param,value,property,achieved,err,status
 *   calibration_summary.csv  solver,property,target,achieved,err,rel_residual,
 *                            achieved_fine,status,reason
 *   calibrated.ini           the preset: per solver section the parameters, with a
 *                            provenance header (commit, targets, achieved values) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/version.h"
#include "experiment.h"
#include "fluid.h"
#include "material.h"
#include "presets.h"

enum { P_NU = 0, P_C, P_NPROP };
static const char *const prop_names[P_NPROP] = {"nu", "c"};

#define CAL_MAX_KNOBS 2
#define CAL_MAX_ITER 8
#define CAL_TOL 0.05

typedef struct cal_knob {
    const char *param; /* solver parameter (absolute) */
    int prop;          /* the property it sets */
    double e0;         /* expected d ln(property) / d ln(param) */
    double init;       /* initial value per unit of the target property (p = init x target^(1/e0)) */
    double max;        /* the largest value tried, as a multiple of the target property (a knob in the
                          property's units, a sound speed); 0: none */
    const char *why_max; /* why that ceiling */
} cal_knob;

typedef struct cal_plan {
    const char *solver;
    const char *fixed[4];        /* held fixed ("solver.mu_e=0") */
    cal_knob knobs[CAL_MAX_KNOBS];
    size_t nknobs;
    const char *sigma_param;     /* set to sigma_t (explicit), or NULL */
    const char *why[P_NPROP + 1]; /* why a property has no knob (NULL: it has one); [P_NPROP] is sigma */
    int sigma_c2;                 /* the emergent sigma scales like c^2 (the sound speed knob's square) */
} cal_plan;

/* Initial guesses from the laws of each method's header: muller nu = gamma mu / rho
 * (gamma ~ 0.85, tests/test_muller.c) and c = sqrt(k / 2) (the pool, properties);
 * mao_yang nu ~ mu / rho; miller_pearce nu ~ drag_nu (its header) and a chain sound
 * speed 5x the measured bulk one (properties: 22 set, 4.4 measured). */
static const cal_plan plans[] = {
    {"muller",
     {NULL},
     {{"viscosity", P_NU, 1.0, 1000.0 / 0.85, 0.0, NULL}, {"k", P_C, 0.5, 2.0, 0.0, NULL}},
     2,
     "surface_tension",
     {NULL, NULL, NULL},
     0},
    {"clavet",
     {NULL},
     {{"sound_speed_si", P_C, 1.0, 1.0, 0.0, NULL}},
     1,
     NULL,
     {"its shear wave is elastic at every stiffness that holds the pool (eq. 2's cohesion makes the lattice a soft "
      "solid); the viscosity impulses (Algorithm 5) damp it but cannot make it flow",
      NULL,
      "its surface tension emerges from eq. 2's cohesion, whose stiffness also sets its sound speed (sigma_eff ~ "
      "c^2)"},
     1},
    {"miller_pearce",
     {"solver.material=fluid"},
     {{"drag_nu", P_NU, 1.0, 1.0, 0.0, NULL},
      {"sound_speed_si", P_C, 1.0, 2.0, 2.0,
       "the chain sound speed is held at or below 2 c_t: eq. 3's attenuation makes a contact soft near r0, so the "
       "bulk stiffness under gravity grows only like the square root of the chain's (measured: bulk 4.4, 9.4 m/s "
       "at chain 22, 111 m/s), the target would need a chain near 700 m/s, and the step (cfl r0 / c) shrinks with "
       "it: at 2 c_t the experiments' runs already cost twice the former default's"}},
     2,
     NULL,
     {NULL, NULL,
      "the fluid preset's c_r = 1 ends eq. 2 at r0, where attraction and repulsion cancel: no cohesion, sigma = 0"},
     0},
    {"mao_yang",
     {"solver.mu_e=0"},
     {{"viscosity", P_NU, 1.0, 1000.0, 0.0, NULL}},
     1,
     NULL,
     {NULL,
      "it is incompressible (the pressure Poisson equation, eqs. 7-8): no sound speed, Ma = 0, which is nearer water "
      "than the target",
      "it has no surface tension term (eq. 1 has none): sigma = 0"},
     0},
};

static const cal_plan *plan_for(const char *solver)
{
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++)
        if (!strcmp(plans[i].solver, solver))
            return &plans[i];
    return NULL;
}

typedef struct cal_meas {
    double v[P_NPROP], err[P_NPROP];
    int unstable;
    int pending;            /* a run not made (plan, only): the chain stops here */
    char why[P_NPROP][400]; /* what was measured instead, when v is NaN */
    char status[320];
} cal_meas;

/* Measure nu and c with the given solver sets at spacing dx. */
static int measure(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, const char *tag, double dx, double cells,
                   double t_wave, double t_pool, const char *const *sets, cal_meas *m, pfb_err *err)
{
    memset(m, 0, sizeof *m);
    char id[160];
    snprintf(id, sizeof id, "%s_wave_%s", so->name, tag);
    material_wave_out w;
    int rc = material_wave(ctx, "calibrate", id, so, 2, dx, cells, t_wave, sets, NULL, &w, err);
    if (rc)
        return rc;
    snprintf(id, sizeof id, "%s_pool_%s", so->name, tag);
    material_pool_out p;
    rc = material_pool(ctx, "calibrate", id, so, 2, dx, t_pool, sets, NULL, &p, err);
    if (rc)
        return rc;
    m->v[P_NU] = !strcmp(w.response, "viscous") ? w.nu : NAN;
    m->err[P_NU] = w.nu_err;
    if (!strcmp(w.response, "elastic"))
        snprintf(m->why[P_NU], sizeof m->why[P_NU], "elastic shear wave: G = %.3g Pa (omega = %.3g 1/s)", w.G, w.omega);
    else if (strcmp(w.response, "viscous"))
        snprintf(m->why[P_NU], sizeof m->why[P_NU], "no decay measured (%s)", w.status[0] ? w.status : "no signal");
    m->v[P_C] = p.c;
    m->err[P_C] = p.c_err;
    if (!isfinite(p.c))
        snprintf(m->why[P_C], sizeof m->why[P_C], "no hydrostatic compression measured (%s)",
                 p.status[0] ? p.status : "the density does not grow with depth");
    m->unstable = w.unstable || p.unstable;
    m->pending = !strcmp(w.status, "pending") || !strcmp(p.status, "pending");
    snprintf(m->status, sizeof m->status, "%s", w.unstable ? w.status : p.unstable ? p.status : "ok");
    return PFB_OK;
}

/* sets = fixed + knobs (+ sigma) as "solver.key=value" strings in buf. */
static void build_sets(const cal_plan *pl, const double *val, double sigma, char buf[][96], const char **sets)
{
    size_t n = 0;
    for (size_t i = 0; i < 4 && pl->fixed[i]; i++)
        sets[n++] = pl->fixed[i];
    for (size_t k = 0; k < pl->nknobs; k++) {
        snprintf(buf[k], 96, "solver.%s=%.17g", pl->knobs[k].param, val[k]);
        sets[n++] = buf[k];
    }
    if (pl->sigma_param) {
        snprintf(buf[CAL_MAX_KNOBS], 96, "solver.%s=%.17g", pl->sigma_param, sigma);
        sets[n++] = buf[CAL_MAX_KNOBS];
    }
    sets[n] = NULL;
}

/* v to 6 significant digits: the preset prints %.6g, so every trial runs exactly
 * the value the preset will hold */
static double round6(double v)
{
    char b[32];
    snprintf(b, sizeof b, "%.6g", v);
    return strtod(b, NULL);
}

static int calibrate_run(const pfb_exp_ctx *ctx, pfb_err *err)
{
    if (!ctx->fluid)
        return pfb_err_set(err, PFB_EINVAL, "calibrate: no reference fluid; valid: --fluid FILE (scenes/fluid.ini)");
    const pfb_fluid *fl = ctx->fluid;
    const int q = ctx->quick ? 1 : 0;
    const double dx = q ? 0.05 : 0.02, cells = q ? 20 : 40, t_wave = q ? 1.0 : 2.0, t_pool = q ? 0.5 : 2.0;
    const double dx_fine = q ? 0.025 : 0.01;
    const double target[P_NPROP] = {fl->nu, fl->c};
    const double sigma_set = round6(fl->sigma); /* as the preset prints it */
    /* the drops: the properties experiment's radii, at 0.01 m (quick: the largest two at 0.02 m) */
    static const double radii[4] = {0.05, 0.07, 0.1, 0.14};
    exp_csv trials, summary, ini, steps;
    memset(&steps, 0, sizeof steps);
    memset(&trials, 0, sizeof trials);
    memset(&summary, 0, sizeof summary);
    memset(&ini, 0, sizeof ini);
    int rc = exp_csv_open(&trials, ctx, "calibration_trials.csv",
                          "solver,iteration,param,value,property,achieved,err,status", err);
    if (!rc)
        rc = exp_csv_open(&summary, ctx, "calibration_summary.csv",
                          "solver,property,target,achieved,err,rel_residual,achieved_fine,status,reason", err);
    if (!rc)
        rc = exp_csv_open(&steps, ctx, "calibration_steps.csv", "solver,dt_paper,dt_calibrated,ratio", err);
    if (!rc)
        rc = exp_csv_open(&ini, ctx, "calibrated.ini", "; calibrated.ini: generated by pfbench exp calibrate", err);
    if (!rc)
        fprintf(ini.f,
                "; The reference fluid's parameters for each method (experiments/calibrate.c says how they\n"
                "; were searched).  Do not edit: regenerate with `pfbench exp calibrate`.\n"
                "; commit %s\n; targets: H = %g m, g = %g m/s^2, rho = %g kg/m^3: Re = %g, Ma = %g, Bo = %g\n"
                ";   i.e. nu = %.6g m^2/s, c = %.6g m/s, sigma = %.6g N/m\n"
                "; measured in 2D at spacing %g m (shear wave %g spacings, pool %g s); carry-over at %g m\n",
                pfb_commit(), fl->length, fl->gravity, fl->density, fl->Re, fl->Ma, fl->Bo, fl->nu, fl->c, fl->sigma,
                dx, cells, t_pool, dx_fine);
    pfb_preset paper; /* the papers' own values, for the step comparison */
    if (!rc)
        rc = preset_resolve("paper", &paper, err);
    for (size_t si = 0; si < ctx->nsolvers && !rc; si++) {
        const pfb_solver_ops *so = ctx->solvers[si];
        const cal_plan *pl = plan_for(so->name);
        if (!pl) {
            rc = pfb_err_set(err, PFB_EINVAL, "calibrate: no calibration plan for solver '%s'; valid: muller, clavet, "
                                              "miller_pearce, mao_yang", so->name);
            break;
        }
        double val[CAL_MAX_KNOBS], prev_val[CAL_MAX_KNOBS], prev_ach[CAL_MAX_KNOBS], prev_err[CAL_MAX_KNOBS], stable_val[CAL_MAX_KNOBS];
        int has_prev = 0, has_stable = 0, converged = 0;
        char reach[CAL_MAX_KNOBS][400];
        for (size_t k = 0; k < pl->nknobs; k++) {
            const cal_knob *kn = &pl->knobs[k];
            val[k] = round6(kn->init * pow(target[kn->prop], 1.0 / kn->e0));
            reach[k][0] = '\0';
        }
        cal_meas m, mstable; /* the last trial, the last stable trial */
        memset(&m, 0, sizeof m);
        memset(&mstable, 0, sizeof mstable);
        char vbuf[CAL_MAX_KNOBS + 1][96];
        const char *sets[8];
        int it;
        for (it = 0; it < CAL_MAX_ITER && !rc; it++) {
            build_sets(pl, val, sigma_set, vbuf, sets);
            char tag[32];
            snprintf(tag, sizeof tag, "it%d", it);
            rc = measure(ctx, so, tag, dx, cells, t_wave, t_pool, sets, &m, err);
            if (rc || m.pending) /* the next trial follows from this one's result */
                break;
            for (size_t k = 0; k < pl->nknobs; k++) {
                const int pr = pl->knobs[k].prop;
                fprintf(trials.f, "%s,%d,%s,%.10g,%s,%.10g,%.6g,%s\n", so->name, it, pl->knobs[k].param, val[k],
                        prop_names[pr], m.v[pr], m.err[pr], m.unstable ? "unstable" : "ok");
            }
            if (m.unstable) {
                if (!has_stable) {
                    for (size_t k = 0; k < pl->nknobs; k++)
                        snprintf(reach[k], sizeof reach[k], "the first trial blew up (%s)", m.status);
                    break;
                }
                for (size_t k = 0; k < pl->nknobs; k++)
                    val[k] = round6(sqrt(val[k] * stable_val[k]));
                continue;
            }
            has_stable = 1;
            memcpy(stable_val, val, sizeof val);
            mstable = m;
            int all_in = 1, any_move = 0;
            double next[CAL_MAX_KNOBS];
            for (size_t k = 0; k < pl->nknobs; k++) {
                const cal_knob *kn = &pl->knobs[k];
                const double a = m.v[kn->prop], t = target[kn->prop];
                next[k] = val[k];
                if (!isfinite(a) || !(a > 0)) {
                    snprintf(reach[k], sizeof reach[k], "%s", m.why[kn->prop][0] ? m.why[kn->prop] : "not measured");
                    continue;
                }
                if (fabs(a / t - 1.0) <= CAL_TOL || fabs(a - t) <= 2.0 * m.err[kn->prop])
                    continue; /* within tol, or the target within twice the measurement's error */
                all_in = 0;
                double e = kn->e0;
                /* the secant only where the property's change exceeds its errors (else noise) */
                if (has_prev && isfinite(prev_ach[k]) && prev_ach[k] > 0 && prev_val[k] != val[k] &&
                    !(fabs(a - prev_ach[k]) < 2.0 * (m.err[kn->prop] + prev_err[k]))) {
                    e = log(a / prev_ach[k]) / log(val[k] / prev_val[k]);
                    if (!(e > 0.2 * kn->e0)) { /* the property no longer follows the knob */
                        snprintf(reach[k], sizeof reach[k],
                                 "%s stays at %.4g (target %.4g) while %s moves from %.4g to %.4g: a floor of the "
                                 "method at this resolution",
                                 prop_names[kn->prop], a, t, kn->param, prev_val[k], val[k]);
                        continue;
                    }
                    e = fmin(fmax(e, 0.25 * kn->e0), 4.0 * kn->e0);
                }
                next[k] = round6(val[k] * pow(t / a, 1.0 / e));
                if (kn->max > 0.0) {
                    const double top = round6(kn->max * t);
                    if (next[k] > top) {
                        if (val[k] >= top) { /* already at the ceiling: out of reach */
                            snprintf(reach[k], sizeof reach[k], "%s reaches %.4g (target %.4g) at %s = %.4g, its ceiling: %s",
                                     prop_names[kn->prop], a, t, kn->param, val[k], kn->why_max);
                            next[k] = val[k];
                            continue;
                        }
                        next[k] = top;
                    }
                }
                any_move = 1;
            }
            for (size_t k = 0; k < pl->nknobs; k++) {
                prev_val[k] = val[k];
                prev_ach[k] = m.v[pl->knobs[k].prop];
                prev_err[k] = m.err[pl->knobs[k].prop];
            }
            has_prev = 1;
            if (all_in || !any_move) {
                converged = all_in;
                break;
            }
            memcpy(val, next, sizeof val);
        }
        if (rc)
            break;
        if (m.pending) /* the rest follows from the trials' outcome */
            continue;
        if (!converged)
            for (size_t k = 0; k < pl->nknobs; k++) {
                const int pr = pl->knobs[k].prop;
                const double a = m.v[pr], t = target[pr];
                if (!reach[k][0] && !(fabs(a / t - 1.0) <= CAL_TOL) && !(fabs(a - t) <= 2.0 * m.err[pr]))
                    snprintf(reach[k], sizeof reach[k], "not within %g%% after %d trials", 100.0 * CAL_TOL, it);
            }
        /* the final (last stable) values: carry-over and surface tension */
        if (has_stable) {
            memcpy(val, stable_val, sizeof val);
            m = mstable;
        }
        build_sets(pl, val, sigma_set, vbuf, sets);
        cal_meas fine;
        rc = measure(ctx, so, "fine", dx_fine, cells, t_wave, t_pool, sets, &fine, err);
        if (rc)
            break;
        char pid[160];
        snprintf(pid, sizeof pid, "%s_laplace", so->name);
        material_drops_out d;
        rc = material_drops(ctx, "calibrate", pid, so, 2, q ? radii + 2 : radii, q ? 2 : 4, q ? 0.02 : 0.01,
                            q ? 0.5 : 1.0, sets, NULL, &d, err);
        if (rc)
            break;
        /* the summary: one row per property */
        for (int pr = 0; pr <= P_NPROP; pr++) {
            const char *pname = pr < P_NPROP ? prop_names[pr] : "sigma";
            const double t = pr < P_NPROP ? target[pr] : fl->sigma;
            const double a = pr < P_NPROP ? m.v[pr] : d.sigma, ae = pr < P_NPROP ? m.err[pr] : d.sigma_err;
            const double af = pr < P_NPROP ? fine.v[pr] : NAN;
            const char *reason = pl->why[pr];
            const char *status = "calibrated";
            if (pr == P_NPROP && pl->sigma_param) {
                status = "set";
                reason = "explicit (set to the target; at Bo this large its Laplace pressure is within the "
                         "measurement's scatter)";
            } else if (!reason) {
                for (size_t k = 0; k < pl->nknobs; k++)
                    if (pl->knobs[k].prop == pr && reach[k][0]) {
                        status = "out_of_reach";
                        reason = reach[k];
                    }
                if (!strcmp(status, "calibrated"))
                    reason = "";
            } else {
                status = "out_of_reach";
            }
            char rbuf[1400];
            if (pr == P_NPROP && pl->sigma_c2 && d.sigma > 0) {
                /* the sound speed the target would need, from sigma_eff ~ c^2 at the set c */
                double c_set = NAN;
                for (size_t k = 0; k < pl->nknobs; k++)
                    if (pl->knobs[k].prop == P_C)
                        c_set = val[k];
                const double c_need = c_set * sqrt(t / d.sigma);
                snprintf(rbuf, sizeof rbuf,
                         "%s: sigma_eff = %.3g N/m at c = %.3g m/s, so sigma = %.3g N/m needs c ~ %.2g m/s (Ma ~ "
                         "%.2g), softer than the paper's own stiffness, at which a pool 100 layers deep collapses "
                         "under gravity (solvers/clavet.c)",
                         reason, d.sigma, c_set, t, c_need, sqrt(fl->gravity * fl->length) / c_need);
            } else if (pr < P_NPROP && m.why[pr][0] && pl->why[pr])
                snprintf(rbuf, sizeof rbuf, "%s; measured: %s", reason, m.why[pr]);
            else
                snprintf(rbuf, sizeof rbuf, "%s", reason);
            reason = rbuf;
            if (!strcmp(status, "out_of_reach"))
                exp_log(ctx, "calibrate: %s: %s = %.4g is out of reach: %s", so->name, pname, t, reason);
            for (char *c = rbuf; *c; c++)
                if (*c == ',')
                    *c = ';';
            fprintf(summary.f, "%s,%s,%.10g,%.10g,%.6g,%.6g,%.10g,%s,%s\n", so->name, pname, t, a, ae,
                    isfinite(a) ? a / t - 1.0 : NAN, af, status, rbuf);
        }
        /* the suggested step of the 2D dam break, paper preset against calibrated */
        pfb_exp_ctx pctx = *ctx;
        pctx.preset = &paper;
        const char *dsets[] = {"run.dim=2", NULL};
        exp_run_spec dspec = {"calibrate", "dt", so, "dam_break", dsets, NULL, 0};
        double dt_paper = NAN, dt_cal = NAN;
        rc = exp_suggest_dt(&pctx, &dspec, &dt_paper, err);
        if (rc)
            break;
        const char *dcal[8];
        size_t nd = 0;
        for (size_t i = 0; sets[i] && nd < 7; i++)
            dcal[nd++] = sets[i];
        dcal[nd++] = "run.dim=2";
        dcal[nd] = NULL;
        exp_run_spec cspec = {"calibrate", "dt", so, "dam_break", dcal, NULL, 0};
        rc = exp_suggest_dt(ctx, &cspec, &dt_cal, err);
        if (rc)
            break;
        fprintf(steps.f, "%s,%.6g,%.6g,%.6g\n", so->name, dt_paper, dt_cal, dt_paper / dt_cal);
        /* the preset section */
        fprintf(ini.f, "\n[%s]\n", so->name);
        fprintf(ini.f, "; achieved (2D, %g m): nu = %.4g m^2/s, c = %.4g m/s, sigma = %.4g N/m%s\n", dx, m.v[P_NU],
                m.v[P_C], d.sigma, converged ? "" : " (not all targets reached: calibration_summary.csv says why)");
        for (size_t i = 0; i < 4 && pl->fixed[i]; i++)
            fprintf(ini.f, "%s\n", pl->fixed[i] + strlen("solver."));
        for (size_t k = 0; k < pl->nknobs; k++)
            fprintf(ini.f, "%s = %.6g\n", pl->knobs[k].param, val[k]);
        if (pl->sigma_param)
            fprintf(ini.f, "%s = %.6g\n", pl->sigma_param, sigma_set);
    }
    exp_csv *const cs[] = {&trials, &summary, &steps, &ini};
    return exp_csv_finish(cs, 4, rc, err);
}

const pfb_experiment pfb_exp_calibrate = {
    "calibrate", "search each method's parameters for the reference fluid (scenes/fluid.ini); writes calibrated.ini",
    calibrate_run};
