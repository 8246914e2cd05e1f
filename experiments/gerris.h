/* gerris.h — the continuum reference: input files for Gerris (Popinet's
 * adaptive two-phase Navier-Stokes solver, Debian's package `gerris`, 1.3.2), the
 * reader of what it writes, the reference's own convergence, and the reference
 * CSVs the validation reads (issue 46).
 *
 * Gerris solves the incompressible Navier-Stokes equations of two fluids with a
 * volume-of-fluid tracer T (1 in the liquid):
 *   rho (du/dt + u . grad u) = -grad p + div(mu (grad u + grad u^T)) + sigma kappa delta_s n + rho g,
 *   div u = 0,
 * with rho = T rho_l + (1 - T) rho_g and mu alike (evaluated on T1, T filtered
 * once, as Gerris's two-phase examples do), kappa from height functions
 * (VariableTracerVOFHeight in 2D; gerris3D aborts in height_normal, so 3D uses
 * VariableTracerVOF and Gerris's own curvature).  The gas is air (1.2 kg/m^3,
 * 1.8e-5 Pa s), so the liquid's density ratio is about 830.
 *
 * Choices where neither the methods' papers nor Gerris fix one:
 *   - the time step: Gerris's CFL rule (0.8) and dtmax = 1.25e-4 s.  Without a
 *     dtmax the front is first order in the step and 4% fast at the default CFL;
 *     1.25e-4 s keeps it within 0.1% (issue 46's trial);
 *   - the mesh: each box of side L refined `level` times (dx = L / 2^level)
 *     wherever T1 > 1e-3 (the liquid and a cell of gas around it), coarsened
 *     to level - 3 in the gas away from it: the liquid is resolved uniformly,
 *     as the particle methods resolve it, at the cost of the liquid's area;
 *   - the walls: Gerris's default box boundary is a free-slip wall (zero normal
 *     velocity, zero tangential stress); no-slip adds u = 0 on every wall
 *     (BcDirichlet);
 *   - m4 is not installed with gerris, so the constants are C macros in a
 *     `Global` block, not Define.
 *
 * Cases (gfs_case): the dam break (the dam_break scene: a column a x 2a at the
 * left wall of a tank 4a x 3a, a = 0.25 m; 3D 4a x 3a x a), the free drop (the
 * drop scene: R = 0.1 m stretched by (1 + eps, 1 / (1 + eps)), no gravity, in a
 * closed box 12.8 R wide: a quarter domain with symmetry walls gave spurious
 * modes), the pool at rest (width 1 m, depth 0.5 m, the lid 1 m up) and the
 * periodic shear wave (single phase, u_x = U sin(2 pi y / L)).
 *
 * Outputs (Gerris writes them in the run's directory; gfs_read_* parse them):
 *   dam break: front (OutputScalarStats of the interface's x: its max is the
 *   front), height (OutputScalarSum of T over the wall's column of finest cells,
 *   over dx: the residual height at the wall), ke (sum of T rho_l |u|^2 / 2),
 *   volume (sum of T; per unit depth in 2D), snapshots (OutputSimulation as text:
 *   x y z T per cell) where asked; with no-slip walls also wetted (the largest x
 *   of the floor's row of finest cells with T > 0.5: the contact line, the
 *   wetted length less half a cell);
 *   drop: ixx, iyy (3D izz), volume: the deformation D = (Ixx - Iyy)/(Ixx + Iyy)
 *   (2D) or (2 Iyy - Ixx - Izz)/(Ixx + Iyy + Izz) (3D), material.h's definition;
 *   pool: OutputLocation of P at the slabs' depths and at the surface;
 *   wave: the sum of U sin(k y) (times 2 / L^2: the amplitude A(t)). */
#ifndef PFB_GERRIS_H
#define PFB_GERRIS_H

#include <stddef.h>
#include <stdio.h>

#include "../core/error.h"

typedef enum { GFS_DAM_BREAK = 0, GFS_DROP, GFS_POOL, GFS_WAVE } gfs_kind;

/* The geometry of the scenes the cases reproduce. */
#define GFS_DAM_A 0.25     /* column width a (m); tank 4a x 3a (x a in 3D) */
#define GFS_DROP_R 0.1     /* drop radius (m) */
#define GFS_DROP_EPS 0.05  /* the mode-2 stretch */
#define GFS_DROP_BOX 12.8  /* the drop's closed box, in units of R */
#define GFS_POOL_DEPTH 0.5 /* pool depth (m); width 1 m, lid at 1 m */
#define GFS_WAVE_L 0.8     /* shear-wave box (m), periodic */
#define GFS_WAVE_U 0.05    /* its amplitude (m/s) */
#define GFS_GRAVITY 9.81
/* The drop's surface tension: the drop experiment's (scenes/drop.ini: a 2D
 * R = 0.1 m drop's Rayleigh period 0.5 s, sigma = omega^2 rho R^3 / 6) */
