/* miller_pearce.c — G. Miller, A. Pearce, "Globular dynamics: a connected particle
 * system for animating viscous fluids", Computers & Graphics 13(3), 1989; text in
 * ../shared/papers/miller-pearce1989-globular.txt.
 *
 * What the paper specifies and where it lives here:
 *   Table 1      globule state: mass (the framework's m), radius and temperature
 *                (registered particle fields), position, velocity
 *   eq. 2        pair force: repulsion b1/D^m, attraction b2/D^n, drag on the
 *                velocity difference ....... law_coef, mp_pair_force, mp_row_body
 *   eq. 3        attenuations s_r, s_d with c_r, c_d; pairs with s_d = 0 culled
 *                (the neighbour radius is the largest drag reach) ... mp_pair_force
 *   §2.1         presets powder (c_r = c_d = r0), fluid (c_r = r0, c_d = 2 r0),
 *                solid (c_r = c_d = 2 r0) ................................ mp_create
 *   §2.1         temperature moves a pair between solid and fluid ..... pair_reach
 *   eqs. 5-8     constraint collisions: ray-plane intersection, reflection with
 *                r_n, r_t, in the constraint's frame ...................... mp_collide
 *   eq. 9        Euler integration with the 1/2 a dt^2 position term ..... mp_step
 *   (issue 7)    rigid bodies: not in the paper, whose constraints are kinematic;
 *                after the constraint collisions, sim_bodies_couple (core/sim.h):
 *                inelastic two-body impulses, equal and opposite, for globules
 *                within half a spacing of a body, which advances under gravity
 *
 * Choices where the paper is silent (or loose):
 *  - Periodic axes (core/periodic.h; the paper has none): every pair's displacement
 *    is the minimum image (the list is the framework's minimum-image one).  On a
 *    sheared box (Lees-Edwards; the rheometer's start-up and flow curve) it is
 *    period_vec's, with the sliding images at t, where eq. 9's forces are
 *    taken, and the drag's velocity difference takes the image's k U.
 *  - c_r and c_d multiply r_i + r_p in eq. 3, so they are numbers, while §2.1 writes
 *    the presets as lengths (c_r = r0).  We read the presets with r0 = r_i + r_p, the
 *    distance at which two globules of the scene's radius touch: c = 1 puts the cut-off
 *    c (r_i + r_p) at r0, c = 2 at 2 r0.  So powder is c_r = c_d = 1, fluid c_r = 1,
 *    c_d = 2, solid c_r = c_d = 2 (the parameters c_r, c_d override the preset).
 *  - r0, "the inter-globule spacing for which the attraction and repulsion terms
 *    cancel", is the scene's lattice spacing (r0 = 1 spacing), so powder and fluid
 *    (c_r = 1: only pairs closer than r0 interact) start at rest.  Under gravity
 *    their square lattice, which no attraction holds, settles towards the
 *    denser triangular packing of disks (2 / sqrt 3 = 1.155 times the number
 *    density): a 2D pool at D/dx = 25 holds 1.14-1.18 times the scene's
 *    density at 0.15-0.35 m depth after 2 s, and its vertical stress grows as
 *    1.15 rho g d (issue 32's hydrostatic case).  The solid's
 *    attraction reaches the further neighbours of a square (cubic) lattice, whose
 *    virial sum_j F(D_j) D_j vanishes only at 0.865 r0 (2D) or 0.690 r0 (3D): a solid
 *    lattice contracts towards that (measured: a 2D column 13%).  The mean radius
 *    is r0/2; radii are drawn once from the run's seed, uniform in r0/2 (1 +-
 *    radius_spread), as the paper advises against crystal stacking.  Masses are the scene's (density x spacing^dim), not scaled
 *    with the radius.
 *  - Units.  The paper gives no values for b1 or for the drag coefficient (eq. 2 has
 *    none: 1 in its units).  b1 sets the stiffness k0 = (m - n) b1 / r0^m of the law
 *    at r0 (dF/dD = -k0 without attenuation); we choose it, when b1 = 0, from a sound
 *    speed c = sound_speed v_ref of the chain of globules, c = r0 sqrt(k0 / M): b1 =
 *    M (c / r0)^2 r0^m / (m - n), the weakly compressible criterion (10 v_ref) of the
 *    SPH back ends.  The drag coefficient is drag_ratio times the critical damping of
 *    a pair at r0, sqrt(2 k0 M) (reduced mass M/2), when drag = 0.  Attenuation makes
 *    the powder and fluid contacts softer than k0 near r0 (s_r vanishes there).
 *    sound_speed_si gives c in m/s instead of in the scene's v_ref: the same
 *    material in every scene (the calibrated fluid, scenes/calibrated.ini).
 *  - Drag as a viscosity (drag_nu; the paper is silent).  Eq. 2's drag acts on the
 *    radial relative velocity, F_i = sum_j gamma s_d(r) ((v_j - v_i) . e) e, e =
 *    r_ij / r.  In a simple shear v_x = S y the momentum flux through a plane of a
 *    lattice of number density 1/dx^dim and mass M per site is then
 *    tau_xy = (gamma S / (2 dx^dim)) sum_j s_d(r_j) x_j^2 y_j^2 / r_j^2, so the
 *    kinematic viscosity is nu = tau / (rho S) with rho = M / dx^dim:
 *    gamma = 2 M nu / sum ... .  The sum runs over the initial lattice's
 *    sites within c_d r0 (the mean radii).  In 2D gamma / nu is independent of the
 *    spacing (M ~ dx^2), in 3D it grows like dx: drag_nu states the material, not
 *    the resolution.  A shear wave of 20 spacings decays at drag_nu times the
 *    wave's discrete factor (1 - cos k dx) / (k^2 dx^2 / 2) within 1%, radius
 *    spread or not (tests/test_miller_pearce.c); over longer runs the rest of
 *    eq. 2 adds a little (the calibration measures nu_eff directly).
 *  - Temperature (the paper: "an area for further research").  Each globule carries T
 *    (initial value: temperature).  A pair's interaction is interpolated between the
 *    solid and the fluid preset by its mean temperature: lambda = (T_pair - t_solid) /
 *    (t_fluid - t_solid) clamped to [0, 1], c_r = 2 - lambda, c_d = 2 (material =
 *    thermal).  Heat is conducted between globules within the drag reach:
 *    dT_i/dt = conductivity sum_j s_d,ij (T_j - T_i), symmetric in i, j, so the sum of
 *    temperatures is conserved (equal heat capacities); a heated wall (pfb_shape
 *    heated, temperature T_w) adds wall_conductance (T_w - T_i) for globules within r0
 *    of it.  Explicit Euler in the same step as eq. 9.
 *  - Collisions: planes exactly; every other shape (boxes, spheres, cylinders) through
 *    the tangent plane at the closest point of the end position, repeated (at most 4
 *    passes over the shapes) so that box corners are resolved face by face; a globule
 *    that still ends behind a surface is put on it (never on the wrong side).  With
 *    wall_offset = radius the surface is offset by the globule's radius (no part
 *    penetrates); none uses the surface itself (half the globule may penetrate).  The
 *    velocity is reflected with the same r_n, r_t relative to the shape.  The paper
 *    gives no values: r_n = 0.2 ("slightly elastic" walls against stacking) and
 *    r_t = 1 (slip, as muller's and clavet's walls).  A globule resting on a wall
 *    meets it again in every step (gravity carries it back across), so r_t < 1
 *    scales its tangential velocity by r_t once per step: a friction whose decay
 *    time dt / (1 - r_t) vanishes with the step, so the flow along a wall would
 *    depend on dt and tend to no slip under refinement (measured: the 2D dam
 *    break's front at a/dx = 25 is 28% behind Martin & Moyce with r_t = 0.9 and
 *    19% with r_t = 1; issue 32).
 *  - Suggested step: the paper asks that a globule move "a small fraction of its
 *    radius in each time step": dt = cfl r0 / (c + v_ref) with cfl = 0.1.
 *  - The pairs (issue 33): the framework's half list with a skin (core/halflist.h,
 *    radius the largest reach c_max r0 (1 + radius_spread), rebuilt only when
 *    the globules' moves require it) and its blocked schedule
 *    (core/pairtasks.h).  Eq. 2's force is antisymmetric bit for bit (x_p - x_i
 *    and v_p - v_i change sign, D and the coefficient do not), so each pair is
 *    evaluated once, added to one globule and subtracted from the other; the
 *    sums are the same bits for any thread count.  The rows run in four lanes
 *    (core/lanes.h; miller_pearce_rows.inc), the same bits at every SIMD
 *    level: first the pairs within their own largest reach c_max (r_i + r_p)
 *    are picked out (the list's skin and the pairs beyond their radii's reach
 *    are a third to a half of a row), then eq. 2 with one square root and one
 *    division per pair.  Exponents that are not whole numbers take a scalar
 *    row with pow() (mp_pair_force's law, per pair).  The bits differ from a
 *    per-globule gather in the order of each sum's terms only.
 *  - Collisions: a globule that shape_clear (core/boundary.h) finds clear of a
 *    plane or a containing box, by exactly shape_sdf's operations, skips that
 *    shape's mp_collide, which would return at once. */
