/* rheology.c — the virtual rheometer: what material each method's parameters
 * make (issue 49): standing shear waves at three wavenumbers and the Maxwell
 * material with a solvent that they give; the start-up of shear and the flow
 * curve on a sheared box; the scaling laws; the calibration to the
 * viscoelastic reference (scenes/viscoelastic.ini).
 *
 * Every solver runs the same periodic boxes (the shear_wave scene: u_x = U
 * sin(k y), k = 2 pi / L, no walls, no gravity; material.h's wave run, the
 * properties experiment's), 2D and 3D, with the material preset and the
 * rheometer's overrides (scenes/rheology.ini: clavet's springs and mao_yang's
 * elasticity on), at the wavelengths L = 40, 30 and 20 spacings of 2.5 mm in
 * 2D (0.1, 0.075 and 0.05 m) and 20, 15 and 10 of 5 mm in 3D, U = 0.02 m/s
 * (a strain amplitude U k / omega of about 2 %, below clavet's 10 % yield
 * ratio), 0.5 s each, sampled every millisecond (500 frames: ten samples in
 * the shortest period seen, clavet's 22 ms).  The quick version: 2D at 5 mm (20, 15, 10 spacings).
 *
 * The wave's amplitude A(t), the velocity's projection on the mode, obeys for a
 * Maxwell material of modulus G and relaxation time lambda with a solvent
 * viscosity eta_s (core/maxwell.h)
 *     rho lambda s^2 + (rho + eta_s lambda k^2) s + k^2 (eta_s + G lambda) = 0,
 * so a wave that oscillates, A = a exp(-beta t) cos(omega t + phi) (the damped
 * cosine of core/fit.h, over its ring-down window: until A falls below 0.5 %
 * of its start, and a quarter more; its initial guess from the crossings of 0,
 * where the wave settles, not of the mean, which a strongly damped first
 * swing pulls up), gives the roots -beta +- i omega: their sum
 * -2 beta = -(1 / lambda + eta_s k^2 / rho) and product beta^2 + omega^2 =
 * k^2 (eta_s + G lambda) / (rho lambda).  Across the three wavenumbers the sum
 * is a line in k^2 (intercept 1 / lambda, slope eta_s / rho) and the product
 * over k^2 a constant: maxwell_fit gives G, lambda and eta_s with their
 * standard errors.  An intercept within its error of 0 is an elastic solid
 * (no relaxation in the waves' time).  Each wave also gives the complex
 * viscosity at its root, eta*(s) = -rho s / k^2 = (rho beta - i rho omega) /
 * k^2, which the model says is eta_s + G lambda / (1 + lambda s).  From the
 * fitted model, G'(omega) = G lambda^2 omega^2 / (1 + lambda^2 omega^2) and
 * G''(omega) = G lambda omega / (1 + lambda^2 omega^2) + eta_s omega at the
 * waves' frequencies, and the same from the parameters the method states.
 *
 * A wave that does not oscillate (fewer than two sign changes) is viscous: its
 * decay rate, a least-squares line through ln A while A > 2 % of A(0) (the
 * properties experiment's), gives nu_eff = rate / k^2; a Newtonian method's
 * waves are all of this kind, and its summary gives their mean eta = rho nu_eff.
 *
 * What a method states (the parameters in its run.meta): mao_yang G = mu_e / 2
 * (eq. 9 drives dT/dt = mu_e / 2 D', and D = grad v + grad v^T is twice the
 * strain rate, so T_xy grows at (mu_e / 2) du/dy), lambda, and eta_s its
 * Newtonian viscosity (when given in Pa s).  clavet's springs state no G and no
 * lambda in the paper (issue 49's point: the measurement gives them); what
 * they make while the lattice deforms affinely is derived in core/maxwell.h
 * (maxwell_spring_modulus): G = (rho k_spring / 4) sum_j (1 - r_j/h) x_j^2
 * y_j^2 / r_j^2 over the lattice within h, so G ~ rho k_spring h^2 (h/dx)^dim,
 * and with both yield ratios 0 (scenes/rheology.ini) lambda = 1 / alpha; the
 * springs' part of the stress is compared with that, and no solvent.  muller
 * and miller_pearce are Newtonian (no elastic parameter); muller states eq.
 * 14's mu as its eta_s, miller_pearce states no viscosity in Pa s.
 *
 * rho is the scene's density, 1000 kg/m^3 (every method's rest density here).
 *
 * Start-up of shear (the homogeneous measurement, no wavenumber): the same
 * box, L = 20 spacings, made a sheared box (Lees-Edwards, core/periodic.h;
 * scene shear_rate) at gamma = 1 1/s, from rest but for the uniform shear
 * u_x = gamma (y - L/2), for 0.15 s sampled every millisecond (with springs
 * 0.25 1/s for 0.6 s, five of their 1 / alpha, to the same strain: rheo_t).
 * The shear stress is the virial's, sigma_xy = -(sum m v'_x v'_y + W_xy) / V
 * (pair_virial's shear term, v' the velocity about the uniform shear); with
 * springs also its springs' part, -spring_virial_xy / V (clavet's diag), and
 * the rest, the fluid's part.  A Maxwell material
 * with a solvent answers (at a small Weissenberg number lambda gamma, here 0.02
 * for mao_yang: the corotational terms are of its square)
 *     sigma(t) = eta_s gamma + G lambda gamma (1 - exp(-t / lambda)),
 * fitted by least squares: for each lambda the two amplitudes are linear, and
 * lambda minimises the residual (a golden-section search on ln lambda over
 * [1e-4, 10] s).  This measures G and lambda with no wave: a wave of 40
 * spacings is itself dispersed by the discretisation, which the wave fit puts
 * into G.  A method that refuses a sheared box has a row saying so.  A
 * Newtonian method's start-up is sigma = eta gamma from the start: its row
 * gives eta = the mean stress over gamma, G = 0, no lambda, and the rms about
 * the mean.
 *
 * Clavet's fluid part (double density relaxation, Algorithm 2, with its
 * quadratic viscosity) is not a Newtonian solvent: on the sheared box it
 * answers as an elastic solid of some thousand Pa per unit strain that flows
 * at a plateau of some hundred Pa at every rate from 0.5 to 32 1/s (a yield
 * stress), from the lattice and from a jittered start alike (the rows with
 * part fluid).  The springs at the paper's stiffness carry some 13 Pa per unit
 * strain beside it, and their stress follows the fluid's rearrangements.
 *
 * The flow curve (2D): the same box sheared at 0.5, 2, 8 and 32 1/s (lambda gdot
 * from 0.01 to 0.64 for mao_yang), with the stated material and, for a
 * method with a yield parameter (mao_yang's eq. 17), with a yield of 20 Pa;
 * the steady stress (the last third of the run) against the stated model's
 * over the same times: the corotational Maxwell model thins as G lambda gdot /
 * (1 + (lambda gdot)^2), and the yield adds about yield / sqrt(2), a Bingham
 * fluid's yield stress (core/maxwell.h, maxwell_shear).  A Newtonian method's
 * model is its own waves' viscosity (the summary's eta_viscous, measured
 * first, at the same setup) times the rate, with N1 = N2 = 0: the flow curve
 * checks that the homogeneous shear gives the small-amplitude viscosity at
 * every rate.
 *
 * Outputs:
 *   rheology_startup.csv  solver,dim,dx,shear_rate,t,sigma_xy,sigma_springs
 *   rheology_startup_fit.csv solver,dim,dx,shear_rate,part,status,reason,eta_s,G,lambda,rms,G_stated,
 *                         lambda_stated,eta_s_stated,G_rel,lambda_rel
 *   rheology_flow.csv     solver,dim,dx,yield,shear_rate,part,status,reason,sigma,sigma_sd,sigma_model,rel,
 *                         n1,n1_sd,n1_model,n2,n2_sd,n2_model (the normal stress differences of
 *                         the whole stress, mean and scatter over the last third, and the stated
 *                         corotational model's, whose T_zz is 0 in simple shear: N2 = T_yy = -N1/2)
 *   (part: total, and with springs their part and the fluid's; the springs'
 *   flow model is the linear Maxwell G lambda gdot (1 - exp(-t / lambda)),
 *   which the springs' geometry leaves at lambda gdot of order one)
 *   rheology_climb.csv    solver,dim,dx,shear_rate,source,psi1,psi2,beta,rod_radius,rod_dx,h_coef,omega,h,
 *                         h_spacings: the normal stress coefficients and the rod's climb
 *                         (rod climbing, above rheo_flow's use of climb_row)
 *   rheology_rest.csv     solver,dim,cells,dx,settle,t,status,reason,ke_max,mass,v_rms,u_flow: the
 *                         blob at rest after a settle (rheo_rest)
 *   rheology_yield.csv    solver,dim,dx,params,yield_ratio,fluid,shear_rate,strain,status,reason,sigma,
 *                         sigma_model,rel,sigma_elastic,sigma_maxwell: clavet's springs with a yield ratio
 *                         and without, and with the double density relaxation off (fluid off), their
 *                         steady stress against eq. 8's affine model (rheo_yield)
 *   rheology_curves.csv   solver,dim,source,omega,Gp,Gpp: the Maxwell moduli of the stated
 *                         material, of the start-up's fit, of the springs' and of the
 *                         calibrated material's last fit (source stated, startup, springs,
 *                         calibrated; for clavet the springs' part), 1 to 1000 rad/s, and
 *                         the reference material's (solver and source reference, dim 0)
 *   rheology_known.csv    solver,dim,case,cells,dx,params,status,reason,err_max,err_rms,order,ke_gain,
 *                         recovery,recovery_model: the flows with a known answer, per resolution
 *                         (case standing_wave: rheo_known_wave; the blob cases:
 *                         rheo_known_blob, where cells is R / dx; case balls: the
 *                         yardstick's one row, balls_yardstick)
 *   rheology_known_signal.csv solver,dim,case,cells,t,amp,model: their signals, A / A(0) and the model's
 *   rheology_calibration.csv solver,dim,dx,iteration,params,G,lambda,eta_s,G_rel,lambda_rel,eta_s_rel,status,reason,
 *                         G_ref,lambda_ref,eta_s_ref
 *                         (against scenes/viscoelastic.ini; rheo_calibrate says how)
 *   rheology_signal.csv   solver,dim,length,t,amp
 *   rheology_waves.csv    solver,dim,dx,length,k,status,reason,response,beta,beta_err,omega,omega_err,
 *                         eta_re,eta_im,nu_eff,nu_err
 *   rheology_moduli.csv   solver,dim,omega,Gp,Gpp,Gp_stated,Gpp_stated
 *   rheology_summary.csv  solver,dim,dx,response,n_waves,G,G_err,lambda,lambda_err,inv_lambda,
 *                         inv_lambda_err,eta_s,eta_s_err,eta_viscous,G_stated,lambda_stated,
 *                         eta_s_stated,G_rel,lambda_rel
 *   rheology_scaling.csv  solver,param,base,value,response_base,response,G_base,G,lambda_base,
 *                         lambda,dlnG_dlnp,dlnlambda_dlnp
 * The scaling rows: each viscoelastic parameter doubled alone (mao_yang's mu_e
 * and lambda, clavet's k_spring and its two plasticity rates alpha together)
 * at the quick setup (2D, 5 mm), in the start-up, and the exponents of G and
 * lambda in it: which combinations of parameters the material depends on,
 * and how (the varies table says about which point); response_base and
 * response the part fitted (total or springs), none when a fit failed.
 * The summary's response: maxwell (two or more waves oscillate: the fit),
 * viscous (none does), none (a blow-up, or a single oscillating wave). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/fit.h"
#include "../core/maxwell.h"
#include "../core/scene.h"
#include "experiment.h"
#include "fluid.h"
#include "material.h"

#define RHEO_RHO 1000.0
#define RHEO_NWAVE 3

typedef struct rheo_setup {
    int dim;
    double spacing;
    double cells[RHEO_NWAVE]; /* wavelengths in spacings */
    int quick;                /* 1: the quick version runs this setup (and no other) */
} rheo_setup;

