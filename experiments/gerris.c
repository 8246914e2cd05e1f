/* gerris.c — Gerris input files, its outputs read back, the reference's
 * convergence and the reference CSVs (gerris.h has the equations and choices). */
#include "gerris.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/output.h"
#include "experiment.h"

double gfs_box(const gfs_case *c)
{
    switch (c->kind) {
    case GFS_DAM_BREAK:
        return GFS_DAM_A;
    case GFS_DROP:
        return GFS_DROP_BOX * GFS_DROP_R;
    case GFS_POOL:
        return 2.0 * GFS_POOL_DEPTH;
    case GFS_WAVE:
        return GFS_WAVE_L;
    }
    return NAN;
}

/* The boxes and their connections: nx x ny (x nz) boxes of side L, box 1
 * centred on the origin; walls on every outer face (no-slip: u = 0 there);
 * periodic: one box joined to itself. */
static void gfs_boxes(FILE *f, int dim, int nx, int ny, int nz, int noslip, int periodic, const char *body)
{
    const int nb = nx * ny * nz;
    int ne = 0;
    if (periodic)
        ne = dim;
    else
        ne = (nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1);
    fprintf(f, "%d %d GfsSimulation GfsBox GfsGEdge {} {\n%s}\n", nb, ne, body);
    const char *bc = dim == 3 ? "Boundary { BcDirichlet U 0 BcDirichlet V 0 BcDirichlet W 0 }"
                              : "Boundary { BcDirichlet U 0 BcDirichlet V 0 }";
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                fprintf(f, "GfsBox {");
                if (noslip) {
                    if (i == 0)
                        fprintf(f, " left = %s", bc);
                    if (i == nx - 1)
                        fprintf(f, " right = %s", bc);
                    if (j == 0)
                        fprintf(f, " bottom = %s", bc);
                    if (j == ny - 1)
                        fprintf(f, " top = %s", bc);
                    if (dim == 3 && k == 0)
                        fprintf(f, " back = %s", bc);
                    if (dim == 3 && k == nz - 1)
                        fprintf(f, " front = %s", bc);
                }
                fprintf(f, " }\n");
            }
    if (periodic) {
        fprintf(f, "1 1 right\n1 1 top\n");
        if (dim == 3)
            fprintf(f, "1 1 front\n");
        return;
    }
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                const int id = 1 + i + nx * (j + ny * k);
                if (i + 1 < nx)
                    fprintf(f, "%d %d right\n", id, id + 1);
                if (j + 1 < ny)
                    fprintf(f, "%d %d top\n", id, id + nx);
                if (k + 1 < nz)
                    fprintf(f, "%d %d front\n", id, id + nx * ny);
            }
}

/* The two-phase set-up shared by the dam break, the drop and the pool. */
static void gfs_two_phase(FILE *f, const gfs_case *c, int level, int adapt)
{
    const double mu = c->rho * c->nu;
    fprintf(f, "  Global {\n"
               "    #define RHOL %.17g\n"
               "    #define CL(T) CLAMP(T, 0., 1.)\n"
               "    #define RHO(T) (CL(T) * RHOL + (1. - CL(T)) * %.17g)\n"
               "    #define MU(T) (CL(T) * %.17g + (1. - CL(T)) * %.17g)\n"
               "  }\n",
            c->rho, GFS_AIR_RHO, mu, GFS_AIR_MU);
    fprintf(f, "  Time { end = %.17g dtmax = %.17g }\n", c->t_end, GFS_DTMAX);
    fprintf(f, "  PhysicalParams { L = %.17g }\n", gfs_box(c));
    fprintf(f, "  Refine %d\n", level);
    fprintf(f, "  %s T\n", c->dim == 2 ? "VariableTracerVOFHeight" : "VariableTracerVOF");
    fprintf(f, "  VariableFiltered T1 T 1\n");
    if (adapt)
        fprintf(f, "  AdaptFunction { istep = 1 } { cmax = 0.5 maxlevel = %d minlevel = %d } (T1 > 1e-3)\n", level,
                level > 3 ? level - 3 : 1);
}

