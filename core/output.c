/* output.c — CSV, metadata and VTK writers with write-to-temporary-and-rename. */
#include "output.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const pfb_series_columns[] = {
    "frame", "t",    "n",    "mass", "ke",   "pe",   "px",         "py",
    "pz",    "lx",   "ly",   "lz",   "comx", "comy", "comz",       "xmin",
    "xmax",  "ymin", "ymax", "zmin", "zmax", "volume_rel", "density_err_mean", "density_err_max",
    NULL};

static int mkdir_p(const char *dir, pfb_err *err)
{
    char buf[4096];
    size_t len = strlen(dir);
    if (len == 0 || len >= sizeof buf)
        return pfb_err_set(err, PFB_EINVAL, "output directory '%s' is invalid; valid: a path of 1 to %zu characters",
                           dir, sizeof buf - 1);
    memcpy(buf, dir, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return pfb_err_set(err, PFB_EIO,
                                   "cannot create output directory '%s': %s; valid: a path whose parents are "
                                   "writable directories",
                                   buf, strerror(errno));
            buf[i] = c;
        }
    }
    return PFB_OK;
}

int output_prepare_dir(const char *dir, pfb_err *err)
{
    int rc = mkdir_p(dir, err);
    if (rc)
        return rc;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return pfb_err_set(err, PFB_EIO, "output path '%s' is not a directory; valid: a directory or a new path",
                           dir);
    if (access(dir, W_OK | X_OK) != 0)
        return pfb_err_set(err, PFB_EIO, "output directory '%s' is not writable: %s; valid: a writable directory",
                           dir, strerror(errno));
    return PFB_OK;
}

static int join(char *out, size_t len, const char *dir, const char *name, pfb_err *err)
{
    int n = snprintf(out, len, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= len)
        return pfb_err_set(err, PFB_EINVAL, "path '%s/%s' is too long; valid: under %zu characters", dir, name,
                           len);
    return PFB_OK;
}

/* Close f (the temporary tmp) and rename it to path; any write to f that
 * failed (the stream's error flag is sticky), the flush or the close removes
 * the temporary, so no file that looks complete is left. */
static int finish(FILE *f, const char *tmp, const char *path, pfb_err *err)
{
    errno = 0;
    int bad = fflush(f) != 0 || ferror(f);
    const int werr = errno;
    bad |= fclose(f) != 0;
    if (bad) {
        const int e = werr ? werr : errno;
        remove(tmp);
        return pfb_err_set(err, PFB_EIO, "cannot write '%s': %s", path, e ? strerror(e) : "write error");
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return pfb_err_set(err, PFB_EIO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(e));
    }
    return PFB_OK;
}

static FILE *open_tmp(const char *path, char *tmp, size_t len, pfb_err *err)
{
    if (snprintf(tmp, len, "%s.tmp", path) >= (int)len) {
        pfb_err_set(err, PFB_EINVAL, "path '%s' is too long", path);
        return NULL;
    }
    FILE *f = fopen(tmp, "w");
    if (!f)
        pfb_err_set(err, PFB_EIO, "cannot open '%s' for writing: %s", tmp, strerror(errno));
    return f;
}

int output_write_file(const char *path, const char *text, size_t len, pfb_err *err)
{
    char tmp[4200];
    FILE *f = open_tmp(path, tmp, sizeof tmp, err);
    if (!f)
        return PFB_EIO;
    fwrite(text, 1, len, f);
    return finish(f, tmp, path, err);
}

