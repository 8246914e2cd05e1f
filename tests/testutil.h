/* testutil.h — build a run configuration from names and key=value overrides (tests only). */
#ifndef PFB_TESTUTIL_H
#define PFB_TESTUTIL_H

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/run.h"

typedef struct tu_run {
    pfb_params run, scene, solver;
    pfb_run_config cfg;
} tu_run;

/* Set up tables for solver/scene and apply "table.key=value" overrides (NULL-terminated). */
static inline void tu_run_init_ops(tu_run *t, const pfb_solver_ops *so, const char *scene, const char *const *sets)
{
    pfb_err err;
    memset(t, 0, sizeof *t);
    const pfb_scene_def *sc = NULL;
    ck_assert_msg(scene_lookup(scene, &sc, &err) == 0, "%s", err.msg);
    ck_assert_msg(params_init(&t->run, pfb_run_params, "run", &err) == 0, "%s", err.msg);
    ck_assert_msg(params_init(&t->scene, sc->params, sc->name, &err) == 0, "%s", err.msg);
    ck_assert_msg(params_init(&t->solver, so->params, so->name, &err) == 0, "%s", err.msg);
    for (size_t i = 0; sets && sets[i]; i++)
        ck_assert_msg(run_apply_setting(&t->run, &t->scene, &t->solver, sets[i], &err) == 0, "%s", err.msg);
    t->cfg.solver = so;
    t->cfg.scene = sc;
    t->cfg.run = &t->run;
    t->cfg.scene_params = &t->scene;
    t->cfg.solver_params = &t->solver;
}

/* The same for a registered solver, by name. */
static inline void tu_run_init(tu_run *t, const char *solver, const char *scene, const char *const *sets)
{
    pfb_err err;
    const pfb_solver_ops *so = NULL;
    ck_assert_msg(solver_lookup(solver, &so, &err) == 0, "%s", err.msg);
    tu_run_init_ops(t, so, scene, sets);
}

/* A solver's parameter table with "key=value" overrides applied (NULL-terminated). */
static inline void tu_solver_params(pfb_params *p, const pfb_solver_ops *so, const char *const *sets)
{
    pfb_err err;
    ck_assert(params_init(p, so->params, so->name, &err) == 0);
    for (size_t i = 0; sets && sets[i]; i++) {
        const char *eq = strchr(sets[i], '=');
        char key[64];
        ck_assert(eq != NULL && (size_t)(eq - sets[i]) < sizeof key);
        memcpy(key, sets[i], (size_t)(eq - sets[i]));
        key[eq - sets[i]] = '\0';
        ck_assert_msg(params_set(p, key, eq + 1, &err) == 0, "%s", err.msg);
    }
}

/* A bare simulation: no walls, no gravity, domain +-1e3 m, v_ref = 1 m/s, unit
 * masses at positions x and velocities v (3 doubles each). */
static inline void tu_bare_sim(pfb_sim *sim, int dim, double spacing, size_t n, const double *x, const double *v)
{
    pfb_err err;
    ck_assert(sim_init(sim, dim, 3, &err) == 0);
    sim->spacing = spacing;
    sim->v_ref = 1.0;
    for (int k = 0; k < 3; k++) {
        sim->domain_lo[k] = -1e3;
        sim->domain_hi[k] = 1e3;
    }
    for (size_t i = 0; i < n; i++)
        ck_assert(particles_add(&sim->p, x + 3 * i, v + 3 * i, 1.0, &err) == 0);
}

/* Create solver so's state for sim with "key=value" overrides (NULL-terminated). */
static inline void *tu_create(const pfb_solver_ops *so, pfb_sim *sim, const char *const *sets)
{
    pfb_err err;
    pfb_params p;
    tu_solver_params(&p, so, sets);
    void *st = NULL;
    ck_assert_msg(so->create(&p, sim, &st, &err) == 0, "%s", err.msg);
    params_free(&p);
    return st;
}

/* One solver step of dt, advancing sim->t as the run loop does. */
static inline void tu_step(const pfb_solver_ops *so, void *st, pfb_sim *sim, double dt)
{
    pfb_err err;
    period_le_at(&sim->period, sim->t); /* a sheared box's images at t, as the run sets them */
    ck_assert_msg(so->step(st, sim, dt, &err) == 0, "%s", err.msg);
    sim->t += dt;
    period_le_at(&sim->period, sim->t);
    sim_positions_changed(sim);
}