static void gfs_tail(FILE *f, const gfs_case *c)
{
    fprintf(f, "  PhysicalParams { alpha = 1./RHO(T1) }\n");
    fprintf(f, "  SourceViscosity MU(T1)\n");
    if (c->sigma > 0) {
        fprintf(f, "  VariableCurvature K T\n");
        fprintf(f, "  SourceTension T %.17g K\n", c->sigma);
    }
}

int gfs_input(const gfs_case *c, int level, char **text, size_t *len, pfb_err *err)
{
    if (level < 1 || level > 12)
        return pfb_err_set(err, PFB_EINVAL, "Gerris case '%s': level %d; valid: 1 to 12", c->name, level);
    if (c->dim != 2 && c->dim != 3)
        return pfb_err_set(err, PFB_EINVAL, "Gerris case '%s': dim %d; valid: 2 or 3", c->name, c->dim);
    if (c->kind != GFS_DAM_BREAK && c->dim == 3)
        return pfb_err_set(err, PFB_EINVAL, "Gerris case '%s': 3D is written for the dam break only; valid: dim 2",
                           c->name);
    if (!(c->rho > 0) || !(c->nu > 0) || !(c->sigma >= 0) || !(c->t_end > 0) || !(c->dt_out > 0))
        return pfb_err_set(err, PFB_EINVAL, "Gerris case '%s': rho %g, nu %g, sigma %g, t_end %g, dt_out %g; valid: "
                                            "rho, nu, t_end, dt_out > 0 and sigma >= 0",
                           c->name, c->rho, c->nu, c->sigma, c->t_end, c->dt_out);
    *text = NULL;
    *len = 0;
    FILE *body = open_memstream(text, len);
    if (!body)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory writing the Gerris input of '%s'", c->name);
    char *inner = NULL;
    size_t ilen = 0;
    FILE *f = open_memstream(&inner, &ilen);
    if (!f) {
        fclose(body);
        free(*text);
        *text = NULL;
        return pfb_err_set(err, PFB_ENOMEM, "out of memory writing the Gerris input of '%s'", c->name);
    }
    const double L = gfs_box(c), dxf = L / (double)(1 << level);
    int nx = 1, ny = 1, periodic = 0; /* the boxes (gfs_boxes) */
    const double half = 0.5 * L;
    fprintf(body, "# pfbench reference case %s, level %d (dx = %.6g m): experiments/gerris.h\n", c->name, level, dxf);
    switch (c->kind) {
    case GFS_DAM_BREAK: {
        /* box 1 centred on the origin: the tank is [-a/2, 3.5 a] x [-a/2, 2.5 a] (x [-a/2, a/2]) */
        const double xw = -half, yw = -half, a = GFS_DAM_A;
        gfs_two_phase(f, c, level, 1);
        fprintf(f, "  InitFraction T (-MAX(x - %.17g, y - %.17g))\n", xw + a, yw + 2.0 * a);
        gfs_tail(f, c);
        fprintf(f, "  Source V %.17g\n", -GFS_GRAVITY);
        fprintf(f, "  VariablePosition X T x\n");
        fprintf(f, "  OutputScalarStats { step = %.17g } front { v = X }\n", c->dt_out);
        /* the wall's column of finest cells (centres at xw + dx/2; a coarser
         * cell's centre is at xw + dx or beyond) */
        fprintf(f, "  OutputScalarSum { step = %.17g } height { v = (x < %.17g ? T : 0.) }\n", c->dt_out,
                xw + 0.75 * dxf);
        fprintf(f, "  OutputScalarSum { step = %.17g } ke { v = T * RHOL / 2. * (U * U + V * V%s) }\n", c->dt_out,
                c->dim == 3 ? " + W * W" : "");
        fprintf(f, "  OutputScalarSum { step = %.17g } volume { v = T }\n", c->dt_out);
        if (c->noslip) /* the wetted floor: the floor's row of finest cells that are mostly liquid */
            fprintf(f, "  OutputScalarStats { step = %.17g } wetted { v = (y < %.17g && T > 0.5 ? x : %.17g) }\n",
                    c->dt_out, yw + 0.75 * dxf, xw);
        if (c->snap_dt > 0)
            fprintf(f, "  OutputSimulation { step = %.17g } snap-%%g.txt { format = text variables = T }\n",
                    c->snap_dt);
        nx = 4;
        ny = 3;
        break;
    }
    case GFS_DROP: {
        const double R = GFS_DROP_R, s = 1.0 + GFS_DROP_EPS;
        gfs_two_phase(f, c, level, 1);
        fprintf(f, "  InitFraction T (1. - (x * x) / %.17g - (y * y) / %.17g)\n", R * R * s * s, R * R / (s * s));
        gfs_tail(f, c);
        fprintf(f, "  OutputScalarSum { step = %.17g } ixx { v = T * x * x }\n", c->dt_out);
        fprintf(f, "  OutputScalarSum { step = %.17g } iyy { v = T * y * y }\n", c->dt_out);
        fprintf(f, "  OutputScalarSum { step = %.17g } volume { v = T }\n", c->dt_out);
        break;
    }
    case GFS_POOL: {
        /* one box [-0.5, 0.5]^2: the liquid below y = 0 (depth 0.5), air above */
        gfs_two_phase(f, c, level, 0);
        fprintf(f, "  InitFraction T (-y)\n");
        gfs_tail(f, c);
        fprintf(f, "  Source V %.17g\n", -GFS_GRAVITY);
        fprintf(f, "  OutputLocation { step = %.17g } pressure {\n", c->dt_out);
        fprintf(f, "    0 -0.15 0\n    0 -0.25 0\n    0 -0.35 0\n    0 0.25 0\n  }\n");
        fprintf(f, "  OutputScalarSum { step = %.17g } ke { v = T * RHOL / 2. * (U * U + V * V) }\n", c->dt_out);
        break;
    }
    case GFS_WAVE: {
        /* single phase (alpha = 1: the viscosity is kinematic), periodic */
        fprintf(f, "  Time { end = %.17g dtmax = %.17g }\n", c->t_end, GFS_DTMAX);
        fprintf(f, "  PhysicalParams { L = %.17g }\n", L);
        fprintf(f, "  Refine %d\n", level);
        fprintf(f, "  Init {} { U = %.17g * sin(2. * M_PI * y / %.17g) }\n", GFS_WAVE_U, L);
        fprintf(f, "  SourceViscosity %.17g\n", c->nu);
        fprintf(f, "  OutputScalarSum { step = %.17g } amplitude { v = U * sin(2. * M_PI * y / %.17g) }\n",
                c->dt_out, L);
        periodic = 1;
        break;
    }
    default:
        fclose(f);
        free(inner);
        fclose(body);
        free(*text);
        *text = NULL;
        return pfb_err_set(err, PFB_EINVAL, "Gerris case '%s': unknown kind %d; valid: dam break, drop, pool, wave",
                           c->name, (int)c->kind);
    }
    fprintf(f, "  OutputTime { istep = 1000 } stderr\n");
    fclose(f);
    gfs_boxes(body, c->dim, nx, ny, 1, c->noslip && !periodic, periodic, inner);
    free(inner);
    if (fclose(body) != 0) {
        free(*text);
        *text = NULL;
        return pfb_err_set(err, PFB_ENOMEM, "out of memory writing the Gerris input of '%s'", c->name);
    }
    return PFB_OK;
}

