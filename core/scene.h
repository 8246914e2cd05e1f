/* scene.h — initial conditions: particles on a lattice, walls, gravity, domain.
 *
 * A scene fills an initialised pfb_sim (dim and spacing already set) from its
 * parameters: particles on a square/cubic lattice of the given spacing with mass
 * density * spacing^dim each, the boundary shapes, gravity, the escape domain and
 * the characteristic length and speed used by blow-up detection and by the
 * dimensionless time step. */
#ifndef PFB_SCENE_H
#define PFB_SCENE_H

#include "error.h"
#include "params.h"
#include "sim.h"

typedef struct pfb_scene_def {
    const char *name;
    const char *help;
    const pfb_param_spec *params;        /* NULL-terminated */
    double default_spacing[2];           /* 2D, 3D (m) */
    double default_t_end;                /* s */
    /* Fill sim with particles, walls, gravity, domain, length_ref, v_ref. */
    int (*build)(const pfb_params *sp, pfb_sim *sim, pfb_err *err);
} pfb_scene_def;

/* The registry of scenes, NULL-terminated. */
extern const pfb_scene_def *const pfb_scenes[];

/* Look up a scene by name, or fail naming the valid ones and the nearest. */
int scene_lookup(const char *name, const pfb_scene_def **out, pfb_err *err);

/* Displace every particle by a uniform random offset of at most jitter*spacing per axis. */
void scene_jitter(pfb_sim *sim, double jitter);

#endif