static const rheo_setup setups[] = {
    {2, 0.0025, {40, 30, 20}, 0},
    {3, 0.005, {20, 15, 10}, 0},
    {2, 0.005, {20, 15, 10}, 1},
};

/* One wave's measurement (see the header). */
typedef struct rheo_wave {
    double k, beta, beta_err, omega, omega_err, nu, nu_err;
    const char *response; /* elastic (it oscillates: beta, omega), viscous (nu), none */
} rheo_wave;

static rheo_wave measure_wave(const material_wave_signal *w)
{
    rheo_wave r = {w->k, NAN, NAN, NAN, NAN, NAN, NAN, "none"};
    if (w->unstable || w->n < 8 || !(w->a[0] > 0))
        return r;
    size_t crossings = 0;
    for (size_t i = 1; i < w->n; i++)
        crossings += (w->a[i] > 0) != (w->a[i - 1] > 0);
    if (crossings >= 2) {
        const size_t nw = fit_ringdown_window(w->a, w->n, 0.005);
        pfb_fit_result fr;
        pfb_err e;
        if (fit_damped_cosine_guess_about(w->t, w->a, nw, 0.0, fr.guess, &e) == 0 &&
            fit_damped_cosine_from(w->t, w->a, nw, &fr, &e) == 0 && fr.p[FIT_OMEGA] > 0 && fr.p[FIT_BETA] > 0) {
            r.beta = fr.p[FIT_BETA];
            r.beta_err = fr.err[FIT_BETA];
            r.omega = fr.p[FIT_OMEGA];
            r.omega_err = fr.err[FIT_OMEGA];
            r.response = "elastic";
        }
        return r;
    }
    if (material_wave_decay(w->t, w->a, w->n, w->k, &r.nu, &r.nu_err))
        r.response = "viscous";
    return r;
}

/* The material a solver's parameters state (see the header), from a wave run's run.meta. */
static pfb_maxwell stated_material(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, const char *id)
{
    pfb_maxwell m = {NAN, NAN, NAN};
    if (!strcmp(so->name, "mao_yang")) {
        m.G = 0.5 * material_meta_value(ctx, id, "solver.mu_e");
        m.lambda = material_meta_value(ctx, id, "solver.lambda");
        const double mu = material_meta_value(ctx, id, "solver.viscosity");
        m.eta_s = mu >= 0 ? mu : NAN;
    } else if (!strcmp(so->name, "muller")) { /* eq. 14's mu (Pa s; negative: the alpha form, none stated) */
        const double mu = material_meta_value(ctx, id, "solver.viscosity");
        m.eta_s = mu >= 0 ? mu : NAN;
    }
    return m;
}

/* One material: the three waves of setup su (ids tagged with tag, the
 * settings vary added when not NULL: at most two, NULL-terminated), their
 * fits, and the Maxwell fit. */
typedef struct rheo_result {
    pfb_maxwell_fit mf;
    pfb_maxwell stated;
    double omegas[RHEO_NWAVE], eta_viscous;
    size_t nosc;
    const char *response; /* maxwell, viscous or none */
} rheo_result;

static int rheo_material(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, const rheo_setup *su, const char *tag,
                         const char *const *vary, FILE *sig, FILE *waves, rheo_result *out, pfb_err *err)
{
    double ks[RHEO_NWAVE], sums[RHEO_NWAVE], prods[RHEO_NWAVE], eta_sum = 0.0;
    size_t nvisc = 0, nbad = 0;
    out->nosc = 0;
    out->stated = (pfb_maxwell){NAN, NAN, NAN};
    out->mf = (pfb_maxwell_fit){{NAN, NAN, NAN}, {NAN, NAN, NAN}, NAN, NAN};
    out->response = "none";
    out->eta_viscous = NAN;
    for (int q = 0; q < RHEO_NWAVE; q++) {
        const double L = su->cells[q] * su->spacing;
        char id[160];
        snprintf(id, sizeof id, "%s_rheo_%dd_dx%g_L%.0f%s", so->name, su->dim, su->spacing, su->cells[q], tag);
        const char *sets[] = {"scene.amplitude=0.02", "run.frames=500", vary ? vary[0] : NULL,
                              vary && vary[0] ? vary[1] : NULL, NULL};
        material_wave_signal w;
        int rc = material_wave_run(ctx, "rheology", id, so, su->dim, su->spacing, su->cells[q], 0.5, sets, NULL, &w,
                                   err);
        if (rc)
            return rc;
        for (size_t i = 0; sig && i < w.n; i++)
            fprintf(sig, "%s,%d,%.6g,%.9g,%.10g\n", so->name, su->dim, L, w.t[i], w.a[i]);
        const rheo_wave r = measure_wave(&w);
        const double k2 = r.k * r.k;
        if (waves)
            fprintf(waves, "%s,%d,%.6g,%.6g,%.10g,%s,%s,%s,%.10g,%.6g,%.10g,%.6g,%.10g,%.10g,%.10g,%.6g\n", so->name,
                    su->dim, su->spacing, L, r.k, w.unstable ? "unstable" : "ok", w.status, r.response, r.beta,
                    r.beta_err, r.omega, r.omega_err, RHEO_RHO * r.beta / k2, -RHEO_RHO * r.omega / k2, r.nu, r.nu_err);
        if (!strcmp(r.response, "elastic")) {
            ks[out->nosc] = r.k;
            sums[out->nosc] = -2.0 * r.beta;
            prods[out->nosc] = r.beta * r.beta + r.omega * r.omega;
            out->omegas[out->nosc++] = r.omega;
        } else if (!strcmp(r.response, "viscous")) {
            eta_sum += RHEO_RHO * r.nu;
            nvisc++;
        } else {
            nbad++;
        }
        if (q == RHEO_NWAVE - 1) /* the parameters are the same in every wave's run.meta */
            out->stated = stated_material(ctx, so, id);
        material_wave_signal_free(&w);
    }
    pfb_err ferr;
    if (out->nosc >= 2 && maxwell_fit(ks, sums, prods, out->nosc, RHEO_RHO, &out->mf, &ferr) == 0)
        out->response = "maxwell";
    else if (nvisc > 0 && out->nosc == 0 && nbad == 0)
        out->response = "viscous";
    out->eta_viscous = nvisc ? eta_sum / (double)nvisc : NAN;
    return PFB_OK;
}

/* ---- start-up of shear on a sheared box (the header) ---------------------- */

#define RHEO_STARTUP_RATE 1.0
#define RHEO_STARTUP_CELLS 20.0
#define RHEO_STARTUP_T 0.15
#define RHEO_STARTUP_T_SPRINGS 0.6

static int solver_has_param(const pfb_solver_ops *so, const char *name);

#define RHEO_STARTUP_RATE_SPRINGS 0.25

/* The start-up's and the flow curve's duration: 0.15 s, 7.5 of mao_yang's
 * lambda; 0.6 s with springs, 5.4 of the 1 / alpha = 0.111 s that the
 * paper's alpha makes (scenes/rheology.ini).  The start-up's rate: 1 1/s, and
 * 0.25 1/s with springs, so that both end at a shear strain of 0.15, where
 * the springs' network is still the lattice's (at a strain of order 0.3 pairs
 * leave h and new springs form, resting at h). */
static double rheo_t(const pfb_solver_ops *so)
{
    return solver_has_param(so, "k_spring") ? RHEO_STARTUP_T_SPRINGS : RHEO_STARTUP_T;
}

static double rheo_rate(const pfb_solver_ops *so)
{
    return solver_has_param(so, "k_spring") ? RHEO_STARTUP_RATE_SPRINGS : RHEO_STARTUP_RATE;
}

static const char *const startup_names[] = {"sigma_xy", "n1", "n2", NULL};

typedef struct startup_ctx {
    double gamma, L;
    unsigned char *in;
    size_t cap;
} startup_ctx;

/* The box's virial shear stress (the header) and its normal stress
 * differences N1 = sigma_xx - sigma_yy and N2 = sigma_yy - sigma_zz (3D; NaN
 * in 2D), sigma_kk = -(sum m v'_k^2 + W_kk) / V from the same pass. */
static void startup_row(void *vctx, const pfb_sim *sim, const pfb_solver_ops *so, const void *state, double *values)
{
    startup_ctx *c = vctx;
    const pfb_particles *p = &sim->p;
    values[0] = values[1] = values[2] = NAN;
    if (!so->pair_virial || p->n == 0 || !material_marks(&c->in, &c->cap, p->n))
        return;
    memset(c->in, 1, p->n);
    double w[4];
    so->pair_virial(state, sim, c->in, w);
    double K = 0.0, Kd[3] = {0.0, 0.0, 0.0};
    for (size_t i = 0; i < p->n; i++) {
        const double vx = p->v[0][i] - c->gamma * (p->x[1][i] - 0.5 * c->L);
        K += p->m[i] * vx * p->v[1][i];
        Kd[0] += p->m[i] * vx * vx;
        for (int k = 1; k < sim->dim; k++)
            Kd[k] += p->m[i] * p->v[k][i] * p->v[k][i];
    }
    const double V = pow(c->L, sim->dim);
    values[0] = -(K + w[3]) / V;
    values[1] = ((Kd[1] + w[1]) - (Kd[0] + w[0])) / V;
    if (sim->dim == 3)
        values[2] = ((Kd[2] + w[2]) - (Kd[1] + w[1])) / V;
}

/* sigma = a + b (1 - exp(-t / lambda)) for a given lambda: a and b by linear
 * least squares; returns the sum of squares. */
static double startup_lsq(const double *t, const double *y, size_t n, double lambda, double *a, double *b)
{
    double s1 = 0, sx = 0, sxx = 0, sy = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        const double x = 1.0 - exp(-t[i] / lambda);
        s1 += 1.0;
        sx += x;
        sxx += x * x;
        sy += y[i];
        sxy += x * y[i];
    }
    const double det = s1 * sxx - sx * sx;
    *a = det != 0 ? (sxx * sy - sx * sxy) / det : NAN;
    *b = det != 0 ? (s1 * sxy - sx * sy) / det : NAN;
    double r2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double e = y[i] - *a - *b * (1.0 - exp(-t[i] / lambda));
        r2 += e * e;
    }
    return r2;
}

/* The start-up fit (the header): eta_s, G, lambda and the rms residual. */
static void startup_fit(const double *t, const double *y, size_t n, double gamma, double out[4])
{
    out[0] = out[1] = out[2] = out[3] = NAN;
    if (n < 8)
        return;
    const double gr = 0.5 * (sqrt(5.0) - 1.0);
    double lo = log(1e-4), hi = log(10.0), a, b;
    double x1 = hi - gr * (hi - lo), x2 = lo + gr * (hi - lo);
    double f1 = startup_lsq(t, y, n, exp(x1), &a, &b), f2 = startup_lsq(t, y, n, exp(x2), &a, &b);
    for (int it = 0; it < 200 && hi - lo > 1e-10; it++) {
        if (f1 < f2) {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - gr * (hi - lo);
            f1 = startup_lsq(t, y, n, exp(x1), &a, &b);
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + gr * (hi - lo);
            f2 = startup_lsq(t, y, n, exp(x2), &a, &b);
        }
    }
    const double lambda = exp(0.5 * (lo + hi));
    const double r2 = startup_lsq(t, y, n, lambda, &a, &b);
    out[0] = a / gamma;
    out[1] = b / (lambda * gamma);
    out[2] = lambda;
    out[3] = sqrt(r2 / (double)n);
}