/* ---- Gerris's outputs --------------------------------------------------------- */

static int series_push(gfs_series *s, size_t *cap, double t, double v)
{
    if (s->n == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        double *nt = realloc(s->t, nc * sizeof *nt);
        if (!nt)
            return -1;
        s->t = nt;
        double *nv = realloc(s->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        s->v = nv;
        *cap = nc;
    }
    s->t[s->n] = t;
    s->v[s->n] = v;
    s->n++;
    return 0;
}

int gfs_read_series(const char *text, const char *name, gfs_series *s, pfb_err *err)
{
    memset(s, 0, sizeof *s);
    size_t cap = 0;
    long line = 0;
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        const size_t n = e ? (size_t)(e - p) : strlen(p);
        char buf[512];
        line++;
        if (n == 0 || n >= sizeof buf) {
            if (n >= sizeof buf) {
                gfs_series_free(s);
                return pfb_err_set(err, PFB_EINVAL, "Gerris output '%s' line %ld is %zu bytes long; valid: a line "
                                                    "of OutputScalarStats or OutputScalarSum",
                                   name, line, n);
            }
            p = e ? e + 1 : NULL;
            continue;
        }
        memcpy(buf, p, n);
        buf[n] = '\0';
        double t, mn, avg, sd, mx, sum;
        int used = 0;
        if (sscanf(buf, "%*s time: %lf min: %lf avg: %lf | %lf max: %lf %n", &t, &mn, &avg, &sd, &mx, &used) == 5 &&
            buf[used] == '\0') {
            sum = mx;
        } else if (used = 0, sscanf(buf, "%*s time: %lf sum: %lf %n", &t, &sum, &used) == 2 && buf[used] == '\0') {
        } else {
            gfs_series_free(s);
            return pfb_err_set(err, PFB_EINVAL, "Gerris output '%s' line %ld '%.60s' is not a line of "
                                                "OutputScalarStats or OutputScalarSum; valid: 'NAME time: T sum: S' "
                                                "or 'NAME time: T min: A avg: B | C max: D'",
                               name, line, buf);
        }
        if (!isfinite(t) || !isfinite(sum)) {
            gfs_series_free(s);
            return pfb_err_set(err, PFB_EINVAL, "Gerris output '%s' line %ld has a value that is not finite; valid: "
                                                "finite numbers",
                               name, line);
        }
        if (series_push(s, &cap, t, sum)) {
            gfs_series_free(s);
            return pfb_err_set(err, PFB_ENOMEM, "out of memory reading '%s'", name);
        }
        p = e ? e + 1 : NULL;
    }
    return PFB_OK;
}