int output_read_file(const char *path, const char *what, char **text, size_t *len, pfb_err *err)
{
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return pfb_err_set(err, PFB_EIO, "cannot read %s '%s': %s", what, path, strerror(errno));
    size_t cap = 1 << 14, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - 1 - n, f)) > 0) {
        n += got;
        if (n == cap - 1) {
            char *b = realloc(buf, 2 * cap);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    const int bad = ferror(f);
    fclose(f);
    if (!buf)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory reading %s '%s'", what, path);
    if (bad) {
        free(buf);
        return pfb_err_set(err, PFB_EIO, "cannot read %s '%s'", what, path);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return PFB_OK;
}

int output_write_stream(FILE *mem, char **text, size_t *len, const char *path, pfb_err *err)
{
    int rc = fclose(mem) != 0 || !*text ? pfb_err_set(err, PFB_ENOMEM, "out of memory writing '%s'", path)
                                        : output_write_file(path, *text, *len, err);
    free(*text);
    *text = NULL;
    return rc;
}

int series_open(pfb_series *s, const char *dir, const char *const *extra, pfb_err *err)
{
    memset(s, 0, sizeof *s);
    int rc = join(s->path, sizeof s->path, dir, "series.csv", err);
    if (rc)
        return rc;
    s->f = open_tmp(s->path, s->tmp, sizeof s->tmp, err);
    if (!s->f)
        return PFB_EIO;
    for (size_t i = 0; pfb_series_columns[i]; i++)
        fprintf(s->f, "%s%s", i ? "," : "", pfb_series_columns[i]);
    for (size_t i = 0; extra && extra[i]; i++, s->nextra++)
        fprintf(s->f, ",%s", extra[i]);
    fputc('\n', s->f);
    return PFB_OK;
}

int series_row(pfb_series *s, long frame, const pfb_diag *d, const double *extra, pfb_err *err)
{
    fprintf(s->f, "%ld,%.9g,%zu,%.17g,%.10g,%.10g", frame, d->t, d->n, d->mass, d->ke, d->pe);
    const double *vecs[5] = {d->p, d->l, d->com, NULL, NULL};
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 3; k++)
            fprintf(s->f, ",%.10g", vecs[v][k]);
    for (int k = 0; k < 3; k++)
        fprintf(s->f, ",%.10g,%.10g", d->lo[k], d->hi[k]);
    fprintf(s->f, ",%.10g,%.10g,%.10g", d->volume_rel, d->density_err_mean, d->density_err_max);
    for (size_t i = 0; i < s->nextra; i++)
        fprintf(s->f, ",%.10g", extra[i]);
    fputc('\n', s->f);
    if (ferror(s->f))
        return pfb_err_set(err, PFB_EIO, "cannot write '%s': %s", s->tmp, strerror(errno));
    return PFB_OK;
}

int series_close(pfb_series *s, pfb_err *err)
{
    if (!s->f)
        return PFB_OK;
    int rc = finish(s->f, s->tmp, s->path, err);
    s->f = NULL;
    return rc;
}

void series_abort(pfb_series *s)
{
    if (s->f) {
        fclose(s->f);
        remove(s->tmp);
        s->f = NULL;
    }
}

static int frame_path(char *out, size_t len, const char *dir, long frame, const char *ext, pfb_err *err)
{
    char sub[4096];
    int rc = join(sub, sizeof sub, dir, "frames", err);
    if (rc)
        return rc;
    /* only frames/ itself: a run directory removed under the run is an error,
     * not a directory to make again */
    if (mkdir(sub, 0777) != 0 && errno != EEXIST)
        return pfb_err_set(err, PFB_EIO, "cannot create '%s': %s", sub, strerror(errno));
    int n = snprintf(out, len, "%s/frame_%05ld.%s", sub, frame, ext);
    if (n < 0 || (size_t)n >= len)
        return pfb_err_set(err, PFB_EINVAL, "frame path under '%s' is too long", sub);
    return PFB_OK;
}

int output_frame_csv(const char *dir, long frame, const pfb_sim *sim, pfb_err *err)
{
    char path[4200], tmp[4300];
    int rc = frame_path(path, sizeof path, dir, frame, "csv", err);
    if (rc)
        return rc;
    FILE *f = open_tmp(path, tmp, sizeof tmp, err);
    if (!f)
        return PFB_EIO;
    const pfb_particles *p = &sim->p;
    fputs("x,y,z,vx,vy,vz,mass", f);
    for (size_t k = 0; k < p->nfields; k++) {
        const pfb_field *fd = &p->field[k];
        if (fd->ncomp == 1)
            fprintf(f, ",%s", fd->name);
        else
            for (int c = 0; c < fd->ncomp; c++)
                fprintf(f, ",%s_%d", fd->name, c);
    }
    fputc('\n', f);
    for (size_t i = 0; i < p->n; i++) {
        fprintf(f, "%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g", p->x[0][i], p->x[1][i], p->x[2][i], p->v[0][i],
                p->v[1][i], p->v[2][i], p->m[i]);
        for (size_t k = 0; k < p->nfields; k++) {
            const pfb_field *fd = &p->field[k];
            for (int c = 0; c < fd->ncomp; c++)
                fprintf(f, ",%.10g", fd->data[i * (size_t)fd->ncomp + (size_t)c]);
        }
        fputc('\n', f);
    }
    return finish(f, tmp, path, err);
}

int output_frame_vtp(const char *dir, long frame, const pfb_sim *sim, pfb_err *err)
{
    char path[4200], tmp[4300];
    int rc = frame_path(path, sizeof path, dir, frame, "vtp", err);
    if (rc)
        return rc;
    FILE *f = open_tmp(path, tmp, sizeof tmp, err);
    if (!f)
        return PFB_EIO;
    const pfb_particles *p = &sim->p;
    fprintf(f, "<?xml version=\"1.0\"?>\n"
               "<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
               "<PolyData>\n<Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"0\" "
               "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
               "<Points>\n<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n",
            p->n, p->n);
    for (size_t i = 0; i < p->n; i++)
        fprintf(f, "%.10g %.10g %.10g\n", p->x[0][i], p->x[1][i], p->x[2][i]);
    fputs("</DataArray>\n</Points>\n<PointData>\n"
          "<DataArray type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\" format=\"ascii\">\n",
          f);
    for (size_t i = 0; i < p->n; i++)
        fprintf(f, "%.10g %.10g %.10g\n", p->v[0][i], p->v[1][i], p->v[2][i]);
    fputs("</DataArray>\n<DataArray type=\"Float64\" Name=\"mass\" format=\"ascii\">\n", f);
    for (size_t i = 0; i < p->n; i++)
        fprintf(f, "%.10g\n", p->m[i]);
    fputs("</DataArray>\n", f);
    for (size_t k = 0; k < p->nfields; k++) {
        const pfb_field *fd = &p->field[k];
        fprintf(f, "<DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"ascii\">\n",
                fd->name, fd->ncomp);
        for (size_t i = 0; i < p->n; i++)
            for (int c = 0; c < fd->ncomp; c++)
                fprintf(f, "%.10g%c", fd->data[i * (size_t)fd->ncomp + (size_t)c],
                        c + 1 == fd->ncomp ? '\n' : ' ');
        fputs("</DataArray>\n", f);
    }
    fputs("</PointData>\n<Verts>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n", f);
    for (size_t i = 0; i < p->n; i++)
        fprintf(f, "%zu\n", i);
    fputs("</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n", f);
    for (size_t i = 0; i < p->n; i++)
        fprintf(f, "%zu\n", i + 1);
    fputs("</DataArray>\n</Verts>\n</Piece>\n</PolyData>\n</VTKFile>\n", f);
    return finish(f, tmp, path, err);
}

int output_pvd(const char *dir, long nframes, const double *t, pfb_err *err)
{
    char path[4200], tmp[4300];
    int rc = join(path, sizeof path, dir, "frames.pvd", err);
    if (rc)
        return rc;
    FILE *f = open_tmp(path, tmp, sizeof tmp, err);
    if (!f)
        return PFB_EIO;
    fputs("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n<Collection>\n", f);
    for (long k = 0; k < nframes; k++)
        fprintf(f, "<DataSet timestep=\"%.9g\" part=\"0\" file=\"frames/frame_%05ld.vtp\"/>\n", t[k], k);
    fputs("</Collection>\n</VTKFile>\n", f);
    return finish(f, tmp, path, err);
}

int series_text(pfb_series *s, char **text, size_t *len, pfb_err *err)
{
    *text = NULL;
    *len = 0;
    if (fflush(s->f) || ferror(s->f))
        return pfb_err_set(err, PFB_EIO, "cannot write '%s': %s", s->tmp, strerror(errno));
    return output_read_file(s->tmp, "back the series", text, len, err);
}

int series_restore(pfb_series *s, const char *text, size_t len, pfb_err *err)
{
    if (fflush(s->f) || ftruncate(fileno(s->f), 0) || fseek(s->f, 0, SEEK_SET) ||
        fwrite(text, 1, len, s->f) != len || fflush(s->f))
        return pfb_err_set(err, PFB_EIO, "cannot write '%s': %s", s->tmp, strerror(errno));
    return PFB_OK;
}