/* A method with no elastic parameter (neither mao_yang's mu_e nor clavet's
 * springs): Newtonian by construction. */
static int solver_newtonian(const pfb_solver_ops *so)
{
    return !solver_has_param(so, "mu_e") && !solver_has_param(so, "k_spring");
}

/* The start-up of a Newtonian method: sigma = eta gamma at every t, so eta =
 * the mean stress over gamma, G = 0 and no lambda; rms about the mean. */
static void newtonian_fit(const double *y, size_t n, double gamma, double out[4])
{
    out[0] = out[3] = NAN;
    out[1] = 0.0;
    out[2] = NAN;
    if (n == 0)
        return;
    double s = 0.0, s2 = 0.0;
    for (size_t i = 0; i < n; i++)
        s += y[i];
    const double mean = s / (double)n;
    for (size_t i = 0; i < n; i++)
        s2 += (y[i] - mean) * (y[i] - mean);
    out[0] = mean / gamma;
    out[3] = sqrt(s2 / (double)n);
}

/* A sheared box's run (the header's start-up at rate gdot; with a yield when
 * yield > 0): its stress series, the stated material, or the refusal. */
typedef struct shear_series {
    double *t, *y; /* t > 0 and a finite stress (t = 0: the solver's fields are not made yet) */
    double *ys;    /* the springs' part of y (clavet's spring_virial_xy), NaN without springs */
    double *n1, *n2; /* the normal stress differences at the same samples (N2 NaN in 2D) */
    double h;      /* the solver's interaction radius (its diag column h), NaN if it has none */
    size_t n;
    int refused, unstable;
    char status[520]; /* the refusal or the blow-up */
    pfb_maxwell stated;
    pfb_maxwell springs; /* what clavet's springs state (springs_stated); NaN without springs */
} shear_series;

/* A reason without commas or quotes (';' instead), for the files whose
 * columns after the reason are read by field (scripts/tables.sh). */
static void csv_safe(char *s)
{
    for (; *s; s++)
        if (*s == ',' || *s == '"')
            *s = ';';
}

/* clavet's frame, its T0: k_spring and alpha are given per frame (solvers/clavet.c) */
#define RHEO_CLAVET_FRAME (1.0 / 30.0)

/* What clavet's springs state (core/maxwell.h, maxwell_spring_modulus): the
 * affine modulus of the lattice's springs, and 1 / alpha when both yield
 * ratios are 0 and both plasticity rates equal (otherwise NaN: a spring is
 * elastic below its yield strain); no solvent (the springs' part alone). */
static pfb_maxwell springs_stated(const pfb_exp_ctx *ctx, const char *id, const rheo_setup *su, double h)
{
    const double T0 = RHEO_CLAVET_FRAME;
    const double k = material_meta_value(ctx, id, "solver.k_spring") / (T0 * T0);
    const double as = material_meta_value(ctx, id, "solver.alpha_stretch") / T0,
                 ac = material_meta_value(ctx, id, "solver.alpha_compress") / T0;
    const double gs = material_meta_value(ctx, id, "solver.gamma_stretch"),
                 gc = material_meta_value(ctx, id, "solver.gamma_compress");
    pfb_maxwell m = {maxwell_spring_modulus(su->dim, su->spacing, h, RHEO_RHO, k), NAN, 0.0};
    if (gs == 0.0 && gc == 0.0 && as == ac && as > 0)
        m.lambda = 1.0 / as;
    return m;
}

static int rheo_shear(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, const rheo_setup *su, double gdot,
                      double yield, double t_end, const char *tag, const char *const *more, FILE *sig,
                      shear_series *o, pfb_err *err)
{
    memset(o, 0, sizeof *o);
    o->stated = o->springs = (pfb_maxwell){NAN, NAN, NAN};
    o->h = NAN;
    const double L = RHEO_STARTUP_CELLS * su->spacing;
    char id[200], sdim[32], spacing[64], len[64], rate[64], tend[64], frames[64], sy[64];
    if (tag)
        snprintf(id, sizeof id, "%s_rheo_%s_%dd_dx%g", so->name, tag, su->dim, su->spacing);
    else if (gdot == rheo_rate(so) && yield == 0.0)
        snprintf(id, sizeof id, "%s_rheo_startup_%dd_dx%g", so->name, su->dim, su->spacing);
    else
        snprintf(id, sizeof id, "%s_rheo_flow_%dd_dx%g_rate%g_yield%g", so->name, su->dim, su->spacing, gdot, yield);
    snprintf(sdim, sizeof sdim, "run.dim=%d", su->dim);
    snprintf(spacing, sizeof spacing, "run.spacing=%.17g", su->spacing);
    snprintf(len, sizeof len, "scene.length=%.17g", L);
    snprintf(rate, sizeof rate, "scene.shear_rate=%.17g", gdot);
    snprintf(tend, sizeof tend, "run.t_end=%.17g", t_end);
    snprintf(frames, sizeof frames, "run.frames=%d", (int)lround(t_end * 1000.0));
    snprintf(sy, sizeof sy, "solver.yield=%.17g", yield);
    const char *sets[24] = {sdim, spacing, len, rate, tend, frames, "scene.amplitude=0"};
    size_t ns = 7;
    if (yield > 0)
        sets[ns++] = sy;
    for (size_t q = 0; more && more[q] && ns < 23; q++)
        sets[ns++] = more[q];
    sets[ns] = NULL;
    startup_ctx sc = {gdot, L, NULL, 0};
    exp_extra extra = {startup_names, NULL, &sc, startup_row};
    exp_run_spec spec = {"rheology", id, so, "shear_wave", sets, &extra, 0};
    /* a method that refuses a sheared box: its create's message */
    double dt;
    pfb_err refusal;
    if (exp_suggest_dt(ctx, &spec, &dt, &refusal) != PFB_OK) {
        o->refused = 1;
        snprintf(o->status, sizeof o->status, "%s", refusal.msg);
        return PFB_OK;
    }
    exp_run_out out;
    int rc = exp_run(ctx, &spec, &out, err);
    free(sc.in);
    if (rc)
        return rc;
    const csv_table *x = &out.extra, *se = &out.series;
    const int ct = csv_table_col(x, "t"), cs = csv_table_col(x, "sigma_xy"), c1 = csv_table_col(x, "n1"),
              c2 = csv_table_col(x, "n2");
    const int st = csv_table_col(se, "t"), sw = csv_table_col(se, "spring_virial_xy"), sh = csv_table_col(se, "h");
    if (sh >= 0 && se->nrow > 0)
        o->h = csv_table_get(se, se->nrow - 1, sh);
    o->t = malloc((x->nrow + 1) * sizeof *o->t);
    o->y = malloc((x->nrow + 1) * sizeof *o->y);
    o->ys = malloc((x->nrow + 1) * sizeof *o->ys);
    o->n1 = malloc((x->nrow + 1) * sizeof *o->n1);
    o->n2 = malloc((x->nrow + 1) * sizeof *o->n2);
    for (size_t r = 0; r < x->nrow && o->t && o->y && o->ys && o->n1 && o->n2; r++) {
        const double tv = csv_table_get(x, r, ct), v = csv_table_get(x, r, cs);
        /* the frame's row of series.csv (the same frames, in order) */
        const double vs = sw >= 0 && r < se->nrow && csv_table_get(se, r, st) == tv
                              ? -csv_table_get(se, r, sw) / pow(L, su->dim)
                              : NAN;
        if (sig)
            fprintf(sig, "%s,%d,%.6g,%.6g,%.9g,%.10g,%.10g\n", so->name, su->dim, su->spacing, gdot, tv, v, vs);
        if (tv > 0 && isfinite(v)) {
            o->t[o->n] = tv;
            o->ys[o->n] = vs;
            o->n1[o->n] = c1 >= 0 ? csv_table_get(x, r, c1) : NAN;
            o->n2[o->n] = c2 >= 0 ? csv_table_get(x, r, c2) : NAN;
            o->y[o->n++] = v;
        }
    }
    o->unstable = out.unstable;
    snprintf(o->status, sizeof o->status, "%s", out.unstable ? out.status : "");
    o->stated = stated_material(ctx, so, id);
    if (isfinite(o->h) && o->n > 0 && isfinite(o->ys[0]))
        o->springs = springs_stated(ctx, id, su, o->h);
    exp_run_out_free(&out);
    return PFB_OK;
}

static void shear_series_free(shear_series *o)
{
    free(o->t);
    free(o->y);
    free(o->ys);
    free(o->n1);
    free(o->n2);
}

/* The fluid's part of series o (the total less the springs'), in place of
 * the springs' part: the last use of ys. */
static void springs_to_fluid(shear_series *o)
{
    for (size_t i = 0; i < o->n; i++)
        o->ys[i] = o->y[i] - o->ys[i];
}

/* One start-up fit row: part total (the virial's stress) or springs (its
 * springs' part), against what the parameters state. */
static void startup_row_out(FILE *fit, const pfb_solver_ops *so, const rheo_setup *su, double gdot, const char *part,
                            const shear_series *o, const double f[4], const pfb_maxwell *st)
{
    fprintf(fit, "%s,%d,%.6g,%.6g,%s,%s,\"%s\",%.10g,%.10g,%.10g,%.6g,%.10g,%.10g,%.10g,%.6g,%.6g\n", so->name, su->dim,
            su->spacing, gdot, part, o->unstable ? "unstable" : "ok", o->status, f[0], f[1], f[2], f[3], st->G,
            st->lambda, st->eta_s, f[1] / st->G - 1.0, f[2] / st->lambda - 1.0);
}

/* The fit of the springs' part of series o into f (NaN without springs). */
static void springs_fit(const shear_series *o, double gdot, double f[4])
{
    f[0] = f[1] = f[2] = f[3] = NAN;
    if (o->unstable || o->n == 0 || !isfinite(o->ys[0]))
        return;
    startup_fit(o->t, o->ys, o->n, gdot, f);
}

/* The start-up run of solver so at setup su: its signal and its fit rows
 * (the total, and for a method with springs their part); the total's fit
 * (eta_s, G, lambda, rms: NaN when refused or unstable) into f, the springs'
 * into fs. */
static int rheo_startup(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, const rheo_setup *su, FILE *sig,
                        FILE *fit, double f[4], double fs[4], double *h, pfb_err *err)
{
    *h = NAN;
    f[0] = f[1] = f[2] = f[3] = NAN;
    fs[0] = fs[1] = fs[2] = fs[3] = NAN;
    shear_series o;
    int rc = rheo_shear(ctx, so, su, rheo_rate(so), 0.0, rheo_t(so), NULL, NULL, sig, &o, err);
    if (rc)
        return rc;
    if (o.refused) {
        fprintf(fit, "%s,%d,%.6g,%.6g,total,refused,\"%s\",,,,,,,,,\n", so->name, su->dim, su->spacing,
                rheo_rate(so), o.status);
        return PFB_OK;
    }
    *h = o.h;
    if (solver_newtonian(so))
        newtonian_fit(o.y, o.unstable ? 0 : o.n, rheo_rate(so), f);
    else
        startup_fit(o.t, o.y, o.unstable ? 0 : o.n, rheo_rate(so), f);
    startup_row_out(fit, so, su, rheo_rate(so), "total", &o, f, &o.stated);
    springs_fit(&o, rheo_rate(so), fs);
    if (isfinite(o.springs.G)) {
        startup_row_out(fit, so, su, rheo_rate(so), "springs", &o, fs, &o.springs);
        double ff[4]; /* the fluid's part (stated: nothing) */
        springs_to_fluid(&o);
        startup_fit(o.t, o.ys, o.unstable ? 0 : o.n, rheo_rate(so), ff);
        startup_row_out(fit, so, su, rheo_rate(so), "fluid", &o, ff, &(pfb_maxwell){NAN, NAN, NAN});
    }
    shear_series_free(&o);
    return PFB_OK;
}