void gfs_series_free(gfs_series *s)
{
    free(s->t);
    free(s->v);
    memset(s, 0, sizeof *s);
}

int gfs_read_location_last(const char *text, const char *name, double *p, size_t nmax, size_t *n, pfb_err *err)
{
    *n = 0;
    int col = -1;
    double tlast = -INFINITY;
    long line = 0;
    for (const char *q = text; q && *q;) {
        const char *e = strchr(q, '\n');
        const size_t len = e ? (size_t)(e - q) : strlen(q);
        char buf[1024];
        line++;
        if (len >= sizeof buf)
            return pfb_err_set(err, PFB_EINVAL, "Gerris output '%s' line %ld is too long; valid: OutputLocation rows",
                               name, line);
        memcpy(buf, q, len);
        buf[len] = '\0';
        q = e ? e + 1 : NULL;
        if (buf[0] == '#') {
            /* "# 1:t 2:x 3:y 4:z 5:P ..." */
            char *at = strstr(buf, ":P ");
            if (!at && len >= 2 && !strcmp(buf + len - 2, ":P"))
                at = buf + len - 2;
            if (at) {
                const char *d = at;
                while (d > buf && d[-1] >= '0' && d[-1] <= '9')
                    d--;
                col = atoi(d) - 1;
            }
            continue;
        }
        if (len == 0)
            continue;
        if (col < 4)
            return pfb_err_set(err, PFB_EINVAL, "Gerris output '%s' has no P column before line %ld; valid: a header "
                                                "'# 1:t 2:x 3:y 4:z 5:P'",
                               name, line);
        double v[64];
        int k = 0;
        char *s = buf, *end;
        while (k < 64) {
            double x = strtod(s, &end);
            if (end == s)
                break;
            v[k++] = x;
            s = end;
        }
        if (k <= col || !isfinite(v[0]) || !isfinite(v[col]))
            return pfb_err_set(err, PFB_EINVAL, "Gerris output '%s' line %ld has %d numbers; valid: at least %d "
                                                "finite ones",
                               name, line, k, col + 1);
        if (v[0] > tlast) {
            tlast = v[0];
            *n = 0;
        }
        if (*n < nmax)
            p[(*n)++] = v[col];
    }
    return PFB_OK;
}

/* ---- the reference's convergence ------------------------------------------- */

