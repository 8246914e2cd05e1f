/* test_table.c — every solver on every scene, 2D and 3D, runs with its defaults
 * (issue 31: "every combination runs out of the box").
 *
 * Each cell of solver x scene x {2D, 3D} is one run with what `pfbench run` gives
 * by default (the calibrated fluid, --preset calibrated), every solver and scene
 * parameter at its default, and the blow-up checks at theirs (energy_limit 10;
 * volume_limit 0.5: a run that loses half its volume fails); only the resolution
 * and the duration are reduced, so that the table (112 runs) takes about 40 s of
 * one core:
 *  - spacing: per scene, the coarsest that still resolves the scene's smallest
 *    feature by a few spacings (the scenes refuse fewer than two), a few hundred
 *    particles (the scenes' own defaults give up to 30,000 in 3D);
 *  - t_end: 0.3 s (nine frames at the default 30 per second) in 2D, long enough
 *    for a fluid too soft for SI gravity to show it (clavet's former defaults,
 *    the paper's values, took the 2D pool, dam break, pour and float below half
 *    their volume at t = 0.2-0.27 s at these spacings, the melt and the rod by
 *    0.13 s); 0.1 s (three frames) in 3D and for the 2D sphere_drip and rod,
 *    the costliest cells per frame (the most particles, or the smallest steps);
 *    the 2D stretch its own duration, 0.15 s.
 * Two 3D scenes cannot get that small by the spacing alone, so their tanks
 * shrink (the one change to a scene setting): the rod's refuses a spacing over
 * half the rod's radius (0.005 m), at which the default tank holds 12,000
 * particles (here 0.05 m wide, 0.02 m deep: 352); the float's body allows at
 * most 0.05 m, 3,120 particles in the 1 m tank (here 0.5 m wide: 720). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../experiments/presets.h"
#include "testutil.h"

typedef struct table_cell {
    const char *scene;
    int dim;
    const char *spacing, *t_end;
    const char *extra[3]; /* scene settings, NULL-terminated (rod and float in 3D only) */
} table_cell;

/* The comments give each cell's initial particle count. */
static const table_cell cells[] = {
    {"pool", 2, "0.04", "0.3", {NULL}},           /* 25 x 12 = 300 particles */
    {"pool", 3, "0.1", "0.1", {NULL}},            /* 10 x 5 x 5 = 250 */
    {"dam_break", 2, "0.025", "0.3", {NULL}},     /* 10 x 20 = 200 */
    {"dam_break", 3, "0.05", "0.1", {NULL}},      /* 5 x 10 x 5 = 250 */
    {"drop", 2, "0.0125", "0.3", {NULL}},         /* R = 8 spacings: 193 */
    {"drop", 3, "0.025", "0.1", {NULL}},          /* R = 4 spacings: 251 */
    {"blob", 2, "0.0125", "0.3", {NULL}},         /* R = 8 spacings: 193 */
    {"blob", 3, "0.025", "0.1", {NULL}},          /* R = 4 spacings: 251 */
    {"sphere_drip", 2, "0.006", "0.1", {NULL}},   /* the layer 5 thick: 130 */
    {"sphere_drip", 3, "0.015", "0.1", {NULL}},   /* the layer 2 thick: 200 */
    {"pour", 2, "0.0125", "0.3", {NULL}},         /* the block 12 x 12 = 144 */
    {"pour", 3, "0.03", "0.1", {NULL}},           /* the block 5 x 5 x 5 = 125 */
    {"melt", 2, "0.0125", "0.3", {NULL}},         /* the block 12 x 12 = 144 */
    {"melt", 3, "0.03", "0.1", {NULL}},           /* the block 5 x 5 x 5 = 125 */
    {"balls", 2, "0.0125", "0.3", {NULL}},        /* six discs of radius 4 spacings: 270 */
    {"balls", 3, "0.025", "0.1", {NULL}},         /* six balls of radius 2 spacings: 162 */
    {"stretch", 2, "0.004", "0.15", {NULL}},      /* 10 x 20 = 200; the scene's duration */
    {"stretch", 3, "0.01", "0.1", {NULL}},        /* the column 4 spacings wide: 4 x 8 x 4 = 128 */
    {"rod", 2, "0.005", "0.1", {NULL}},           /* the rod 2 spacings in radius: 372 */
    {"rod", 3, "0.005", "0.1", {"scene.width=0.05", "scene.depth=0.02", NULL}}, /* see above */
    {"float", 2, "0.025", "0.3", {NULL}},         /* the body 4 spacings in half-size: 596 */
    {"float", 3, "0.05", "0.1", {"scene.width=0.5", NULL}}, /* see above */
    {"tower", 2, "0.03", "0.3", {NULL}},          /* the ball 2 spacings in radius: 120 */
    {"tower", 3, "0.03", "0.1", {NULL}},          /* 6 x 20 x 6 = 720 */
    {"fill", 2, "0.02", "0.3", {NULL}},           /* the nozzle 4 spacings wide: 16, growing */
    {"fill", 3, "0.04", "0.1", {NULL}},           /* the nozzle 2 spacings across: 16, growing */
    {"shear_wave", 2, "0.0125", "0.1", {NULL}},   /* the periodic box 8 x 8 = 64 */
    {"shear_wave", 3, "0.025", "0.1", {"scene.length=0.2", NULL}}, /* 8 x 8 x 8 = 512, half the steps of 0.0125 */
};