/* The flow curve: steady shear at these rates, the plain material and with a
 * yield (a solver with a "yield" parameter: mao_yang's eq. 17); the steady
 * stress is the mean over the last third of the run (at least 2.5 lambda after
 * the start for lambda = 0.02 s), against the stated model's over the same
 * times (maxwell_shear, plus eta_s gdot). */
static const double flow_rates[] = {0.5, 2.0, 8.0, 32.0};
static const double flow_yields[] = {0.0, 20.0};

static int solver_has_param(const pfb_solver_ops *so, const char *name)
{
    for (const pfb_param_spec *q = so->params; q && q->name; q++)
        if (!strcmp(q->name, name))
            return 1;
    return 0;
}

static void climb_row(FILE *f, const char *solver, int dim, double dx, double gdot, const char *source, double psi1,
                      double psi2, double lambda);

/* In 3D the flow curve's two fastest rates without a yield only, for the
 * normal stress differences (N2 needs a third axis): the slower rates' N1 =
 * Psi1 gdot^2 is below the pressure's scatter. */
static int rheo_flow(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, const rheo_setup *su, FILE *flow,
                     FILE *climb, double lambda_ref, double eta_newton, pfb_err *err)
{
    const size_t nrates = sizeof flow_rates / sizeof flow_rates[0];
    for (size_t yi = 0; yi < sizeof flow_yields / sizeof flow_yields[0]; yi++) {
        const double yield = flow_yields[yi];
        if (yield > 0 && (!solver_has_param(so, "yield") || su->dim == 3))
            continue;
        for (size_t ri = su->dim == 3 ? nrates - 2 : 0; ri < nrates; ri++) {
            const double gdot = flow_rates[ri];
            shear_series o;
            int rc = rheo_shear(ctx, so, su, gdot, yield, rheo_t(so), NULL, NULL, NULL, &o, err);
            if (rc)
                return rc;
            if (o.refused) {
                fprintf(flow, "%s,%d,%.6g,%.6g,%.6g,total,refused,\"%s\",,,,,,,,,,\n", so->name, su->dim,
                        su->spacing, yield, gdot, o.status);
                if (ri == 0)
                    break; /* one refusal row per material */
                continue;
            }
            static const char *const parts[] = {"total", "springs", "fluid"};
            for (int part = 0; part < 3; part++) {
                const pfb_maxwell *st = part == 1 ? &o.springs : part == 2 ? &(pfb_maxwell){NAN, NAN, NAN} : &o.stated;
                if (part && !isfinite(o.springs.G))
                    break;
                if (part == 2) /* the fluid's part (stated: nothing) */
                    springs_to_fluid(&o);
                const double *y = part ? o.ys : o.y;
                /* sums over the last third: stress, its square, the model's; N1 and N2 (the whole stress) */
                double s = 0, s2 = 0, sm = 0, c = 0, a1 = 0, a1s = 0, m1 = 0, a2 = 0, a2s = 0, m2 = 0;
                for (size_t i = 0; i < o.n && !o.unstable; i++) {
                    if (!(o.t[i] >= rheo_t(so) * 2.0 / 3.0))
                        continue;
                    s += y[i];
                    s2 += y[i] * y[i];
                    a1 += o.n1[i];
                    a1s += o.n1[i] * o.n1[i];
                    a2 += o.n2[i];
                    a2s += o.n2[i] * o.n2[i];
                    if (part == 0 && isfinite(eta_newton)) { /* a Newtonian method: its waves' viscosity */
                        sm += eta_newton * gdot;
                    } else if (!isfinite(st->G) || !isfinite(st->lambda)) {
                        sm = m1 = m2 = NAN;
                    } else if (part == 1) { /* the springs: linear Maxwell */
                        sm += st->G * st->lambda * gdot * (1.0 - exp(-o.t[i] / st->lambda));
                    } else {
                        double T[3];
                        maxwell_shear(st->G, st->lambda, yield, gdot, o.t[i], 2000, T);
                        sm += T[1] + (isfinite(st->eta_s) ? st->eta_s : 0.0) * gdot;
                        m1 += T[0] - T[2]; /* N1 = T_xx - T_yy; T_zz = 0 in simple shear: N2 = T_yy */
                        m2 += T[2];
                    }
                    c += 1.0;
                }
                const double mean = c > 0 ? s / c : NAN, sd = c > 1 ? sqrt(fmax(s2 / c - mean * mean, 0.0)) : NAN;
                const double model = c > 0 ? sm / c : NAN;
                fprintf(flow, "%s,%d,%.6g,%.6g,%.6g,%s,%s,\"%s\",%.10g,%.6g,%.10g,%.6g", so->name, su->dim,
                        su->spacing, yield, gdot, parts[part], o.unstable ? "unstable" : "ok",
                        o.status, mean, sd, model, mean / model - 1.0);
                if (part == 0 && c > 1) {
                    const double n1 = a1 / c, n2 = a2 / c;
                    if (su->dim == 3) {
                        fprintf(flow, ",%.10g,%.6g,%.10g,%.10g,%.6g,%.10g\n", n1, sqrt(fmax(a1s / c - n1 * n1, 0.0)),
                                m1 / c, n2, sqrt(fmax(a2s / c - n2 * n2, 0.0)), m2 / c);
                        if (yield == 0.0) {
                            const double g2 = gdot * gdot;
                            climb_row(climb, so->name, 3, su->spacing, gdot, "measured", n1 / g2, n2 / g2, lambda_ref);
                            climb_row(climb, so->name, 3, su->spacing, gdot, "stated", m1 / c / g2, m2 / c / g2,
                                      lambda_ref);
                        }
                    } else {
                        fprintf(flow, ",%.10g,%.6g,%.10g,,,\n", n1, sqrt(fmax(a1s / c - n1 * n1, 0.0)), m1 / c);
                    }
                } else {
                    fprintf(flow, ",,,,,,\n");
                }
            }
            shear_series_free(&o);
        }
    }
    return PFB_OK;
}

/* Item 3: the calibration to the viscoelastic reference (scenes/viscoelastic.ini,
 * experiments/fluid.h), from the start-up, which runs 0.25 s (five reference
 * lambdas), with one correction measured again.
 *
 * mao_yang states G = mu_e / 2, lambda and eta_s directly: it starts there,
 * and corrects each by the ratio of the reference to the fit (G ~ mu_e and
 * lambda ~ lambda with exponents 1 and 1, neither on the other:
 * rheology_scaling.csv).
 *
 * clavet's springs: both yield ratios 0 (each spring a Maxwell element,
 * core/maxwell.h), alpha = 1 / lambda and k_spring from the affine modulus
 * (maxwell_spring_modulus at the rheometer's h, which the lattice and rho0
 * fix), then k_spring and alpha corrected by the ratios of the springs' part
 * of the stress to the reference (G ~ k_spring, lambda ~ 1 / alpha).  The
 * springs' part is what is calibrated; the row's reason gives the whole
 * material's fit, whose fluid part is not a Newtonian solvent (the flow curve
 * with springs off: a yield stress of some hundred Pa), so eta_s is not
 * calibrated.  A method without springs or Maxwell stress has no elastic
 * parameter. */
#define RHEO_CAL_T 0.25

/* The calibration's first guess p for the reference (the header above):
 * mao_yang's mu_e, lambda, viscosity; clavet's k_spring and alpha (per frame)
 * at interaction radius h.  Returns 0 when there is none (no springs and no
 * Maxwell stress, or no h). */
static int cal_start(const pfb_solver_ops *so, const rheo_setup *su, const pfb_viscoelastic *ref, double h,
                     double p[3])
{
    const double T0 = RHEO_CLAVET_FRAME;
    if (solver_has_param(so, "k_spring")) {
        const double G1 = maxwell_spring_modulus(su->dim, su->spacing, h, RHEO_RHO, 1.0); /* per unit k */
        if (!(G1 > 0))
            return 0;
        p[0] = ref->G / G1 * T0 * T0; /* k_spring per frame^2 */
        p[1] = T0 / ref->lambda;     /* alpha per frame */
        p[2] = NAN;
        return 1;
    }
    if (strcmp(so->name, "mao_yang"))
        return 0;
    p[0] = 2.0 * ref->G;
    p[1] = ref->lambda;
    p[2] = ref->eta_s;
    return 1;
}

/* The settings of material p (cal_start's parameters) into sets (at most 5
 * and a NULL; the text in buf) and its description into params. */
static void material_sets(const pfb_solver_ops *so, const double p[3], char buf[5][64], const char *sets[6],
                          char *params, size_t np)
{
    if (solver_has_param(so, "k_spring")) {
        snprintf(buf[0], 64, "solver.k_spring=%.10g", p[0]);
        snprintf(buf[1], 64, "solver.alpha_stretch=%.10g", p[1]);
        snprintf(buf[2], 64, "solver.alpha_compress=%.10g", p[1]);
        snprintf(buf[3], 64, "solver.gamma_stretch=0");
        snprintf(buf[4], 64, "solver.gamma_compress=0");
        snprintf(params, np, "k_spring=%.6g alpha=%.6g gamma=0", p[0], p[1]);
        for (int i = 0; i < 5; i++)
            sets[i] = buf[i];
        sets[5] = NULL;
        return;
    }
    snprintf(buf[0], 64, "solver.mu_e=%.10g", p[0]);
    snprintf(buf[1], 64, "solver.lambda=%.10g", p[1]);
    snprintf(buf[2], 64, "solver.viscosity=%.10g", p[2]);
    snprintf(params, np, "mu_e=%.6g lambda=%.6g viscosity=%.6g", p[0], p[1], p[2]);
    for (int i = 0; i < 3; i++)
        sets[i] = buf[i];
    sets[3] = NULL;
}

/* The start-up of material p at the calibration's rate and duration (run
 * tag), fitted: the total into f, the springs' part into fs; the material's
 * description (material_sets) into params[200]. */
static int cal_run(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, const rheo_setup *su, const double p[3],
                   const char *tag, double f[4], double fs[4], shear_series *o, char params[200], pfb_err *err)
{
    char buf[5][64];
    const char *sets[6];
    material_sets(so, p, buf, sets, params, 200);
    int rc = rheo_shear(ctx, so, su, RHEO_STARTUP_RATE, 0.0, RHEO_CAL_T, tag, sets, NULL, o, err);
    if (rc)
        return rc;
    startup_fit(o->t, o->y, o->unstable ? 0 : o->n, RHEO_STARTUP_RATE, f);
    springs_fit(o, RHEO_STARTUP_RATE, fs);
    return PFB_OK;
}