void gfs_richardson3(const double f[3], gfs_richardson *r)
{
    const double d0 = f[1] - f[0], d1 = f[2] - f[1];
    r->p = NAN;
    r->f_inf = NAN;
    r->bar = fabs(d1) + fabs(d0);
    if (!isfinite(d0) || !isfinite(d1)) {
        r->bar = NAN;
        return;
    }
    if (d1 == 0.0) {
        /* converged to the digits: the finest level is the limit */
        r->p = INFINITY;
        r->f_inf = f[2];
        r->bar = 0.0;
        return;
    }
    /* monotone convergence only: differences of one sign that shrink */
    if (d0 * d1 <= 0.0 || fabs(d1) >= fabs(d0))
        return;
    const double p = log2(fabs(d0) / fabs(d1));
    r->p = p;
    r->f_inf = f[2] + d1 / (pow(2.0, p) - 1.0);
    r->bar = fabs(f[2] - r->f_inf);
}

/* ---- reference CSVs ------------------------------------------------------------ */

void gfs_fluid_line(char *buf, size_t len, double rho, double nu, double sigma)
{
    snprintf(buf, len, "rho %.9g nu %.9g sigma %.9g", rho, nu, sigma);
}

static int rel_differs(double a, double b)
{
    return !(fabs(a - b) <= 1e-6 * fmax(fabs(a), fabs(b)));
}

int gfs_ref_parse(const char *text, const char *name, const char *const *need, double rho, double nu, double sigma,
                  gfs_ref *r, pfb_err *err)
{
    memset(r, 0, sizeof *r);
    r->level = -1;
    r->dx = NAN;
    r->bar = NAN;
    const char *p = text;
    int have_fluid = 0;
    long line = 0;
    /* provenance */
    while (p && *p == '#') {
        const char *e = strchr(p, '\n');
        const size_t n = e ? (size_t)(e - p) : strlen(p);
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf - 1 ? n : sizeof buf - 1), p);
        line++;
        p = e ? e + 1 : p + n;
        char *v = strchr(buf, ':');
        if (!v)
            continue;
        *v++ = '\0';
        while (*v == ' ')
            v++;
        const char *key = buf + 1;
        while (*key == ' ')
            key++;
        if (!strcmp(key, "fluid")) {
            double fr, fn, fs;
            if (sscanf(v, "rho %lf nu %lf sigma %lf", &fr, &fn, &fs) != 3)
                return pfb_err_set(err, PFB_EINVAL, "reference '%s' line %ld: fluid '%s'; valid: 'rho R nu N sigma S'",
                                   name, line, v);
            if (rel_differs(fr, rho) || rel_differs(fn, nu) || rel_differs(fs, sigma))
                return pfb_err_set(err, PFB_EINVAL, "reference '%s' is for the fluid 'rho %g nu %g sigma %g', not the "
                                                    "one measured (rho %g nu %g sigma %g); valid: a reference made for "
                                                    "this fluid (make reference)",
                                   name, fr, fn, fs, rho, nu, sigma);
            have_fluid = 1;
        } else if (!strcmp(key, "gerris")) {
            snprintf(r->version, sizeof r->version, "%s", v);
        } else if (!strcmp(key, "input")) {
            snprintf(r->input, sizeof r->input, "%s", v);
        } else if (!strcmp(key, "level")) {
            r->level = atoi(v);
        } else if (!strcmp(key, "dx")) {
            r->dx = strtod(v, NULL);
        } else if (!strcmp(key, "error bar")) {
            r->bar = strtod(v, NULL);
        }
    }
    if (!have_fluid)
        return pfb_err_set(err, PFB_EINVAL, "reference '%s' has no '# fluid:' line; valid: a reference CSV written by "
                                            "pfbench exp reference",
                           name);
    csv_table t;
    int rc = csv_table_parse(&t, p, strlen(p), name, err);
    if (rc)
        return rc;
    for (size_t k = 0; need && need[k]; k++) {
        int found = 0;
        for (size_t c = 0; c < t.ncol; c++)
            found |= !strcmp(t.names[c], need[k]);
        if (!found) {
            char valid[256] = "";
            size_t len = 0;
            for (size_t j = 0; need[j] && len < sizeof valid; j++)
                len += (size_t)snprintf(valid + len, sizeof valid - len, "%s%s", j ? "," : "", need[j]);
            csv_table_free(&t);
            return pfb_err_set(err, PFB_EINVAL, "reference '%s' has no column '%s'; valid: a header with %s", name,
                               need[k], valid);
        }
    }
    for (size_t row = 0; row < t.nrow; row++)
        for (size_t c = 0; c < t.ncol; c++)
            if (!isfinite(t.data[row * t.ncol + c])) {
                rc = pfb_err_set(err, PFB_EINVAL, "reference '%s' row %zu column '%s' is not a finite number; valid: "
                                                  "finite numbers in every cell",
                                 name, row + 1, t.names[c]);
                csv_table_free(&t);
                return rc;
            }
    if (t.nrow == 0) {
        csv_table_free(&t);
        return pfb_err_set(err, PFB_EINVAL, "reference '%s' has no rows; valid: at least one", name);
    }
    r->ncol = t.ncol;
    r->nrow = t.nrow;
    r->names = t.names;
    r->data = t.data;
    return PFB_OK;
}