#define NCELLS (sizeof cells / sizeof cells[0])

/* Run cell c for solver so with the solver's parameters from preset; it must reach
 * its last frame without a blow-up. */
static void run_cell(const pfb_solver_ops *so, const table_cell *c, const char *preset_name)
{
    char dim[32], spacing[64], t_end[64];
    snprintf(dim, sizeof dim, "run.dim=%d", c->dim);
    snprintf(spacing, sizeof spacing, "run.spacing=%s", c->spacing);
    snprintf(t_end, sizeof t_end, "run.t_end=%s", c->t_end);
    const char *sets[8] = {dim, spacing, t_end, NULL};
    size_t n = 3;
    for (size_t k = 0; c->extra[k]; k++)
        sets[n++] = c->extra[k];
    sets[n] = NULL;
    tu_run t;
    tu_run_init(&t, so->name, c->scene, sets);
    pfb_run_result res;
    pfb_err err;
    pfb_preset preset;
    ck_assert_msg(preset_resolve(preset_name, &preset, &err) == 0, "%s", err.msg);
    ck_assert_msg(preset_apply(&preset, so, &t.solver, &err) == 0, "%s", err.msg);
    int rc = run_execute(&t.cfg, &res, &err);
    ck_assert_msg(rc == 0, "%s %s %s %dD: %s", preset_name, so->name, c->scene, c->dim, err.msg);
    ck_assert_msg(!res.unstable, "%s %s %s %dD: %s", preset_name, so->name, c->scene, c->dim, res.reason);
    ck_assert_msg(res.frames_done == res.frames && res.frames >= 3, "%s %s %s %dD: %ld of %ld frames", preset_name,
                  so->name, c->scene, c->dim, res.frames_done, res.frames);
    tu_run_free(&t);
}

/* _i indexes solver x cell, so each cell is its own test and reports alone. */
START_TEST(test_cell)
{
    run_cell(pfb_solvers[(size_t)_i / NCELLS], &cells[(size_t)_i % NCELLS], PFB_RUN_PRESET_DEFAULT);
}
END_TEST

/* The table covers every registered scene. */
START_TEST(test_every_scene)
{
    for (size_t s = 0; pfb_scenes[s]; s++) {
        int found[4] = {0, 0, 0, 0};
        for (size_t k = 0; k < NCELLS; k++)
            if (!strcmp(cells[k].scene, pfb_scenes[s]->name))
                found[cells[k].dim] = 1;
        ck_assert_msg(found[2] && found[3], "scene %s lacks a 2D or a 3D cell", pfb_scenes[s]->name);
    }
}
END_TEST

int main(void)
{
    /* one thread for every parallel loop: results do not depend on it
     * (test_contract), at a few hundred particles threads only add their fork and
     * join, and on a loaded machine they spin at every barrier (measured with the
     * two cores shared with three other jobs: 9 min 22 s on two threads, 51 s on
     * one); the grids of mao_yang and of the diagnostics take OpenMP's default,
     * not run.threads, so it is set here */
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    size_t nsolvers = 0;
    while (pfb_solvers[nsolvers])
        nsolvers++;
    Suite *s = suite_create("table");
    TCase *tc = tcase_create("every solver, scene and dimension at its defaults");
    /* per cell; Check's default of 4 s is too short for a mao_yang 3D cell under
     * the sanitizers (make test sets CK_DEFAULT_TIMEOUT, a direct run does not) */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_every_scene);
    tcase_add_loop_test(tc, test_cell, 0, (int)(nsolvers * NCELLS));
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