static int rheo_calibrate(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, const rheo_setup *su,
                          const pfb_viscoelastic *ref, double h, FILE *cal, pfb_maxwell *calm, double pcal[3],
                          pfb_err *err)
{
    const int springs = solver_has_param(so, "k_spring");
    *calm = (pfb_maxwell){NAN, NAN, NAN};
    pcal[0] = pcal[1] = pcal[2] = NAN;
    double p[3];
    if (!cal_start(so, su, ref, h, p)) {
        fprintf(cal, "%s,%d,%.6g,0,\"\",,,,,,,%s,\"%s\",%.10g,%.10g,%.10g\n", so->name, su->dim, su->spacing,
                springs ? "not calibrated" : "newtonian",
                springs ? "no interaction radius from its start-up" : "no elastic parameter", ref->G, ref->lambda,
                ref->eta_s);
        return PFB_OK;
    }
    for (int it = 0; it < 2; it++) {
        char tag[32], params[200];
        snprintf(tag, sizeof tag, "cal%d", it);
        shear_series o;
        double f[4], fs[4];
        int rc = cal_run(ctx, so, su, p, tag, f, fs, &o, params, err);
        if (rc)
            return rc;
        const double *g = springs ? fs : f; /* what is calibrated */
        const double eta = springs ? NAN : f[0];
        *calm = (pfb_maxwell){g[1], g[2], springs ? 0.0 : f[0]};
        memcpy(pcal, p, sizeof p);
        char reason[400] = "";
        if (springs)
            snprintf(reason, sizeof reason,
                     "the springs' part of the stress; the whole material's start-up fit is G %.4g Pa; lambda %.4g s; "
                     "eta_s %.4g Pa s (rms %.3g Pa): its fluid part is not a Newtonian solvent (rheology_flow.csv)",
                     f[1], f[2], f[0], f[3]);
        char st[520];
        snprintf(st, sizeof st, "%s", o.status);
        csv_safe(st);
        fprintf(cal, "%s,%d,%.6g,%d,\"%s\",%.10g,%.10g,%.10g,%.6g,%.6g,%.6g,%s,\"%s%s\",%.10g,%.10g,%.10g\n",
                so->name, su->dim, su->spacing, it, params, g[1], g[2], eta, g[1] / ref->G - 1.0,
                g[2] / ref->lambda - 1.0, eta / ref->eta_s - 1.0, o.unstable ? "unstable" : "ok", st, reason,
                ref->G, ref->lambda, ref->eta_s);
        shear_series_free(&o);
        if (!(g[1] > 0) || !(g[2] > 0) || (!springs && !(f[0] > 0)))
            break;
        p[0] *= ref->G / g[1];
        if (springs) {
            p[1] *= g[2] / ref->lambda;
        } else {
            p[1] *= ref->lambda / g[2];
            p[2] *= ref->eta_s / f[0];
        }
    }
    return PFB_OK;
}

/* Clavet's plasticity with a yield (item 1: the yield stress of each method's
 * yield): the calibrated springs (pcal) with both yield ratios gamma = 0.02,
 * and again with 0, in the springs' start-up (0.25 1/s for 0.6 s, a shear
 * strain of 0.15: past the yield strain, which a pair reaches at a shear
 * strain of 2 gamma / sin 2 theta, and within the springs' lifetime), their
 * part of the stress against the affine model of eq. 8 integrated exactly
 * (maxwell_springs_shear: the same lattice, h, k_spring and alpha, each
 * spring's rest length followed through its yield); the mean over the last
 * third of the run of each, and the model's elastic springs (no relaxation)
 * and Maxwell springs (yield ratio 0) at the same times beside them.  What a
 * yield ratio adds is a yield stress: at a rate slow against alpha the
 * stretched springs sit at their yield strain.  The yield's run once more with
 * the double density relaxation off (k = k_near = 0, no sound speed, h kept:
 * fluid off), where nothing but the springs and the viscosity moves the
 * particles, so the motion stays affine: the model's own case.  2D, at the
 * first 2D setup, h the start-up's. */
#define RHEO_YIELD_RATIO 0.02

static double mean_last_third(const double *t, const double *y, size_t n, double t_end)
{
    double s = 0.0, c = 0.0;
    for (size_t i = 0; i < n; i++)
        if (t[i] >= t_end * 2.0 / 3.0) {
            s += y[i];
            c += 1.0;
        }
    return c > 0 ? s / c : NAN;
}

static int rheo_yield(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, const rheo_setup *su, const double pcal[3],
                      double h, FILE *yf, pfb_err *err)
{
    const double T0 = RHEO_CLAVET_FRAME, gdot = RHEO_STARTUP_RATE_SPRINGS, t_end = RHEO_STARTUP_T_SPRINGS;
    static const double ratios[3] = {RHEO_YIELD_RATIO, RHEO_YIELD_RATIO, 0.0};
    static const int fluid_on[3] = {1, 0, 1};
    for (int q = 0; q < 3; q++) {
        char buf[5][64], params[200], tag[32], g1[64], g2[64], hf[64];
        const char *sets[12];
        material_sets(so, pcal, buf, sets, params, sizeof params);
        snprintf(g1, sizeof g1, "solver.gamma_stretch=%.10g", ratios[q]);
        snprintf(g2, sizeof g2, "solver.gamma_compress=%.10g", ratios[q]);
        snprintf(hf, sizeof hf, "solver.h_factor=%.17g", h / su->spacing);
        sets[3] = g1;
        sets[4] = g2;
        if (!fluid_on[q]) { /* the double density relaxation off, h kept */
            static const char *const off[] = {"solver.k=0", "solver.k_near=0", "solver.sound_speed=0",
                                              "solver.sound_speed_si=0"};
            for (int i = 0; i < 4; i++)
                sets[5 + i] = off[i];
            sets[9] = hf;
            sets[10] = NULL;
        }
        snprintf(params, sizeof params, "k_spring=%.6g alpha=%.6g gamma=%g", pcal[0], pcal[1], ratios[q]);
        snprintf(tag, sizeof tag, "yield%g%s", ratios[q], fluid_on[q] ? "" : "_nofluid");
        shear_series o;
        int rc = rheo_shear(ctx, so, su, gdot, 0.0, t_end, tag, sets, NULL, &o, err);
        if (rc)
            return rc;
        char st[520];
        snprintf(st, sizeof st, "%s", o.status);
        csv_safe(st);
        double sig = NAN, mod = NAN, mel = NAN, mmx = NAN;
        if (!o.unstable && o.n > 0 && isfinite(o.ys[0]) && isfinite(o.h)) {
            double *m = malloc(2 * (o.n + 1) * sizeof *m); /* the model's stresses, then its times */
            if (!m) {
                shear_series_free(&o);
                return pfb_err_set(err, PFB_ENOMEM, "rheology: out of memory for the springs' model");
            }
            double *tt = m + o.n + 1;
            tt[0] = 0.0; /* the model's samples: 0, then the run's */
            memcpy(tt + 1, o.t, o.n * sizeof *tt);
            const double k = pcal[0] / (T0 * T0), a = pcal[1] / T0, *mm = m + 1;
            sig = mean_last_third(o.t, o.ys, o.n, t_end);
            maxwell_springs_shear(su->dim, su->spacing, o.h, RHEO_RHO, k, a, a, ratios[q], ratios[q], gdot, tt,
                                  o.n + 1, m);
            mod = mean_last_third(o.t, mm, o.n, t_end);
            maxwell_springs_shear(su->dim, su->spacing, o.h, RHEO_RHO, k, 0.0, 0.0, 0.0, 0.0, gdot, tt, o.n + 1, m);
            mel = mean_last_third(o.t, mm, o.n, t_end);
            maxwell_springs_shear(su->dim, su->spacing, o.h, RHEO_RHO, k, a, a, 0.0, 0.0, gdot, tt, o.n + 1, m);
            mmx = mean_last_third(o.t, mm, o.n, t_end);
            free(m);
        }
        fprintf(yf, "%s,%d,%.6g,\"%s\",%.6g,%s,%.6g,%.6g,%s,\"%s\",%.10g,%.10g,%.6g,%.10g,%.10g\n", so->name,
                su->dim, su->spacing, params, ratios[q], fluid_on[q] ? "on" : "off", gdot, gdot * t_end,
                o.unstable ? "unstable" : "ok", st, sig, mod, sig / mod - 1.0, mel, mmx);
        shear_series_free(&o);
    }
    return PFB_OK;
}

/* Item 4, a flow with a known answer: the standing shear wave of the reference
 * material, u_x = U sin(k y) in a periodic box of L = 0.1 m (U = 0.02 m/s,
 * the rheometer's), whose amplitude A(t) / A(0) the Maxwell dispersion
 * relation gives (maxwell_wave, core/maxwell.h: for G 500 Pa, lambda 0.05 s,
 * eta_s 11.07 Pa s it rings at 42.8 rad/s and decays at 31.8 1/s), run with
 * each method's calibrated parameters (the first 2D setup's last calibration
 * iteration) at three resolutions, 20, 40 and 80 spacings per wavelength (the
 * quick version 10, 20 and 40), 2D, for 0.2 s (the amplitude falls below
 * 0.2 % of its start).  clavet's springs keep their calibrated modulus at
 * every resolution: k_spring scaled by the ratio of the affine lattice sums
 * (maxwell_spring_modulus, h a fixed number of spacings), which makes G ~
 * k_spring h^2 (h/dx)^dim; alpha is kept.  The error: the largest and the rms
 * difference |A / A(0) - model| over the run's samples; the observed order
 * between successive resolutions, log2 of the ratio of the largest errors;
 * and ke_gain, the run's largest kinetic energy over its initial one, the
 * wave's own (1 when nothing but the wave moves: a particle arrangement that
 * releases energy shows as a gain, whose velocities project on the mode). */
#define RHEO_KW_L 0.1
#define RHEO_KW_T 0.2
static const double kw_cells[2][3] = {{20, 40, 80}, {10, 20, 40}}; /* full, quick */

/* The calibrated parameters pcal at spacing dx into p: clavet's springs keep
 * their calibrated modulus, k_spring scaled by the ratio of the affine lattice
 * sums (maxwell_spring_modulus) at h a fixed number of spacings; the rest as
 * calibrated at setup su. */
static void calibrated_at(const pfb_solver_ops *so, const rheo_setup *su, const double pcal[3], double h, double dx,
                          double p[3])
{
    p[0] = pcal[0];
    p[1] = pcal[1];
    p[2] = pcal[2];
    if (solver_has_param(so, "k_spring"))
        p[0] *= maxwell_spring_modulus(2, su->spacing, h, RHEO_RHO, 1.0) /
                maxwell_spring_modulus(2, dx, h * dx / su->spacing, RHEO_RHO, 1.0);
}

/* The largest kinetic energy of a run's series (its ke column) and, in *gain,
 * that over the first (NaN when the first is not positive); NaN without one. */
static double series_ke_max(const csv_table *se, double *gain)
{
    const int ck = csv_table_col(se, "ke");
    double kmax = NAN;
    if (ck >= 0 && se->nrow > 0) {
        kmax = 0.0;
        for (size_t r = 0; r < se->nrow; r++)
            kmax = fmax(kmax, csv_table_get(se, r, ck));
    }
    if (gain)
        *gain = ck >= 0 && se->nrow > 1 && csv_table_get(se, 0, ck) > 0 ? kmax / csv_table_get(se, 0, ck) : NAN;
    return kmax;
}