int gfs_ref_load(const char *path, const char *const *need, double rho, double nu, double sigma, gfs_ref *r,
                 pfb_err *err)
{
    char *text = NULL;
    size_t len = 0;
    memset(r, 0, sizeof *r);
    int rc = output_read_file(path, "the reference", &text, &len, err);
    if (rc)
        return rc;
    rc = gfs_ref_parse(text, path, need, rho, nu, sigma, r, err);
    free(text);
    return rc;
}

int gfs_ref_col(const gfs_ref *r, const char *name)
{
    for (size_t c = 0; c < r->ncol; c++)
        if (!strcmp(r->names[c], name))
            return (int)c;
    return -1;
}

double gfs_ref_get(const gfs_ref *r, size_t row, int col)
{
    return col < 0 || row >= r->nrow ? NAN : r->data[row * r->ncol + (size_t)col];
}

void gfs_ref_free(gfs_ref *r)
{
    for (size_t c = 0; c < r->ncol; c++)
        free(r->names[c]);
    free(r->names);
    free(r->data);
    memset(r, 0, sizeof *r);
}

/* ---- running Gerris ---------------------------------------------------------- */

/* Gerris's version line ("1.3.2 (131206-155120)"), or an error saying how to
 * install it. */
int gfs_version(const char *prog, char *out, size_t len, pfb_err *err)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%s -V 2>&1", prog);
    FILE *p = popen(cmd, "r");
    out[0] = '\0';
    if (p) {
        char line[512];
        while (fgets(line, sizeof line, p)) {
            const char *v = strstr(line, "version ");
            if (v && !out[0]) {
                snprintf(out, len, "%s", v + 8);
                out[strcspn(out, "\r\n")] = '\0';
            }
        }
        pclose(p);
    }
    if (!out[0])
        return pfb_err_set(err, PFB_EIO, "'%s' is not installed or does not run; valid: Debian's gerris, libgfs-dev "
                                         "and openmpi-bin (scripts/deps.sh reference)",
                           prog);
    return PFB_OK;
}

/* Run prog input.gfs in dir (stdout and stderr to gerris.log); wall and CPU
 * seconds of the child. */
int gfs_run(const char *prog, const char *dir, double *wall, double *cpu, pfb_err *err)
{
    struct rusage r0, r1;
    struct timespec t0, t1;
    getrusage(RUSAGE_CHILDREN, &r0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return pfb_err_set(err, PFB_EIO, "cannot start %s: %s", prog, strerror(errno));
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        FILE *log = freopen("gerris.log", "w", stdout);
        if (!log || dup2(fileno(stdout), 2) < 0)
            _exit(126);
        /* Gerris is an MPI program: as root, Open MPI refuses to start without these */
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
        execlp(prog, prog, "input.gfs", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return pfb_err_set(err, PFB_EIO, "waiting for %s: %s", prog, strerror(errno));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    getrusage(RUSAGE_CHILDREN, &r1);
    *wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    *cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec + r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
           1e-6 * (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec + r1.ru_stime.tv_usec - r0.ru_stime.tv_usec);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return pfb_err_set(err, PFB_EIO, "%s failed in '%s' (%s %d; its log: %s/gerris.log)", prog, dir,
                           WIFEXITED(status) ? "exit status" : "signal",
                           WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), dir);
    return PFB_OK;
}