#define GFS_DROP_SIGMA 26.3
#define GFS_DTMAX 1.25e-4
#define GFS_AIR_RHO 1.2
#define GFS_AIR_MU 1.8e-5

typedef struct gfs_case {
    const char *name;       /* dam_break_slip, drop, ... */
    gfs_kind kind;
    int dim;                /* 2 or 3 */
    int noslip;             /* walls: 0 free slip, 1 no slip */
    double rho, nu, sigma;  /* the liquid: density, kinematic viscosity, surface tension */
    double t_end, dt_out;   /* simulated time and the outputs' interval (s) */
    double snap_dt;         /* > 0: the T field every snap_dt (dam break) */
    int levels[3];          /* refinement levels, coarsest first (0 ends) */
    int quick_level;        /* the one level the quick experiment runs */
} gfs_case;

/* The box side of a case (the mesh's dx at level l is gfs_box(c) / 2^l). */
double gfs_box(const gfs_case *c);

/* Gerris's input file for case c at refinement level (1..12): *text (free it)
 * of *len bytes.  An unknown kind or a level out of range is an error. */
int gfs_input(const gfs_case *c, int level, char **text, size_t *len, pfb_err *err);

/* Gerris's version ("1.3.2 (131206-155120)") from `prog -V` (prog: gerris2D or
 * gerris3D), or an error saying how to install it. */
int gfs_version(const char *prog, char *out, size_t len, pfb_err *err);

/* Run `prog input.gfs` in dir (standard output and error to dir/gerris.log),
 * with Open MPI allowed to run as root (Gerris refuses otherwise); wall and CPU
 * seconds of the child.  A failure names the log. */
int gfs_run(const char *prog, const char *dir, double *wall, double *cpu, pfb_err *err);

/* One output file of Gerris: rows of (t, value) from the lines of text,
 *   OutputScalarStats: "NAME time: t min: a avg: b | c max: d"  (value: max)
 *   OutputScalarSum:   "NAME time: t sum: s"                    (value: sum)
 * Lines of neither form are an error naming the file (name) and the line. */
typedef struct gfs_series {
    double *t, *v;
    size_t n;
} gfs_series;
int gfs_read_series(const char *text, const char *name, gfs_series *s, pfb_err *err);
void gfs_series_free(gfs_series *s);

/* OutputLocation's text: "# 1:t 2:x 3:y 4:z 5:P ..." then "t x y z P ..." rows;
 * the P column of each row whose time is the last one, in the rows' order
 * (at most nmax); *n their number. */
int gfs_read_location_last(const char *text, const char *name, double *p, size_t nmax, size_t *n, pfb_err *err);

/* Three levels' values f[0] (coarsest), f[1], f[2] at refinement ratio 2:
 * the observed order p = log2(|f1 - f0| / |f2 - f1|), the Richardson estimate
 * f_inf = f2 + (f2 - f1) / (2^p - 1), and the error bar of the finest level
 * |f2 - f_inf|.  Where the differences do not shrink (p not finite or <= 0:
 * no asymptotic convergence), p and f_inf are NAN and the error bar is
 * |f2 - f1| + |f1 - f0| (what the levels show, not an estimate). */
typedef struct gfs_richardson {
    double p, f_inf, bar;
} gfs_richardson;
void gfs_richardson3(const double f[3], gfs_richardson *r);

/* A reference CSV: provenance lines "# key: value" (among them "fluid: rho R nu
 * N sigma S"), then a header row and rows of finite numbers.  gfs_ref_load reads
 * path (text when path is NULL: the test's), refuses, with one line naming the
 * file and what is wrong: a column of `need` missing, a value that is not a
 * finite number (naming its row and column), a fluid line that differs from
 * rho, nu, sigma by more than 1e-6 relative (naming both), or no fluid line. */
typedef struct gfs_ref {
    size_t ncol, nrow;
    char **names;
    double *data; /* nrow x ncol */
    char version[128], input[256];
    int level;
    double dx, bar;
} gfs_ref;
int gfs_ref_parse(const char *text, const char *name, const char *const *need, double rho, double nu, double sigma,
                  gfs_ref *r, pfb_err *err);
int gfs_ref_load(const char *path, const char *const *need, double rho, double nu, double sigma, gfs_ref *r,
                 pfb_err *err);
int gfs_ref_col(const gfs_ref *r, const char *name);
double gfs_ref_get(const gfs_ref *r, size_t row, int col);
void gfs_ref_free(gfs_ref *r);

/* The fluid line as the reference CSVs write it. */
void gfs_fluid_line(char *buf, size_t len, double rho, double nu, double sigma);

#endif