static int rheo_known_wave(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, const rheo_setup *su,
                           const pfb_viscoelastic *ref, const double pcal[3], double h, FILE *kw, FILE *ksig,
                           pfb_err *err)
{
    const pfb_maxwell m = {ref->G, ref->lambda, ref->eta_s};
    double emax_prev = NAN;
    for (int q = 0; q < 3; q++) {
        const double cells = kw_cells[ctx->quick ? 1 : 0][q], dx = RHEO_KW_L / cells;
        double p[3];
        calibrated_at(so, su, pcal, h, dx, p);
        char buf[5][64], params[200], id[160];
        const char *msets[6], *sets[10] = {"scene.amplitude=0.02", "run.frames=200"};
        material_sets(so, p, buf, msets, params, sizeof params);
        size_t ns = 2;
        for (size_t i = 0; msets[i] && ns < 9; i++)
            sets[ns++] = msets[i];
        sets[ns] = NULL;
        snprintf(id, sizeof id, "%s_rheo_known_wave_2d_n%g", so->name, cells);
        material_wave_signal w;
        int rc = material_wave_run(ctx, "rheology", id, so, 2, dx, cells, RHEO_KW_T, sets, NULL, &w, err);
        if (rc == PFB_EINVAL) { /* the method refuses these parameters (one line): a row saying so */
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            csv_safe(why);
            fprintf(kw, "%s,2,standing_wave,%g,%.6g,\"%s\",refused,\"%s\",,,,,,\n", so->name, cells, dx, params, why);
            emax_prev = NAN;
            continue;
        }
        if (rc)
            return rc;
        double emax = NAN, erms = NAN;
        if (!w.unstable && w.n > 1 && w.a[0] > 0) {
            double s2 = 0.0;
            emax = 0.0;
            for (size_t i = 0; i < w.n; i++) {
                const double model = maxwell_wave(&m, RHEO_RHO, w.k, w.t[i]), e = w.a[i] / w.a[0] - model;
                emax = fmax(emax, fabs(e));
                s2 += e * e;
                fprintf(ksig, "%s,2,standing_wave,%g,%.9g,%.10g,%.10g\n", so->name, cells, w.t[i], w.a[i] / w.a[0],
                        model);
            }
            erms = sqrt(s2 / (double)w.n);
        }
        const double order = log(emax_prev / emax) / log(2.0);
        csv_safe(w.status);
        /* the largest kinetic energy over the initial one (the run's series.csv) */
        double gain = NAN;
        char path[1200];
        snprintf(path, sizeof path, "%s/runs/%s/series.csv", ctx->out_dir, id);
        csv_table se;
        pfb_err lerr;
        if (csv_table_load(&se, path, &lerr) == 0) {
            series_ke_max(&se, &gain);
            csv_table_free(&se);
        }
        fprintf(kw, "%s,2,standing_wave,%g,%.6g,\"%s\",%s,\"%s\",%.6g,%.6g,%.4g,%.6g,,\n", so->name, cells, dx,
                params, w.unstable ? "unstable" : "ok", w.status, emax, erms, order, gain);
        emax_prev = emax;
        material_wave_signal_free(&w);
    }
    return PFB_OK;
}

/* Item 4, a free-surface flow with a known answer: the blob (the blob scene,
 * Clavet's Figs. 5 and 12, with no gravity), a disc of R = 0.1 m at rest
 * shape, no stress, set moving by the mode-2 potential flow of surface speed
 * U = 0.02 m/s (a peak deformation of 0.02: the linear theory's error is of
 * that order relative), at R / dx = 10, 20 and 40 (the quick version 5 and
 * 10: CI's time), 2D, 0.4 s sampled every 2.5 ms.  The known answer is the
 * deformation D(t) of material.h that the linearised equations give
 * (maxwell_drop_deformation, core/maxwell.h: every mode the flow excites and
 * the creep that a Maxwell material keeps), with the reference fluid's
 * surface tension (scenes/fluid.ini: 0.073 N/m, a Laplace pressure 0.0015 of
 * G at this R).  Two cases:
 *   blob: the viscoelastic methods with their calibrated parameters (as the
 *   wave), against the reference material.  D rises to 0.021 at 0.12 s and
 *   recovers 13 % of that by 0.35 s (its fundamental -13.06 +- 15.14i 1/s,
 *   maxwell_drop_mode); the rest is the flow of a material whose zero-shear
 *   viscosity is eta_s + G lambda = 36 Pa s;
 *   blob_stated: Mao-Yang at the rheometer's parameters (scenes/rheology.ini:
 *   G = mu_e / 2 = 500 Pa, lambda = 0.02 s, a solvent of 1 Pa s, 9 % of its
 *   zero-shear viscosity), against the material they state: the elastic
 *   stress's part of the free surface apart from the solvent's;
 *   blob_newtonian: every method as calibrated to the reference fluid (the
 *   material preset alone, without the rheometer's overrides), against the
 *   reference fluid (G = 0, eta_s = rho nu = 11.07 Pa s).  A potential flow
 *   feels no viscous force inside (lap v = 0): the liquid stops it through
 *   the free surface's condition alone (no tangential stress, the normal
 *   stress balanced by the pressure), which this case measures;
 *   blob_newtonian_nosigma: the same for a method with an explicit surface
 *   tension (muller), that switched off, against the drop without one: the
 *   viscosity's part apart from the surface force's.
 * The errors, as the wave's, relative to the model's peak; ke_gain the run's
 * largest kinetic energy over its first; recovery (D_max - D_min after it) /
 * D_max, the run's and the model's. */
#define RHEO_BLOB_R 0.1
#define RHEO_BLOB_U 0.02
#define RHEO_BLOB_T 0.4
#define RHEO_BLOB_FRAMES 160
static const double blob_cells[2][3] = {{10, 20, 40}, {5, 10, 0}}; /* R / dx: full, quick (0 ends) */

/* (D_max - min of D after it) / D_max over y[0..n). */
static double blob_recovery(const double *y, size_t n)
{
    size_t imax = 0;
    for (size_t i = 1; i < n; i++)
        if (y[i] > y[imax])
            imax = i;
    double lo = y[imax];
    for (size_t i = imax; i < n; i++)
        lo = fmin(lo, y[i]);
    return y[imax] > 0 ? (y[imax] - lo) / y[imax] : NAN;
}

/* One blob case (kase) at three resolutions: material m the model's (NULL:
 * what the run's parameters state, stated_material); more one more setting
 * (or NULL); pcal the
 * method's calibrated parameters (cal_start's, NULL: the material preset as it
 * is, under experiment name preset_exp, which has no overrides file); su and h
 * the calibration's setup and interaction radius (clavet's springs rescaled as
 * the wave's). */
static int rheo_known_blob(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, const char *kase, const char *preset_exp,
                           const pfb_maxwell *m, double sigma, const double *pcal, const char *more,
                           const rheo_setup *su, double h, FILE *kw, FILE *ksig, pfb_err *err)
{
    double emax_prev = NAN;
    exp_extra extra = {material_deformation_names, material_deformation_row, NULL, NULL};
    for (int q = 0; q < 3 && blob_cells[ctx->quick ? 1 : 0][q] > 0; q++) {
        const double cells = blob_cells[ctx->quick ? 1 : 0][q], dx = RHEO_BLOB_R / cells;
        char buf[5][64], params[200], id[160], spacing[64], tend[64], frames[64], rad[64], speed[64];
        const char *msets[6] = {NULL}, *sets[16] = {"run.dim=2", spacing, tend, frames, rad, speed, "scene.gravity=0"};
        snprintf(spacing, sizeof spacing, "run.spacing=%.17g", dx);
        snprintf(tend, sizeof tend, "run.t_end=%.17g", RHEO_BLOB_T);
        snprintf(frames, sizeof frames, "run.frames=%d", RHEO_BLOB_FRAMES);
        snprintf(rad, sizeof rad, "scene.radius=%.17g", RHEO_BLOB_R);
        snprintf(speed, sizeof speed, "scene.speed=%.17g", RHEO_BLOB_U);
        snprintf(params, sizeof params, "%s", m ? "as calibrated" : "stated");
        if (pcal) {
            double p[3];
            calibrated_at(so, su, pcal, h, dx, p);
            material_sets(so, p, buf, msets, params, sizeof params);
        }
        size_t ns = 7;
        for (size_t i = 0; msets[i] && ns < 14; i++)
            sets[ns++] = msets[i];
        if (more)
            sets[ns++] = more;
        sets[ns] = NULL;
        snprintf(id, sizeof id, "%s_rheo_known_%s_2d_n%g", so->name, kase, cells);
        exp_run_spec spec = {preset_exp, id, so, "blob", sets, &extra, 0};
        exp_run_out out;
        int rc = exp_run(ctx, &spec, &out, err);
        if (rc == PFB_EINVAL) { /* the method refuses these parameters (one line): a row saying so */
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            csv_safe(why);
            fprintf(kw, "%s,2,%s,%g,%.6g,\"%s\",refused,\"%s\",,,,,,\n", so->name, kase, cells, dx, params, why);
            emax_prev = NAN;
            continue;
        }
        if (rc)
            return rc;
        const csv_table *x = &out.extra;
        const int ct = csv_table_col(x, "t"), cd = csv_table_col(x, "deformation");
        const size_t n = x->nrow;
        double *t = malloc((n + 1) * sizeof *t), *y = malloc((n + 1) * sizeof *y),
               *model = malloc((n + 1) * sizeof *model);
        if (!t || !y || !model)
            rc = pfb_err_set(err, PFB_ENOMEM, "rheology: the blob's %zu samples", n);
        double emax = NAN, erms = NAN, rec = NAN, rec_model = NAN;
        pfb_maxwell ms = m ? *m : stated_material(ctx, so, id);
        if (!m && !(ms.G >= 0 && ms.lambda > 0 && ms.eta_s >= 0))
            ms.G = ms.lambda = ms.eta_s = NAN; /* no stated material: no model (empty errors) */
        if (!m)
            snprintf(params, sizeof params, "stated G=%.6g lambda=%.6g eta_s=%.6g", ms.G, ms.lambda, ms.eta_s);
        if (!rc && !out.unstable && n > 1 && ct >= 0 && cd >= 0 && isfinite(ms.G)) {
            for (size_t r = 0; r < n; r++) {
                t[r] = csv_table_get(x, r, ct);
                y[r] = csv_table_get(x, r, cd);
            }
            rc = maxwell_drop_deformation(&ms, 2, RHEO_RHO, RHEO_BLOB_R, sigma, RHEO_BLOB_U, t, n, model, err);
            double peak = 0.0, s2 = 0.0;
            for (size_t r = 0; !rc && r < n; r++)
                peak = fmax(peak, fabs(model[r]));
            emax = 0.0;
            for (size_t r = 0; !rc && r < n; r++) {
                const double e = (y[r] - model[r]) / peak;
                emax = fmax(emax, fabs(e));
                s2 += e * e;
                fprintf(ksig, "%s,2,%s,%g,%.9g,%.10g,%.10g\n", so->name, kase, cells, t[r], y[r] / peak,
                        model[r] / peak);
            }
            erms = sqrt(s2 / (double)n);
            rec = blob_recovery(y, n);
            rec_model = blob_recovery(model, n);
        }
        free(t);
        free(y);
        free(model);
        if (rc) {
            exp_run_out_free(&out);
            return rc;
        }
        double gain;
        series_ke_max(&out.series, &gain);
        char reason[320];
        exp_reason(&out, reason, sizeof reason);
        csv_safe(reason);
        const double order = log(emax_prev / emax) / log(2.0);
        fprintf(kw, "%s,2,%s,%g,%.6g,\"%s\",%s,\"%s\",%.6g,%.6g,%.4g,%.6g,%.6g,%.6g\n", so->name, kase, cells, dx,
                params, out.unstable ? "unstable" : "ok", reason, emax, erms, order, gain, rec, rec_model);
        emax_prev = emax;
        exp_run_out_free(&out);
    }
    return PFB_OK;
}