#include "miller_pearce.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/checkpoint.h"
#include "../core/halflist.h"
#include "../core/lanes.h"
#include "../core/pairtasks.h"
#include "../core/solver.h"

enum { MAT_POWDER = 0, MAT_FLUID, MAT_SOLID, MAT_THERMAL };

static const pfb_param_spec mp_params[] = {
    {"material", PFB_PARAM_CHOICE, 1, 0, 0, "", "preset of §2.1 (thermal: solid to fluid with temperature)",
     "powder|fluid|solid|thermal"},
    {"c_r", PFB_PARAM_DOUBLE, 0.0, 0.0, 10.0, "1", "repulsion/attraction reach in units of r_i + r_p (eq. 3); 0 = the preset's", NULL},
    {"c_d", PFB_PARAM_DOUBLE, 0.0, 0.0, 10.0, "1", "drag reach in units of r_i + r_p (eq. 3); 0 = the preset's", NULL},
    {"r0", PFB_PARAM_DOUBLE, 1.0, 0.1, 10.0, "spacing", "distance where eq. 2's attraction and repulsion cancel", NULL},
    {"m", PFB_PARAM_DOUBLE, 5.0, 1.0, 20.0, "1", "repulsion exponent of eq. 2", NULL},
    {"n", PFB_PARAM_DOUBLE, 3.0, 0.0, 19.0, "1", "attraction exponent of eq. 2 (n < m)", NULL},
    {"b1", PFB_PARAM_DOUBLE, 0.0, 0.0, 1e30, "N m^(m-1)", "repulsion strength of eq. 2; 0 = from sound_speed", NULL},
    {"sound_speed", PFB_PARAM_DOUBLE, 10.0, 0.01, 1e4, "v_ref", "chain sound speed r0 sqrt(k0/M) that sets b1 when b1 = 0", NULL},
    {"sound_speed_si", PFB_PARAM_DOUBLE, 0.0, 0.0, 1e6, "m/s", "chain sound speed in m/s, the same in every scene (a calibrated fluid); > 0 replaces sound_speed", NULL},
    {"drag", PFB_PARAM_DOUBLE, 0.0, 0.0, 1e30, "kg/s", "drag coefficient of eq. 2; 0 = drag_nu, else drag_ratio x critical", NULL},
    {"drag_nu", PFB_PARAM_DOUBLE, 0.0, 0.0, 1e6, "m^2/s", "drag of eq. 2 given as the kinematic shear viscosity it gives the initial lattice (continuum limit); 0 = drag_ratio", NULL},
    {"drag_ratio", PFB_PARAM_DOUBLE, 1.0, 0.0, 100.0, "1", "drag over a pair's critical damping sqrt(2 k0 M) when drag = 0", NULL},
    {"radius_spread", PFB_PARAM_DOUBLE, 0.1, 0.0, 0.5, "1", "radii uniform in r0/2 (1 +- spread)", NULL},
    {"restitution_n", PFB_PARAM_DOUBLE, 0.2, 0.0, 1.0, "1", "r_n: normal reflection coefficient (eq. 8)", NULL},
    {"restitution_t", PFB_PARAM_DOUBLE, 1.0, 0.0, 1.0, "1", "r_t: tangential reflection coefficient (eq. 8), applied at every contact, so a resting globule's in every step: below 1 a step-dependent friction", NULL},
    {"wall_offset", PFB_PARAM_CHOICE, 1, 0, 0, "", "constraint surface offset by the globule radius, or not", "none|radius"},
    {"temperature", PFB_PARAM_DOUBLE, 0.0, -1e6, 1e6, "1", "initial temperature of every globule", NULL},
    {"t_solid", PFB_PARAM_DOUBLE, 0.3, -1e6, 1e6, "1", "pair temperature at and below which a thermal pair is solid", NULL},
    {"t_fluid", PFB_PARAM_DOUBLE, 0.7, -1e6, 1e6, "1", "pair temperature at and above which a thermal pair is fluid", NULL},
    {"conductivity", PFB_PARAM_DOUBLE, 20.0, 0.0, 1e6, "1/s", "heat exchange rate between globules (weighted by s_d)", NULL},
    {"wall_conductance", PFB_PARAM_DOUBLE, 20.0, 0.0, 1e6, "1/s", "heat exchange rate with a heated wall within r0", NULL},
    {"cfl", PFB_PARAM_DOUBLE, 0.1, 0.001, 2.0, "1", "suggested dt = cfl r0 / (c + v_ref)", NULL},
    {"simd", PFB_PARAM_INT, 2, 0, 2, "1", "vector pair rows up to this level, where the CPU has it: 0 portable C, 1 AVX2, 2 AVX2 compiled for AVX-512VL; the same bits at every level", NULL},
    {"list_skin", PFB_PARAM_DOUBLE, 0.1, 0.01, 1.0, "1", "neighbour list radius: the largest reach times (1 + skin), kept until the moves since its build could bring a pair from beyond it into reach (core/halflist.h)", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

/* x^e, by repeated squaring when e is a small whole number (the paper's 5 and 3). */
static inline double powe(double x, double e)
{
    if (e >= 0.0 && e <= 32.0 && e == (double)(unsigned)e) {
        unsigned k = (unsigned)e;
        double r = 1.0, b = x;
        while (k) {
            if (k & 1u)
                r *= b;
            b *= b;
            k >>= 1;
        }
        return r;
    }
    return pow(x, e);
}

/* Eqs. 2-3 for a pair at squared distance D2 with vp = (v_p - v_i) . (x_p - x_i):
 * the coefficient c of the force c (x_p - x_i) on p, given the inverse squared
 * cut-offs ir2r = 1 / (c_r (r_i + r_p))^2 and ir2d = 1 / (c_d (r_i + r_p))^2;
 * *radial the law term's radial force s_r (b1/D^m - b2/D^n) D.  One square
 * root and one division: 1/D and its powers. */
static inline double law_coef(const mp_law *law, double D2, double vp, double ir2r, double ir2d, double *radial)
{
    const double qr = D2 * ir2r, qd = D2 * ir2d;
    *radial = 0.0;
    if (qr >= 1.0 && qd >= 1.0)
        return 0.0;
    const double D = sqrt(D2), iD = 1.0 / D;
    double coef = 0.0;
    if (qr < 1.0) { /* eq. 3 s_r, eq. 2 first term */
        const double law_term = (1.0 - qr) * (law->b1 * powe(iD, law->m) - law->b2 * powe(iD, law->n));
        coef += law_term;
        *radial = law_term * D;
    }
    if (qd < 1.0) /* eq. 3 s_d, eq. 2 drag */
        coef -= (1.0 - qd) * law->drag * vp * (iD * iD);
    return coef;
}

typedef struct mp_state {
    mp_law law;
    int material;
    double c_r, c_d;          /* fixed reaches (non-thermal) */
    double r0, c, k0;
    double r_n, r_t;
    int offset_radius;
    double t_solid, t_fluid, kappa, kappa_w;
    double cfl, reach_max;    /* neighbour radius: largest c_d (r_i + r_p) */
    int f_radius, f_temp;
    double spread, T0;        /* radius spread and initial temperature of new globules */
    uint64_t ids_seen;        /* globules with smaller ids have radius and temperature */
    double icr2, icd2;        /* 1 / c_r^2, 1 / c_d^2 */
    double *acc, *dT;         /* workspace: 3 n forces then accelerations, n heat sums then rates */
    size_t cap;
    int mi, ni;               /* m and n as whole numbers 0..32 (the lane rows), or -1: the scalar rows */
    int simd;                 /* the highest lane level allowed (core/lanes.h) */
    double per_L[3], per_I[3];/* the periods and their inverses (0 on open axes) */
    double le_s, le_U;        /* a sheared box's image offset and speed at the step's t */
    double box2;              /* the last step's moves' box (halflist_ensure), or -1 */
    size_t box_n;             /* the globules when it was measured */
    double cmax2;             /* the largest reach squared, in units of (r_i + r_p)^2 */
    pfb_row_buffers cj;       /* per thread, a row's pairs in reach (the lane rows) */
    double *pk;               /* per globule a packed record, 8 doubles: x, y, z, r, v, T (64-byte aligned) */
    size_t cap_pk;
    pfb_halflist L;           /* pairs within reach_max (1 + list_skin), core/halflist.h */
    pfb_pairtasks T;          /* their schedule, core/pairtasks.h */
} mp_state;

double mp_pair_force(const mp_law *law, int dim, const double xd[3], const double vd[3], double reach_r,
                     double reach_d, double f[3])
{
    double D2 = 0.0, vp = 0.0;
    for (int k = 0; k < dim; k++) {
        D2 += xd[k] * xd[k];
        vp += vd[k] * xd[k];
    }
    double radial;
    const double coef = law_coef(law, D2, vp, 1.0 / (reach_r * reach_r), 1.0 / (reach_d * reach_d), &radial);
    f[0] = f[1] = f[2] = 0.0;
    for (int k = 0; k < dim; k++)
        f[k] = coef * xd[k];
    return radial;
}

static inline double dot3(const double a[3], const double b[3], int dim)
{
    double s = 0.0;
    for (int k = 0; k < dim; k++)
        s += a[k] * b[k];
    return s;
}

int mp_collide(const pfb_shape *sh, int dim, double t, double dt, double offset, double r_n, double r_t,
               const double xa[3], double xb[3], double v[3])
{
    double N[3];
    double phi = shape_sdf(sh, dim, t, xb, N) - offset;
    if (phi >= 0.0)
        return 0;
    double vw[3];
    shape_velocity(sh, t, vw);
    /* the path in the shape's frame at time t: the start moves with the shape */
    double Pj[3] = {0, 0, 0}, C[3] = {0, 0, 0};
    for (int k = 0; k < dim; k++) {
        Pj[k] = xa[k] + vw[k] * dt;
        C[k] = xb[k] - phi * N[k]; /* closest point of the (offset) surface */
    }
    double d[3] = {0, 0, 0}, I[3] = {0, 0, 0};
    for (int k = 0; k < dim; k++)
        d[k] = xb[k] - Pj[k];
    double denom = dot3(d, N, dim), cp = 0.0;
    for (int k = 0; k < dim; k++)
        cp += (C[k] - Pj[k]) * N[k];
    if (denom < 0.0 && cp <= 0.0) { /* eq. 6: the ray crosses the tangent plane */
        double Dint = cp / denom;
        if (Dint > 1.0)
            Dint = 1.0;
        for (int k = 0; k < dim; k++)
            I[k] = Pj[k] + d[k] * Dint;
    } else { /* the start is already behind the plane: enter at the closest point */
        for (int k = 0; k < dim; k++)
            I[k] = C[k];
    }
    /* eqs. 7-8: R = P_{j+1} - I, R' = -N (N.R) r_n + T (T.R) r_t; T (T.R) is the
     * tangential part of R (eq. 5's T lies in the plane along the path) */
    double R[3] = {0, 0, 0};
    for (int k = 0; k < dim; k++)
        R[k] = xb[k] - I[k];
    double Rn = dot3(R, N, dim);
    for (int k = 0; k < dim; k++)
        xb[k] = I[k] - r_n * Rn * N[k] + r_t * (R[k] - Rn * N[k]);
    /* the velocity relative to the shape, reflected the same way */
    double vr[3] = {0, 0, 0};
    for (int k = 0; k < dim; k++)
        vr[k] = v[k] - vw[k];
    double vn = dot3(vr, N, dim);
    if (vn < 0.0)
        for (int k = 0; k < dim; k++)
            v[k] = vw[k] - r_n * vn * N[k] + r_t * (vr[k] - vn * N[k]);
    return 1;
}

static void mp_destroy(void *state)
{
    mp_state *s = state;
    if (!s)
        return;
    free(s->acc);
    free(s->dT);
    free(s->pk);
    row_buffers_free(&s->cj);
    halflist_free(&s->L);
    pairtasks_free(&s->T);
    free(s);
}

/* Radius and temperature of every globule whose id is new to the solver (all of
 * them at creation, an emitter's since): radii drawn in id order, so they do
 * not depend on the storage order. */
static int init_globules(mp_state *s, pfb_sim *sim, pfb_err *err)
{
    const uint64_t first = s->ids_seen, end = sim->p.next_id;
    if (end <= first)
        return PFB_OK;
    size_t *by_id = malloc((size_t)(end - first) * sizeof *by_id);
    if (!by_id)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory for %zu globule ids", (size_t)(end - first));
    for (uint64_t id = first; id < end; id++)
        by_id[id - first] = (size_t)-1;
    for (size_t i = 0; i < sim->p.n; i++)
        if (sim->p.id[i] >= first)
            by_id[sim->p.id[i] - first] = i;
    for (uint64_t id = first; id < end; id++) {
        size_t i = by_id[id - first];
        if (i == (size_t)-1)
            continue;
        double u = rng_uniform(&sim->rng);
        sim->p.field[s->f_radius].data[i] = 0.5 * s->r0 * (1.0 + s->spread * (2.0 * u - 1.0));
        sim->p.field[s->f_temp].data[i] = s->T0;
    }
    free(by_id);
    s->ids_seen = end;
    return PFB_OK;
}

/* The drag coefficient per unit kinematic viscosity of the lattice (see the header,
 * "Drag as a viscosity"): gamma / nu = 2 M / S,
 * S = sum_j s_d(r_j) x_j^2 y_j^2 / r_j^2 over the lattice sites within the reach. */
static double drag_per_nu(int dim, double dx, double reach, double M)
{
    const int n = (int)ceil(reach / dx);
    double S = 0.0;
    for (int a = -n; a <= n; a++)
        for (int b = -n; b <= n; b++)
            for (int c = (dim == 3 ? -n : 0); c <= (dim == 3 ? n : 0); c++) {
                const double x = a * dx, y = b * dx, z = c * dx, r2 = x * x + y * y + z * z;
                if (r2 == 0.0 || r2 >= reach * reach)
                    continue;
                S += (1.0 - r2 / (reach * reach)) * x * x * y * y / r2;
            }
    return S > 0.0 ? 2.0 * M / S : 0.0;
}

static int mp_create(const pfb_params *p, pfb_sim *sim, void **out, pfb_err *err)
{
    *out = NULL;
    mp_state *s = calloc(1, sizeof *s);
    if (!s)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory creating the miller_pearce solver");
    s->material = params_get_int(p, "material");
    const double preset[4][2] = {{1.0, 1.0}, {1.0, 2.0}, {2.0, 2.0}, {2.0, 2.0}}; /* c_r, c_d */
    s->c_r = params_get(p, "c_r") > 0 ? params_get(p, "c_r") : preset[s->material][0];
    s->c_d = params_get(p, "c_d") > 0 ? params_get(p, "c_d") : preset[s->material][1];
    s->law.m = params_get(p, "m");
    s->law.n = params_get(p, "n");
    if (!(s->law.n < s->law.m)) {
        double m = s->law.m, n = s->law.n;
        mp_destroy(s);
        return pfb_err_set(err, PFB_EINVAL, "miller_pearce: n = %g is not below m = %g; valid: n < m (eq. 2)", n, m);
    }
    s->t_solid = params_get(p, "t_solid");
    s->t_fluid = params_get(p, "t_fluid");
    if (s->material == MAT_THERMAL && !(s->t_solid < s->t_fluid)) {
        double a = s->t_solid, b = s->t_fluid;
        mp_destroy(s);
        return pfb_err_set(err, PFB_EINVAL, "miller_pearce: t_solid = %g is not below t_fluid = %g; valid: t_solid < t_fluid",
                           a, b);
    }
    if (sim->p.n == 0) {
        mp_destroy(s);
        return pfb_err_set(err, PFB_EINVAL, "miller_pearce: no globules; valid: a scene with particles");
    }
    const double r0 = params_get(p, "r0") * sim->spacing;
    const double M = sim->p.m[0];
    s->r0 = r0;
    const double c_si = params_get(p, "sound_speed_si");
    if (c_si > 0.0 && params_is_set(p, "sound_speed")) {
        mp_destroy(s);
        return pfb_err_set(err, PFB_EINVAL,
                           "miller_pearce: sound_speed = %g and sound_speed_si = %g are both given; valid: one of "
                           "them (sound_speed in v_ref, sound_speed_si in m/s)",
                           params_get(p, "sound_speed"), c_si);
    }
    const int ndrag = (params_get(p, "drag") > 0.0) + (params_get(p, "drag_nu") > 0.0) + params_is_set(p, "drag_ratio");
    if (ndrag > 1) {
        mp_destroy(s);
        return pfb_err_set(err, PFB_EINVAL,
                           "miller_pearce: drag = %g, drag_nu = %g and drag_ratio = %g: more than one given; valid: "
                           "one of them",
                           params_get(p, "drag"), params_get(p, "drag_nu"), params_get(p, "drag_ratio"));
    }
    s->c = c_si > 0.0 ? c_si : params_get(p, "sound_speed") * sim->v_ref;
    s->law.b1 = params_get(p, "b1");
    if (s->law.b1 == 0.0)
        s->law.b1 = M * (s->c / r0) * (s->c / r0) * pow(r0, s->law.m) / (s->law.m - s->law.n);
    s->law.b2 = s->law.b1 * pow(r0, s->law.n - s->law.m);
    s->k0 = (s->law.m - s->law.n) * s->law.b1 / pow(r0, s->law.m);
    s->c = r0 * sqrt(s->k0 / M);
    s->law.drag = params_get(p, "drag");
    if (s->law.drag == 0.0 && params_get(p, "drag_nu") > 0.0)
        s->law.drag = params_get(p, "drag_nu") * drag_per_nu(sim->dim, sim->spacing, s->c_d * r0, M);
    if (s->law.drag == 0.0)
        s->law.drag = params_get(p, "drag_ratio") * sqrt(2.0 * s->k0 * M);
    s->r_n = params_get(p, "restitution_n");
    s->r_t = params_get(p, "restitution_t");
    s->offset_radius = params_get_int(p, "wall_offset") == 1;
    s->kappa = params_get(p, "conductivity");
    s->kappa_w = params_get(p, "wall_conductance");
    s->cfl = params_get(p, "cfl");
    const double spread = params_get(p, "radius_spread");
    s->spread = spread;
    s->T0 = params_get(p, "temperature");
    double cmax = fmax(s->c_r, s->c_d);
    s->reach_max = cmax * r0 * (1.0 + spread);
    s->box2 = -1.0;
    s->cmax2 = s->material == MAT_THERMAL ? fmax(4.0, s->c_d * s->c_d) : cmax * cmax;
    s->icr2 = 1.0 / (s->c_r * s->c_r);
    s->icd2 = 1.0 / (s->c_d * s->c_d);
    halflist_init(&s->L, sim, s->reach_max,
                  halflist_skin(sim, s->reach_max, params_get(p, "list_skin"), params_is_set(p, "list_skin")));
    s->simd = params_get_int(p, "simd");
    s->mi = s->law.m == (double)(int)s->law.m && s->law.m <= 32.0 ? (int)s->law.m : -1;
    s->ni = s->law.n == (double)(int)s->law.n && s->law.n <= 32.0 ? (int)s->law.n : -1;
    for (int k = 0; k < 3; k++) {
        s->per_L[k] = sim->period.L[k];
        s->per_I[k] = sim->period.inv[k];
    }
    int rc = particles_add_field(&sim->p, "radius", 1, &s->f_radius, err);
    if (!rc)
        rc = particles_add_field(&sim->p, "temperature", 1, &s->f_temp, err);
    if (rc) {
        mp_destroy(s);
        return rc;
    }
    rc = init_globules(s, sim, err);
    if (rc) {
        mp_destroy(s);
        return rc;
    }
    *out = s;
    return PFB_OK;
}

/* Cut-offs of eq. 3 for a pair: c (r_i + r_p), with c_r from the pair's mean
 * temperature for the thermal material. */
static inline void pair_reach(const mp_state *s, double ri, double rp, double Ti, double Tp, double *reach_r,
                              double *reach_d)
{
    double cr = s->c_r;
    if (s->material == MAT_THERMAL) {
        double lam = (0.5 * (Ti + Tp) - s->t_solid) / (s->t_fluid - s->t_solid);
        lam = lam < 0.0 ? 0.0 : lam > 1.0 ? 1.0 : lam;
        cr = 2.0 - lam; /* solid c_r = 2 to fluid c_r = 1; c_d = 2 for both */
    }
    *reach_r = cr * (ri + rp);
    *reach_d = s->c_d * (ri + rp);
}

static int ensure_workspace(mp_state *s, size_t n, pfb_err *err)
{
    if (n <= s->cap)
        return PFB_OK;
    double *a = realloc(s->acc, 3 * n * sizeof *a);
    if (a)
        s->acc = a;
    double *d = realloc(s->dT, n * sizeof *d);
    if (d)
        s->dT = d;
    double *pk = a && d ? aligned_alloc(64, 8 * n * sizeof *pk) : NULL;
    if (!pk)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory for %zu globules", n);
    free(s->pk);
    s->pk = pk;
    s->cap = n;
    return PFB_OK;
}

/* The pair stages (core/pairtasks.h orders them per block): Z zeroes a block's
 * sums, R adds eq. 2's force and the conducted heat of each listed pair to
 * both globules (equal and opposite: the pair's coefficient is symmetric in
 * the two), A turns a block's sums into accelerations (eq. 9's a = F / M + g)
 * and temperature rates. */
typedef struct {
    mp_state *s;
    pfb_sim *sim;
    int level; /* the lane rows' level (core/lanes.h) */
} mp_ctx;

static void stage_zero(void *ctx, size_t b)
{
    const mp_ctx *c = ctx;
    const mp_state *s = c->s;
    const pfb_particles *p = &c->sim->p;
    const size_t lo = s->L.blk[b], hi = s->L.blk[b + 1];
    memset(s->acc + 3 * lo, 0, 3 * (hi - lo) * sizeof(double));
    memset(s->dT + lo, 0, (hi - lo) * sizeof(double));
    const double *rad = p->field[s->f_radius].data, *T = p->field[s->f_temp].data;
    const int dim3 = c->sim->dim == 3;
    for (size_t i = lo; i < hi; i++) { /* the records the lane rows read (mp_pack) */
        double *r = s->pk + 8 * i;
        r[0] = p->x[0][i];
        r[1] = p->x[1][i];
        r[2] = dim3 ? p->x[2][i] : 0.0;
        r[3] = rad[i];
        r[4] = p->v[0][i];
        r[5] = p->v[1][i];
        r[6] = dim3 ? p->v[2][i] : 0.0;
        r[7] = T[i];
    }
}

static void stage_rows(void *ctx, size_t b)
{
    const mp_ctx *c = ctx;
    const mp_state *s = c->s;
    const pfb_sim *sim = c->sim;
    const pfb_particles *p = &sim->p;
    const int dim = sim->dim, thermal = s->material == MAT_THERMAL, per = sim_periodic(sim), le = sim_sheared(sim);
    const double *rad = p->field[s->f_radius].data, *T = p->field[s->f_temp].data;
    const double R2 = s->reach_max * s->reach_max;
    const double *const x0 = p->x[0], *const x1 = p->x[1], *const x2 = p->x[2];
    const double *const v0 = p->v[0], *const v1 = p->v[1], *const v2 = p->v[2];
    double *restrict acc = s->acc, *restrict dT = s->dT;
    const uint32_t *restrict ls = s->L.ls, *restrict lj = s->L.lj;
    for (size_t i = s->L.blk[b]; i < s->L.blk[b + 1]; i++) {
        double F0 = 0.0, F1 = 0.0, F2 = 0.0, heat = 0.0;
        for (size_t q = ls[i]; q < ls[i + 1]; q++) {
            const size_t j = lj[q];
            double d0 = x0[i] - x0[j], d1 = x1[i] - x1[j], d2 = dim == 3 ? x2[i] - x2[j] : 0.0, du = 0.0;
            if (le) { /* the sheared box's minimum image; j's image moves at v_j + k U */
                double d[3] = {d0, d1, d2};
                du = period_le_dv(&sim->period, period_vec(&sim->period, dim, d));
                d0 = d[0];
                d1 = d[1];
                d2 = d[2];
            } else if (per) { /* minimum image */
                d0 = period_delta(&sim->period, 0, d0);
                d1 = period_delta(&sim->period, 1, d1);
                d2 = period_delta(&sim->period, 2, d2);
            }
            const double D2 = d0 * d0 + d1 * d1 + d2 * d2;
            if (D2 >= R2) /* the list's skin */
                continue;
            const double vp = (v0[i] - (v0[j] + du)) * d0 + (v1[i] - v1[j]) * d1 + (dim == 3 ? (v2[i] - v2[j]) * d2 : 0.0);
            const double rs = rad[i] + rad[j], w = 1.0 / (rs * rs);
            double ir2r = s->icr2 * w, radial;
            if (thermal) { /* the pair's c_r from its mean temperature (pair_reach) */
                double lam = (0.5 * (T[i] + T[j]) - s->t_solid) / (s->t_fluid - s->t_solid);
                lam = lam < 0.0 ? 0.0 : lam > 1.0 ? 1.0 : lam;
                ir2r = w / ((2.0 - lam) * (2.0 - lam));
            }
            const double ir2d = s->icd2 * w;
            const double coef = law_coef(&s->law, D2, vp, ir2r, ir2d, &radial);
            const double f0 = coef * d0, f1 = coef * d1, f2 = coef * d2;
            F0 += f0;
            F1 += f1;
            F2 += f2;
            acc[3 * j] -= f0;
            acc[3 * j + 1] -= f1;
            acc[3 * j + 2] -= f2;
            if (thermal) {
                const double qd = D2 * ir2d;
                if (qd < 1.0) {
                    const double hq = (1.0 - qd) * (T[j] - T[i]);
                    heat += hq;
                    dT[j] -= hq;
                }
            }
        }
        acc[3 * i] += F0;
        acc[3 * i + 1] += F1;
        acc[3 * i + 2] += F2;
        dT[i] += heat;
    }
}

#define LANES_ROWS "../solvers/miller_pearce_rows.inc"
#include "../core/lanes_levels.inc"
#undef LANES_ROWS

/* The rows of block b in lanes, at the run's level (mp_ctx.level). */
static void stage_lane_rows(void *ctx, size_t b)
{
    const mp_ctx *c = ctx;
    const int per = sim_sheared(c->sim) ? 2 : sim_periodic(c->sim), thermal = c->s->material == MAT_THERMAL;
    const size_t lo = c->s->L.blk[b], hi = c->s->L.blk[b + 1];
    LANES_AT(c->level, mp_rows, c->s, lo, hi, per, thermal);
}

static void stage_accel(void *ctx, size_t b)
{
    const mp_ctx *c = ctx;
    const mp_state *s = c->s;
    const pfb_sim *sim = c->sim;
    for (size_t i = s->L.blk[b]; i < s->L.blk[b + 1]; i++) {
        for (int k = 0; k < 3; k++)
            s->acc[3 * i + (size_t)k] = k < sim->dim ? s->acc[3 * i + (size_t)k] / sim->p.m[i] + sim->g[k] : 0.0;
        s->dT[i] *= s->kappa;
    }
}

static const pfb_stage mp_stages[] = {{0, stage_zero}, {1, stage_rows}, {0, stage_accel}};
static const pfb_stage mp_lane_stages[] = {{0, stage_zero}, {1, stage_lane_rows}, {0, stage_accel}};

/* Eq. 9 with eq. 2 forces, heat conduction, then §2.2 collisions. */
static int mp_step(void *state, pfb_sim *sim, double dt, pfb_err *err)
{
    mp_state *s = state;
    pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    const long n = (long)p->n;
    int rc = ensure_workspace(s, p->n, err);
    if (!rc)
        rc = init_globules(s, sim, err);
    int built;
    if (!rc)
        rc = halflist_ensure(&s->L, sim, p->n == s->box_n ? s->box2 : -1.0, 0, &built, err);
    if (rc)
        return rc;
    const int threads = pairtasks_threads(sim);
    const int lanes = s->mi >= 0 && s->ni >= 0 && p->n <= INT32_MAX; /* (32-bit signed indices in V_INDEX) */
    if (lanes) {
        rc = row_buffers_ensure(&s->cj, s->L.maxrow, threads, err);
        if (rc)
            return rc;
    }
    mp_ctx ctx = {s, sim, lanes ? lanes_level(s->simd) : 0};
    s->le_s = sim->period.le_s;
    s->le_U = sim->period.le_U;
    rc = pairtasks_run(&s->T, &s->L, lanes ? mp_lane_stages : mp_stages, 3, &ctx, threads,
                       sim_parallel_pairs(sim, p->n), err);
    if (rc)
        return rc;
    const double *rad = p->field[s->f_radius].data;
    double *T = p->field[s->f_temp].data;
    const int thermal = s->material == MAT_THERMAL;
    if (thermal) /* heated walls */
        for (size_t b = 0; b < sim->walls.n; b++) {
            const pfb_shape *sh = &sim->walls.s[b];
            if (!sh->heated)
                continue;
            for (size_t i = 0; i < p->n; i++) {
                double x[3] = {p->x[0][i], p->x[1][i], p->x[2][i]}, g[3];
                if (shape_sdf(sh, dim, sim->t, x, g) < s->r0 + rad[i])
                    s->dT[i] += s->kappa_w * (sh->temperature - T[i]);
            }
        }
    const double t1 = sim->t + dt;
    /* the shapes' centres at t1, for shape_clear: a globule surely clear of a
     * shape (exactly shape_sdf's phi >= offset) needs no mp_collide there */
    pfb_wall_step ws;
    sim_wall_step(sim, t1, 0.0, 0.0, 0.0, &ws);
    /* the moves' box since the list's sort, measured as the globules move
     * (core/halflist.h), for the next step's list check */
    const int measure = sim->bodies.n == 0 && halflist_is_sort(&s->L, sim);
    const double *xs[3] = {NULL, NULL, NULL};
    if (measure)
        grid_xs(&sim->grid, xs);
    pfb_move_box box = PFB_MOVE_BOX_EMPTY;
#pragma omp parallel num_threads(sim_threads(sim)) if (sim_parallel(sim, (size_t)n))
    {
        pfb_move_box own = PFB_MOVE_BOX_EMPTY;
#pragma omp for schedule(dynamic, 1024) nowait
        for (long ii = 0; ii < n; ii++) {
            size_t i = (size_t)ii;
            double xa[3] = {p->x[0][ii], p->x[1][ii], p->x[2][ii]}, xb[3] = {0, 0, 0}, v[3] = {0, 0, 0};
            for (int k = 0; k < dim; k++) { /* eq. 9 */
                double a = s->acc[3 * i + (size_t)k];
                xb[k] = xa[k] + p->v[k][ii] * dt + 0.5 * a * dt * dt;
                v[k] = p->v[k][ii] + a * dt;
            }
            xb[2] = dim == 3 ? xb[2] : 0.0;
            const double off = s->offset_radius ? rad[i] : 0.0;
            int hit = 1;
            for (int pass = 0; pass < 4 && hit; pass++) { /* §2.2, every shape; corners face by face */
                hit = 0;
                for (size_t b = 0; b < sim->walls.n; b++)
                    if (!shape_clear(&sim->walls.s[b], dim, ws.c[b], xb[0], xb[1], xb[2], off))
                        hit |= mp_collide(&sim->walls.s[b], dim, t1, dt, off, s->r_n, s->r_t, xa, xb, v);
            }
            if (hit) /* still colliding after 4 passes: put on the surface, never on the wrong side */
                for (size_t b = 0; b < sim->walls.n; b++) {
                    double N[3], phi = shape_sdf(&sim->walls.s[b], dim, t1, xb, N) - off;
                    if (phi < 0.0)
                        for (int k = 0; k < dim; k++)
                            xb[k] -= phi * N[k];
                }
            for (int k = 0; k < dim; k++) {
                p->x[k][ii] = xb[k];
                p->v[k][ii] = v[k];
            }
            if (thermal)
                T[i] += dt * s->dT[i];
            for (int k = 0; measure && k < dim; k++) {
                const double d = xb[k] - xs[k][i];
                own.lo[k] = d < own.lo[k] ? d : own.lo[k];
                own.hi[k] = d > own.hi[k] ? d : own.hi[k];
            }
        }
#pragma omp critical(mp_move_box)
        move_box_merge(&box, &own); /* (min and max: any order gives the same box) */
    }
    s->box2 = measure ? move_box_r2(&box) : -1.0;
    s->box_n = p->n;
    /* rigid bodies: the shared projection coupling (core/sim.h) at half a spacing */
    sim_bodies_couple(sim, dt, t1, 0.5 * sim->spacing, 0.0);
    sim_positions_changed(sim);
    return PFB_OK;
}

static double mp_suggest_dt(const void *state, const pfb_sim *sim)
{
    const mp_state *s = state;
    return s->cfl * s->r0 / (s->c + sim->v_ref);
}

static const char *const mp_diag_names[] = {"b1", "k0", "t_mean", "t_max", "fluid_fraction", "list_builds", NULL};

static void mp_diag(const void *state, const pfb_sim *sim, double *values)
{
    const mp_state *s = state;
    const pfb_particles *p = &sim->p;
    const double *T = p->field[s->f_temp].data;
    double sum = 0.0, mx = -INFINITY;
    size_t fluid = 0;
    for (size_t i = 0; i < p->n; i++) {
        sum += T[i];
        mx = fmax(mx, T[i]);
        fluid += T[i] >= s->t_fluid;
    }
    values[0] = s->law.b1;
    values[1] = s->k0;
    values[2] = p->n ? sum / (double)p->n : NAN;
    values[3] = p->n ? mx : NAN;
    values[4] = p->n ? (double)fluid / (double)p->n : NAN;
    values[5] = (double)s->L.builds;
}

/* The pair virial (solver.h): eq. 2's force on i from j, attraction, repulsion
 * and drag, dotted with r_ij = x_i - x_j (and its axis terms), halved, over
 * the marked particles. */
static double mp_pair_virial(const void *state, const pfb_sim *sim, const unsigned char *in, double diag[4])
{
    const mp_state *s = state;
    const pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    pfb_nlist nl;
    memset(&nl, 0, sizeof nl);
    pfb_err err;
    if (sim_neighbours_fresh(sim, s->reach_max, &nl, &err)) {
        nlist_free(&nl);
        return NAN;
    }
    const double *rad = p->field[s->f_radius].data, *T = p->field[s->f_temp].data;
    double W = 0.0, D[4] = {0.0, 0.0, 0.0, 0.0};
    for (size_t i = 0; i < p->n; i++) {
        if (!in[i])
            continue;
        for (size_t q = nl.start[i]; q < nl.start[i + 1]; q++) {
            const size_t j = nl.idx[q];
            double xd[3] = {0, 0, 0}, vd[3] = {0, 0, 0}, f[3] = {0, 0, 0}, rr, rd;
            const double kk = period_diff(&sim->period, dim, (const double *const *)p->x, i, j, xd);
            for (int k = 0; k < dim; k++)
                vd[k] = p->v[k][i] - p->v[k][j];
            vd[0] -= period_le_dv(&sim->period, kk); /* a sheared box's image of j moves at v_j + k U */
            pair_reach(s, rad[i], rad[j], T[i], T[j], &rr, &rd);
            mp_pair_force(&s->law, dim, xd, vd, rr, rd, f);
            for (int k = 0; k < dim; k++) {
                W += 0.5 * xd[k] * f[k];
                D[k] += 0.5 * xd[k] * f[k];
            }
            D[3] += 0.5 * xd[1] * f[0];
        }
    }
    nlist_free(&nl);
    if (diag)
        memcpy(diag, D, sizeof D);
    return W;
}

/* Checkpoints: the globules seen, the last step's moves' box (it decides the
 * next list check), and the list's builds. */
static int mp_save(const void *state, const pfb_sim *sim, pfb_ckpt_w *w, pfb_err *err)
{
    (void)err;
    const mp_state *s = state;
    ckpt_put_many(w, "MPST", &s->ids_seen, sizeof s->ids_seen, &s->box2, sizeof s->box2, &s->box_n, sizeof s->box_n,
                  (void *)NULL);
    halflist_save(&s->L, sim, w);
    return PFB_OK;
}

static int mp_load(void *state, pfb_sim *sim, pfb_ckpt_r *r, pfb_err *err)
{
    mp_state *s = state;
    char buf[sizeof s->ids_seen + sizeof s->box2 + sizeof s->box_n];
    int rc = ckpt_get_exact(r, "MPST", buf, sizeof buf, err);
    if (rc)
        return rc;
    memcpy(&s->ids_seen, buf, sizeof s->ids_seen);
    memcpy(&s->box2, buf + sizeof s->ids_seen, sizeof s->box2);
    memcpy(&s->box_n, buf + sizeof s->ids_seen + sizeof s->box2, sizeof s->box_n);
    int rebuilt;
    return halflist_load(&s->L, sim, r, &rebuilt, err);
}

const pfb_solver_ops pfb_solver_miller_pearce = {
    "miller_pearce",
    "G. Miller, A. Pearce. Globular dynamics: a connected particle system for animating viscous fluids. "
    "Computers & Graphics 13(3), 1989",
    mp_params,
    mp_create,
    mp_step,
    mp_destroy,
    mp_suggest_dt,
    mp_diag_names,
    mp_diag,
    NULL,
    NULL,
    NULL,
    NULL,
    mp_pair_virial,
    mp_save,
    mp_load,
    {500.0, 600.0},
    PFB_STRESS_NONE};