/* The shear stress of a whole sheared box (scene shear_wave with shear_rate
 * gamma, period L) by solver so's pair virial (solver.h: diag[3]) and the
 * kinetic term of the velocities about the uniform shear, sigma_xy = -(sum m
 * v'_x v'_y + W_xy) / L^dim; *profile the largest |v_x - gamma (y - L/2)| over
 * gamma L (the profile's error). */
static inline double tu_box_shear_stress(const pfb_solver_ops *so, const void *st, const pfb_sim *sim, double gamma,
                                         double L, double *profile)
{
    const pfb_particles *p = &sim->p;
    unsigned char *all = malloc(p->n);
    ck_assert_ptr_nonnull(all);
    memset(all, 1, p->n);
    double w[4];
    so->pair_virial(st, sim, all, w);
    free(all);
    double K = 0.0, dev = 0.0;
    for (size_t i = 0; i < p->n; i++) {
        const double u = gamma * (p->x[1][i] - 0.5 * L);
        K += p->m[i] * (p->v[0][i] - u) * p->v[1][i];
        dev = fmax(dev, fabs(p->v[0][i] - u));
    }
    *profile = dev / (fabs(gamma) * L);
    return -(K + w[3]) / pow(L, sim->dim);
}

/* A sheared box's momentum in the unsheared frame (v_x + image_y U: a particle
 * wrapped across a sliding face is counted at its unwrapped velocity) into P;
 * returns the total mass. */
static inline double tu_sheared_momentum(const pfb_sim *sim, double P[3])
{
    const double *img = sim->p.field[sim->f_image].data;
    double M = 0.0;
    P[0] = P[1] = P[2] = 0.0;
    for (size_t i = 0; i < sim->p.n; i++) {
        M += sim->p.m[i];
        for (int k = 0; k < 3; k++)
            P[k] += sim->p.m[i] * (sim->p.v[k][i] + (k == 0 ? img[3 * i + 1] * sim->period.le_U : 0.0));
    }
    return M;
}

/* The particles' kinetic energy, sum m |v|^2 / 2. */
static inline double tu_kinetic_energy(const pfb_sim *sim)
{
    double e = 0.0;
    for (size_t i = 0; i < sim->p.n; i++)
        for (int k = 0; k < sim->dim; k++)
            e += 0.5 * sim->p.m[i] * sim->p.v[k][i] * sim->p.v[k][i];
    return e;
}

/* The run t set up (run_setup) with its step, substeps and frames (run_timing);
 * returns the solver's state. */
static inline void *tu_setup(tu_run *t, pfb_sim *sim, double *dt, long *sub, long *frames)
{
    pfb_err err;
    void *st = NULL;
    double t_end;
    ck_assert_msg(run_setup(&t->cfg, sim, &st, &err) == 0, "%s", err.msg);
    ck_assert_msg(run_timing(&t->cfg, sim, st, dt, sub, frames, &t_end, &err) == 0, "%s", err.msg);
    return st;
}

/* Free the tables. */
static inline void tu_run_free(tu_run *t)
{
    params_free(&t->run);
    params_free(&t->scene);
    params_free(&t->solver);
}

/* The shear wave's amplitude A = 2 sum m v_x sin(k y) / sum m. */
static inline double tu_shear_amplitude(const pfb_sim *sim, double k)
{
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < sim->p.n; i++) {
        num += sim->p.m[i] * sim->p.v[0][i] * sin(k * sim->p.x[1][i]);
        den += sim->p.m[i];
    }
    return 2.0 * num / den;
}

/* Step a shear-wave run for t_end at the solver's suggested step and return the
 * kinematic viscosity of its decay, -ln(A(t) / A(0)) / (k^2 t). */
static inline double tu_shear_wave_nu(const pfb_solver_ops *so, void *st, pfb_sim *sim, double k, double t_end)
{
    pfb_err err;
    const double dt = so->suggest_dt(st, sim), a0 = tu_shear_amplitude(sim, k);
    const long steps = lround(t_end / dt);
    for (long s = 0; s < steps; s++) {
        ck_assert_msg(so->step(st, sim, dt, &err) == 0, "%s", err.msg);
        sim->t += dt;
        sim_positions_changed(sim);
    }
    return -log(tu_shear_amplitude(sim, k) / a0) / (k * k * (double)steps * dt);
}

#endif