/* The blob at rest (rheology_rest.csv): each method as calibrated to the
 * reference fluid, the blob of R = 0.1 m at R / dx = 20 (quick: 10) without its flow
 * (speed 0), settled for 0.2 s (run.settle: the velocities zeroed after every
 * step, core/run.h) and then let go for 0.1 s.  A method whose rest is a
 * state of balance stays there; the largest kinetic energy over the frames,
 * as an rms speed sqrt(2 KE / M), says how far a method is from one, against
 * the known flows' own speed of 0.02 m/s. */
#define RHEO_REST_SETTLE 0.2
#define RHEO_REST_T 0.1

/* The balls' yardstick (item 4: the balls' elastic recovery against G and
 * lambda): the balls scene at its defaults falls from its height h onto the
 * floor at v = sqrt(2 g (h - R)); the reference material's shear waves run at
 * c = sqrt(G / rho).  A recovery with a known answer needs an impact slow
 * against c (a quasi-static contact, Hertz's, and a linear material); at v > c
 * the impact is a wave-dominated large deformation, which no linear theory
 * gives, so the balls are not compared and the blob (rheo_known_blob) is the
 * free surface's recovery with an answer.  One row of rheology_known.csv:
 * solver reference, case balls, status none, params "impact=v wave=c". */
static double scene_default(const pfb_scene_def *sc, const char *name)
{
    for (const pfb_param_spec *q = sc->params; q && q->name; q++)
        if (!strcmp(q->name, name))
            return q->def;
    return NAN;
}

static void balls_yardstick(FILE *kw, const pfb_viscoelastic *ref)
{
    const pfb_scene_def *sc;
    pfb_err e;
    if (scene_lookup("balls", &sc, &e))
        return;
    const double h = scene_default(sc, "height"), R = scene_default(sc, "radius"), g = scene_default(sc, "gravity"),
                 rho = scene_default(sc, "density");
    const double v = sqrt(2.0 * g * (h - R)), c = sqrt(ref->G / rho);
    fprintf(kw, "reference,2,balls,,,\"impact=%.4g wave=%.4g\",none,\"the impact at %.3g m/s is %.3g times the "
                "shear-wave speed: no linear answer\",,,,,,\n",
            v, c, v, v / c);
}

static int rheo_rest(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, FILE *rest, pfb_err *err)
{
    const double cells = ctx->quick ? 10.0 : 20.0, dx = RHEO_BLOB_R / cells;
    char id[160], spacing[64], tend[64], rad[64], settle[64];
    snprintf(spacing, sizeof spacing, "run.spacing=%.17g", dx);
    snprintf(tend, sizeof tend, "run.t_end=%.17g", RHEO_REST_T);
    snprintf(rad, sizeof rad, "scene.radius=%.17g", RHEO_BLOB_R);
    snprintf(settle, sizeof settle, "run.settle=%.17g", RHEO_REST_SETTLE);
    const char *sets[] = {"run.dim=2", spacing, tend, "run.frames=40", rad, "scene.speed=0", "scene.gravity=0", settle,
                          NULL};
    snprintf(id, sizeof id, "%s_rheo_rest_blob_2d_n%g", so->name, cells);
    exp_run_spec spec = {"rheology_newtonian", id, so, "blob", sets, NULL, 0};
    exp_run_out out;
    int rc = exp_run(ctx, &spec, &out, err);
    if (rc)
        return rc;
    const int cm = csv_table_col(&out.series, "mass");
    const double kmax = series_ke_max(&out.series, NULL);
    const double mass = cm >= 0 && out.series.nrow > 0 ? csv_table_get(&out.series, 0, cm) : NAN;
    char reason[320];
    exp_reason(&out, reason, sizeof reason);
    csv_safe(reason);
    fprintf(rest, "%s,2,%g,%.6g,%.6g,%.6g,%s,\"%s\",%.10g,%.10g,%.6g,%.6g\n", so->name, cells, dx, RHEO_REST_SETTLE,
            RHEO_REST_T, out.unstable ? "unstable" : "ok", reason, kmax, mass, sqrt(2.0 * kmax / mass), RHEO_BLOB_U);
    exp_run_out_free(&out);
    return PFB_OK;
}

/* Item 4, rod climbing (the rod scene: a rod of radius a in a pool, spun at
 * Omega).  A second-order fluid's free surface around the rod, in the limit of
 * a small rotation and no surface tension, follows from the radial balance of
 * the potential vortex v = Omega a^2 / r (shear rate 2 Omega a^2 / r^2) with
 * its normal stresses N1 = Psi1 gdot^2 and N2 = Psi2 gdot^2 (Joseph and
 * Fosdick 1973):
 *     rho g h(r) = (Psi1 + 4 Psi2) Omega^2 a^4 / r^4 - rho Omega^2 a^4 / (2 r^2),
 * so at the rod h(a) = (Omega^2 a^2 / (2 g)) (4 beta / (rho a^2) - 1) with the
 * climbing constant beta = Psi1 / 2 + 2 Psi2: the surface climbs when beta
 * exceeds rho a^2 / 4.  The limit holds while the Weissenberg number at the
 * rod, 2 Omega lambda, is small; here 0.2 (Omega = 0.1 / lambda).
 *
 * The rows (rheology_climb.csv): the normal stress coefficients each 3D
 * flow-curve run measures (the whole stress, no yield: Psi = N / gdot^2) and
 * those of the model its parameters state; the reference material (G,
 * lambda) taken as an upper-convected Maxwell fluid with its solvent
 * (Oldroyd-B: Psi1 = 2 G lambda^2, Psi2 = 0) and as a corotational one
 * (Mao-Yang's eq. 9: Psi1 = 2 G lambda^2 / (1 + (lambda gdot)^2) and Psi2 =
 * -Psi1 / 2, the zero-rate values), source reference_ucm and
 * reference_corotational.  For each, at the rod scene's defaults (a and
 * its 3D spacing, g = 9.81 m/s^2) and the reference's lambda, h_coef =
 * h(a) / Omega^2, and at Omega = 0.1 / lambda h(a) in metres and in
 * spacings. */
#define RHEO_G_ACC 9.81

static void climb_row(FILE *f, const char *solver, int dim, double dx, double gdot, const char *source, double psi1,
                      double psi2, double lambda)
{
    const pfb_scene_def *rod = NULL;
    pfb_err e;
    double a = NAN, rdx = NAN;
    if (scene_lookup("rod", &rod, &e) == 0) {
        for (const pfb_param_spec *q = rod->params; q->name; q++)
            if (!strcmp(q->name, "rod_radius"))
                a = q->def;
        rdx = rod->default_spacing[1];
    }
    const double beta = 0.5 * psi1 + 2.0 * psi2;
    const double coef = a * a / (2.0 * RHEO_G_ACC) * (4.0 * beta / (RHEO_RHO * a * a) - 1.0);
    const double om = 0.1 / lambda, hs = coef * om * om;
    fprintf(f, "%s,%d,%.6g,%.6g,%s,%.10g,%.10g,%.10g,%.6g,%.6g,%.10g,%.6g,%.10g,%.6g\n", solver, dim, dx, gdot, source,
            psi1, psi2, beta, a, rdx, coef, om, hs, hs / rdx);
}

/* The parameters whose effect on G and lambda is measured (item 2 of issue
 * 49): each doubled alone, at the quick setup, in the start-up (mao_yang: the
 * whole stress; clavet: its springs' part).  The exponents d ln G / d ln p
 * and d ln lambda / d ln p between the two are the scaling laws (mao_yang's
 * statement: G ~ mu_e, lambda ~ lambda, neither on the other; clavet's
 * springs', core/maxwell.h: G ~ k_spring, lambda ~ 1 / alpha).  mao_yang's
 * about the rheometer's parameters (scenes/rheology.ini), in its start-up;
 * clavet's about the calibration's first guess (cal_start), in the
 * calibration's start-up: at the paper's k_spring the springs carry some 13
 * Pa per unit strain against the fluid's thousands (rheology_startup_fit.csv),
 * and their stress follows the fluid's rearrangements rather than their own
 * law. */
typedef struct rheo_vary {
    const char *solver, *param;
    int index;           /* clavet: which of cal_start's parameters; -1: the rheometer's */
    double base;         /* the rheometer's value (index -1) */
    const char *sets[2]; /* its doubled setting (index -1) */
} rheo_vary;

static const rheo_vary varies[] = {
    {"mao_yang", "mu_e", -1, 1000.0, {"solver.mu_e=2000", NULL}},
    {"mao_yang", "lambda", -1, 0.02, {"solver.lambda=0.04", NULL}},
    {"clavet", "k_spring", 0, NAN, {NULL, NULL}},
    {"clavet", "alpha", 1, NAN, {NULL, NULL}},
};

/* G'(omega) and G''(omega) of material m at 41 frequencies, 1 to 1000 rad/s
 * evenly in ln omega (rheology_curves.csv: the figure's lines). */
static void moduli_curve(FILE *f, const char *solver, int dim, const char *source, const pfb_maxwell *m)
{
    for (int i = 0; i <= 40; i++) {
        const double w = pow(10.0, 3.0 * i / 40.0);
        double gp, gpp;
        maxwell_moduli(m, w, &gp, &gpp);
        fprintf(f, "%s,%d,%s,%.6g,%.10g,%.10g\n", solver, dim, source, w, gp, gpp);
    }
}

static int rheology_run(const pfb_exp_ctx *ctx, pfb_err *err)
{
    exp_csv sig = {0}, waves = {0}, moduli = {0}, summary = {0}, scaling = {0}, ssig = {0}, sfit = {0}, flow = {0},
            cal = {0}, curves = {0}, known = {0}, ksig = {0}, climb = {0}, rest = {0}, yield = {0};
    int rc = exp_csv_open(&sig, ctx, "rheology_signal.csv", "solver,dim,length,t,amp", err);
    if (!rc)
        rc = exp_csv_open(&waves, ctx, "rheology_waves.csv",
                          "solver,dim,dx,length,k,status,reason,response,beta,beta_err,omega,omega_err,eta_re,eta_im,"
                          "nu_eff,nu_err",
                          err);
    if (!rc)
        rc = exp_csv_open(&moduli, ctx, "rheology_moduli.csv", "solver,dim,omega,Gp,Gpp,Gp_stated,Gpp_stated", err);
    if (!rc)
        rc = exp_csv_open(&summary, ctx, "rheology_summary.csv",
                          "solver,dim,dx,response,n_waves,G,G_err,lambda,lambda_err,inv_lambda,inv_lambda_err,eta_s,"
                          "eta_s_err,eta_viscous,G_stated,lambda_stated,eta_s_stated,G_rel,lambda_rel",
                          err);
    if (!rc)
        rc = exp_csv_open(&scaling, ctx, "rheology_scaling.csv",
                          "solver,param,base,value,response_base,response,G_base,G,lambda_base,lambda,dlnG_dlnp,"
                          "dlnlambda_dlnp",
                          err);
    if (!rc)
        rc = exp_csv_open(&ssig, ctx, "rheology_startup.csv", "solver,dim,dx,shear_rate,t,sigma_xy,sigma_springs",
                          err);
    if (!rc)
        rc = exp_csv_open(&sfit, ctx, "rheology_startup_fit.csv",
                          "solver,dim,dx,shear_rate,part,status,reason,eta_s,G,lambda,rms,G_stated,lambda_stated,"
                          "eta_s_stated,G_rel,lambda_rel",
                          err);
    if (!rc)
        rc = exp_csv_open(&flow, ctx, "rheology_flow.csv",
                          "solver,dim,dx,yield,shear_rate,part,status,reason,sigma,sigma_sd,sigma_model,rel,n1,n1_sd,"
                          "n1_model,n2,n2_sd,n2_model",
                          err);
    pfb_viscoelastic ref;
    char refpath[600];
    snprintf(refpath, sizeof refpath, "%s/viscoelastic.ini", ctx->preset_dir ? ctx->preset_dir : "scenes");
    if (!rc)
        rc = viscoelastic_load(refpath, &ref, err);
    if (!rc)
        rc = exp_csv_open(&climb, ctx, "rheology_climb.csv",
                          "solver,dim,dx,shear_rate,source,psi1,psi2,beta,rod_radius,rod_dx,h_coef,omega,h,h_spacings",
                          err);
    if (!rc)
        rc = exp_csv_open(&yield, ctx, "rheology_yield.csv",
                          "solver,dim,dx,params,yield_ratio,fluid,shear_rate,strain,status,reason,sigma,sigma_model,"
                          "rel,sigma_elastic,sigma_maxwell",
                          err);
    if (!rc)
        rc = exp_csv_open(&rest, ctx, "rheology_rest.csv",
                          "solver,dim,cells,dx,settle,t,status,reason,ke_max,mass,v_rms,u_flow", err);
    if (!rc) { /* the reference material's normal stress coefficients, as upper-convected and corotational Maxwell */
        const double p1 = 2.0 * ref.G * ref.lambda * ref.lambda;
        climb_row(climb.f, "reference", 3, NAN, 0.0, "reference_ucm", p1, 0.0, ref.lambda);
        climb_row(climb.f, "reference", 3, NAN, 0.0, "reference_corotational", p1, -0.5 * p1, ref.lambda);
    }
    if (!rc && !ctx->fluid)
        rc = pfb_err_set(err, PFB_EINVAL, "the rheology experiment needs the reference fluid (the blob's surface "
                                          "tension); valid: --fluid FILE or scenes/fluid.ini");
    if (!rc)
        rc = exp_csv_open(&curves, ctx, "rheology_curves.csv", "solver,dim,source,omega,Gp,Gpp", err);
    if (!rc)
        moduli_curve(curves.f, "reference", 0, "reference", &(pfb_maxwell){ref.G, ref.lambda, ref.eta_s});
    if (!rc)
        rc = exp_csv_open(&known, ctx, "rheology_known.csv",
                          "solver,dim,case,cells,dx,params,status,reason,err_max,err_rms,order,ke_gain,recovery,"
                          "recovery_model",
                          err);
    if (!rc)
        balls_yardstick(known.f, &ref);
    if (!rc)
        rc = exp_csv_open(&ksig, ctx, "rheology_known_signal.csv", "solver,dim,case,cells,t,amp,model", err);
    if (!rc)
        rc = exp_csv_open(&cal, ctx, "rheology_calibration.csv",
                          "solver,dim,dx,iteration,params,G,lambda,eta_s,G_rel,lambda_rel,eta_s_rel,status,reason,"
                          "G_ref,lambda_ref,eta_s_ref",
                          err);
    for (size_t si = 0; si < ctx->nsolvers && !rc; si++) {
        const pfb_solver_ops *so = ctx->solvers[si];
        int known_done = 0;
        for (size_t u = 0; u < sizeof setups / sizeof setups[0] && !rc; u++) {
            const rheo_setup *su = &setups[u];
            if (su->quick != (ctx->quick ? 1 : 0))
                continue;
            double sf[4], sfs[4], h, pcal[3];
            pfb_maxwell calm;
            /* the waves first: a Newtonian method's flow curve is measured against their viscosity */
            rheo_result r;
            rc = rheo_material(ctx, so, su, "", NULL, sig.f, waves.f, &r, err);
            if (!rc)
                rc = rheo_startup(ctx, so, su, ssig.f, sfit.f, sf, sfs, &h, err);
            /* (in 3D clavet's runs cost half an hour, and add nothing to the yield; mao_yang's two give N2) */
            if (!rc && (su->dim == 2 || !solver_has_param(so, "k_spring")))
                rc = rheo_flow(ctx, so, su, flow.f, climb.f, ref.lambda, solver_newtonian(so) ? r.eta_viscous : NAN,
                               err);
            if (!rc)
                rc = rheo_calibrate(ctx, so, su, &ref, h, cal.f, &calm, pcal, err);
            if (!rc && su->dim == 2 && !known_done && isfinite(pcal[0])) { /* the first 2D setup's calibration */
                rc = rheo_known_wave(ctx, so, su, &ref, pcal, h, known.f, ksig.f, err);
                if (!rc)
                    rc = rheo_known_blob(ctx, so, "blob", "rheology", &(pfb_maxwell){ref.G, ref.lambda, ref.eta_s},
                                         ctx->fluid->sigma, pcal, NULL, su, h, known.f, ksig.f, err);
                if (!rc && solver_has_param(so, "k_spring"))
                    rc = rheo_yield(ctx, so, su, pcal, h, yield.f, err);
                known_done = 1;
            }
            if (rc)
                break;
            /* the moduli of the start-up's fits (total; springs, with no solvent) and the calibrated one's */
            const pfb_maxwell fits[3] = {{sf[1], sf[2], sf[0]}, {sfs[1], sfs[2], 0.0}, calm};
            static const char *const fsrc[3] = {"startup", "springs", "calibrated"};
            for (int q = 0; q < 3; q++)
                if (fits[q].G > 0 && fits[q].lambda > 0 && fits[q].eta_s >= 0)
                    moduli_curve(curves.f, so->name, su->dim, fsrc[q], &fits[q]);
            const pfb_maxwell_fit *mf = &r.mf;
            const pfb_maxwell *st = &r.stated;
            for (size_t i = 0; !strcmp(r.response, "maxwell") && i < r.nosc; i++) {
                double gp, gpp, gps = NAN, gpps = NAN;
                maxwell_moduli(&mf->m, r.omegas[i], &gp, &gpp);
                if (isfinite(st->G) && isfinite(st->lambda))
                    maxwell_moduli(&(pfb_maxwell){st->G, st->lambda, isfinite(st->eta_s) ? st->eta_s : 0.0},
                                   r.omegas[i], &gps, &gpps);
                fprintf(moduli.f, "%s,%d,%.10g,%.10g,%.10g,%.10g,%.10g\n", so->name, su->dim, r.omegas[i], gp, gpp, gps,
                        gpps);
            }
            if (isfinite(st->G) && isfinite(st->lambda))
                moduli_curve(curves.f, so->name, su->dim, "stated",
                             &(pfb_maxwell){st->G, st->lambda, isfinite(st->eta_s) ? st->eta_s : 0.0});
            fprintf(summary.f,
                    "%s,%d,%.6g,%s,%zu,%.10g,%.6g,%.10g,%.6g,%.10g,%.6g,%.10g,%.6g,%.10g,%.10g,%.10g,%.10g,%.6g,%.6g\n",
                    so->name, su->dim, su->spacing, r.response, r.nosc, mf->m.G, mf->err.G, mf->m.lambda,
                    mf->err.lambda, mf->inv_lambda, mf->inv_lambda_err, mf->m.eta_s, mf->err.eta_s, r.eta_viscous,
                    st->G, st->lambda, st->eta_s, mf->m.G / st->G - 1.0, mf->m.lambda / st->lambda - 1.0);
        }
        /* the Newtonian blob, every method as calibrated to the reference fluid */
        if (!rc)
            rc = rheo_known_blob(ctx, so, "blob_newtonian", "rheology_newtonian",
                                 &(pfb_maxwell){0.0, 1.0, ctx->fluid->density * ctx->fluid->nu}, ctx->fluid->sigma,
                                 NULL, NULL, NULL, NAN, known.f, ksig.f, err);
        /* and without an explicit surface tension (muller's colour field), against sigma = 0 */
        if (!rc && solver_has_param(so, "surface_tension"))
            rc = rheo_known_blob(ctx, so, "blob_newtonian_nosigma", "rheology_newtonian",
                                 &(pfb_maxwell){0.0, 1.0, ctx->fluid->density * ctx->fluid->nu}, 0.0, NULL,
                                 "solver.surface_tension=0", NULL, NAN, known.f, ksig.f, err);
        if (!rc)
            rc = rheo_rest(ctx, so, rest.f, err);
        /* mao_yang's blob at the rheometer's parameters, against what they state */
        if (!rc && solver_has_param(so, "mu_e"))
            rc = rheo_known_blob(ctx, so, "blob_stated", "rheology", NULL, ctx->fluid->sigma, NULL, NULL, NULL, NAN,
                                 known.f, ksig.f, err);
        /* the scaling laws, at the quick setup */
        const rheo_setup *qs = &setups[sizeof setups / sizeof setups[0] - 1];
        double h = NAN, p0[3];
        for (size_t v = 0; v < sizeof varies / sizeof varies[0] && !rc; v++) {
            const rheo_vary *va = &varies[v];
            if (strcmp(va->solver, so->name))
                continue;
            shear_series o;
            double fb[4], fv[4], fs[4], base = va->base, value = 2.0 * va->base;
            char tag[64];
            if (va->index < 0) { /* about the rheometer's parameters, in its start-up */
                for (int q = 0; q < 2 && !rc; q++) {
                    snprintf(tag, sizeof tag, "%s_x2", va->param);
                    rc = rheo_shear(ctx, so, qs, rheo_rate(so), 0.0, rheo_t(so), q ? tag : NULL, q ? va->sets : NULL,
                                    NULL, &o, err);
                    if (rc)
                        break;
                    startup_fit(o.t, o.y, o.unstable ? 0 : o.n, rheo_rate(so), q ? fv : fb);
                    shear_series_free(&o);
                }
            } else { /* about the calibration's first guess, in its start-up */
                if (isnan(h)) { /* the quick start-up's h (the quick version's own run) */
                    rc = rheo_shear(ctx, so, qs, rheo_rate(so), 0.0, rheo_t(so), NULL, NULL, NULL, &o, err);
                    if (rc)
                        break;
                    h = o.h;
                    shear_series_free(&o);
                }
                if (!cal_start(so, qs, &ref, h, p0))
                    break;
                double p[3] = {p0[0], p0[1], p0[2]};
                char params[200];
                rc = cal_run(ctx, so, qs, p, "cal0", fs, fb, &o, params, err);
                if (rc)
                    break;
                shear_series_free(&o);
                snprintf(tag, sizeof tag, "cal0_%s_x2", va->param);
                p[va->index] *= 2.0;
                rc = cal_run(ctx, so, qs, p, tag, fs, fv, &o, params, err);
                if (rc)
                    break;
                shear_series_free(&o);
                base = p0[va->index];
                value = p[va->index];
            }
            if (rc)
                break;
            const char *part = va->index < 0 ? "total" : "springs";
            const double lg = log(fv[1] / fb[1]) / log(2.0), ll = log(fv[2] / fb[2]) / log(2.0);
            fprintf(scaling.f, "%s,%s,%.10g,%.10g,%s,%s,%.10g,%.10g,%.10g,%.10g,%.6g,%.6g\n", so->name, va->param,
                    base, value, isfinite(fb[1]) ? part : "none", isfinite(fv[1]) ? part : "none", fb[1], fv[1],
                    fb[2], fv[2], lg, ll);
        }
    }
    exp_csv *const cs[] = {&sig, &waves,  &moduli, &summary, &scaling, &ssig, &sfit,  &flow,
                           &cal, &curves, &known,  &ksig,    &climb,   &rest, &yield};
    return exp_csv_finish(cs, 15, rc, err);
}

const pfb_experiment pfb_exp_rheology = {
    "rheology",
    "the virtual rheometer: shear waves at three wavenumbers give each method's Maxwell material (G, lambda, solvent "
    "viscosity) against what its parameters state",
    rheology_run};
