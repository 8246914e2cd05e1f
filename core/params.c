/* params.c — typed parameter tables: defaults, checked parsing, formatting and
 * INI files (via libinih).
 *
 * Conventions:
 *  - Every failure returns a PFB_E* status and writes exactly one line into err
 *    (err may be NULL).  User-supplied text quoted in a message is shortened and
 *    control characters are replaced by '?', so a message never spans lines.
 *  - Text values may carry surrounding whitespace; it is ignored.  DOUBLE text
 *    goes through strtod, INT text through strtol (base 10); both must consume
 *    the whole value.  NaN and infinities are rejected.  BOOL words are matched
 *    case-insensitively, CHOICE words exactly (case-sensitive).
 *  - params_get / params_get_int never abort: a key missing from the table is a
 *    programming error and yields NaN / 0 respectively.
 *  - No globals are written: the INI handler gets its context through inih's
 *    user pointer, and libinih's own run-time settings are left untouched.
 *
 * Line numbers in INI files: the installed libinih is built without
 * INI_HANDLER_LINENO (the handler signature is fixed when the library is
 * compiled, so defining it here would break the ABI).  Instead the file is read
 * through ini_parse_stream with our own fgets-style reader, which counts the
 * lines it hands to inih.  The reader also rejects lines longer than inih's line
 * buffer (inih would otherwise split them and misnumber what follows), and stops
 * the parse at the first error, so only the first message is kept. */
#include "params.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#define SHOW_MAX 96   /* room for a quoted piece of user text (incl. "..." and NUL) */
#define LIST_MAX 320  /* room for a list of valid names or a range description */
#define NUM_MAX 40    /* room for one formatted double */

/* ------------------------------------------------------------------------- */
/* Bounded text building                                                      */

typedef struct text_buf {
    char *s;
    size_t cap;
    size_t len;
} text_buf;

static void tb_init(text_buf *b, char *s, size_t cap)
{
    b->s = s;
    b->cap = cap;
    b->len = 0;
    if (cap > 0)
        s[0] = '\0';
}

/* Append n bytes of src; on overflow the text ends in "...". */
static void tb_putn(text_buf *b, const char *src, size_t n)
{
    if (b->cap == 0)
        return;
    size_t room = b->cap - 1 - b->len;
    if (n <= room) {
        memcpy(b->s + b->len, src, n);
        b->len += n;
        b->s[b->len] = '\0';
        return;
    }
    memcpy(b->s + b->len, src, room);
    b->len = b->cap - 1;
    b->s[b->len] = '\0';
    if (b->cap >= 4)
        memcpy(b->s + b->cap - 4, "...", 3);
}

static void tb_puts(text_buf *b, const char *src)
{
    tb_putn(b, src, strlen(src));
}

/* Copy n bytes of user text for quoting in a message: control characters become
 * '?', and text longer than the buffer is cut (at a UTF-8 character boundary)
 * and ends in "...".  cap must be at least 4. */
static void show_text(const char *s, size_t n, char *out, size_t cap)
{
    int cut = n > cap - 1;
    size_t keep = cut ? cap - 4 : n;
    if (cut) {
        while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80)
            keep--;
    }
    size_t k;
    for (k = 0; k < keep; k++) {
        unsigned char c = (unsigned char)s[k];
        out[k] = (c < 0x20 || c == 0x7F) ? '?' : (char)c;
    }
    if (cut) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
}

/* %g for messages, falling back to %.17g when %g would show a different value
 * (so "1.0000000000000002 is out of range; valid: 0 to 1" never reads "1 ... 1"). */
static void fmt_num(double v, char *out, size_t cap)
{
    snprintf(out, cap, "%g", v);
    if (isfinite(v) && strtod(out, NULL) != v)
        snprintf(out, cap, "%.17g", v);
}

/* Shortest of %.15g, %.16g, %.17g that reads back as exactly v. */
static void fmt_exact(double v, char *out, size_t cap)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, cap, "%.*g", prec, v);
        if (!isfinite(v) || strtod(out, NULL) == v)
            return;
    }
}

static int is_space(char c)
{
    return isspace((unsigned char)c) != 0;
}

/* Case-insensitive comparison of n bytes of s with the whole of word. */
static int eq_nocase(const char *s, size_t n, const char *word)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (word[i] == '\0' ||
            tolower((unsigned char)s[i]) != tolower((unsigned char)word[i]))
            return 0;
    }
    return word[i] == '\0';
}

static const char *owner_of(const pfb_params *p)
{
    return p->owner ? p->owner : "parameters";
}

static int is_integral(double v)
{
    return isfinite(v) && v == floor(v);
}

/* ------------------------------------------------------------------------- */
/* CHOICE word lists ("csv|vtp|none") and BOOL words                          */

/* Start of word idx in a '|'-separated list and its length; NULL if absent. */
static const char *choice_word(const char *choices, size_t idx, size_t *len)
{
    const char *w = choices;
    *len = 0;
    for (size_t i = 0;; i++) {
        const char *bar = strchr(w, '|');
        size_t n = bar ? (size_t)(bar - w) : strlen(w);
        if (i == idx) {
            *len = n;
            return w;
        }
        if (!bar)
            return NULL;
        w = bar + 1;
    }
}

static size_t choice_count(const char *choices)
{
    size_t count = 1;
    for (const char *c = choices; *c; c++)
        count += (*c == '|');
    return count;
}

/* Index of the word equal to the n bytes at text, or -1. */
static long choice_lookup(const char *choices, const char *text, size_t n)
{
    size_t count = choice_count(choices);
    for (size_t i = 0; i < count; i++) {
        size_t wl = 0;
        const char *w = choice_word(choices, i, &wl);
        if (w && wl == n && memcmp(w, text, n) == 0)
            return (long)i;
    }
    return -1;
}

static void choice_list(const char *choices, text_buf *b)
{
    size_t count = choice_count(choices);
    for (size_t i = 0; i < count; i++) {
        size_t wl = 0;
        const char *w = choice_word(choices, i, &wl);
        if (i > 0)
            tb_puts(b, ", ");
        if (w)
            tb_putn(b, w, wl);
    }
}

static const char *const bool_true_words[] = {"true", "yes", "on", "1"};
static const char *const bool_false_words[] = {"false", "no", "off", "0"};

/* 1 or 0 for a recognised word, -1 otherwise. */
static int bool_lookup(const char *text, size_t n)
{
    for (size_t i = 0; i < sizeof bool_true_words / sizeof bool_true_words[0]; i++) {
        if (eq_nocase(text, n, bool_true_words[i]))
            return 1;
        if (eq_nocase(text, n, bool_false_words[i]))
            return 0;
    }
    return -1;
}

/* ------------------------------------------------------------------------- */
/* Messages                                                                   */

/* "lo to hi (unit)", the BOOL words, or the CHOICE words. */
static void describe_valid(const pfb_param_spec *s, char *out, size_t cap)
{
    text_buf b;
    tb_init(&b, out, cap);
    switch (s->type) {
    case PFB_PARAM_DOUBLE:
    case PFB_PARAM_INT: {
        char lo[NUM_MAX], hi[NUM_MAX];
        fmt_num(s->min, lo, sizeof lo);
        fmt_num(s->max, hi, sizeof hi);
        tb_puts(&b, lo);
        tb_puts(&b, " to ");
        tb_puts(&b, hi);
        if (s->unit && s->unit[0] && strcmp(s->unit, "1") != 0) {
            tb_puts(&b, " (");
            tb_puts(&b, s->unit);
            tb_puts(&b, ")");
        }
        break;
    }
    case PFB_PARAM_BOOL:
        tb_puts(&b, "true, false, yes, no, on, off, 1, 0");
        break;
    case PFB_PARAM_CHOICE:
        choice_list(s->choices, &b);
        break;
    default:
        tb_puts(&b, "(unknown type)");
        break;
    }
}

/* "OWNER: value 'SHOWN' for 'NAME' PROBLEM; valid: VALID" (VALID described from
 * the spec when NULL). */
static int fail_value(const pfb_params *p, const pfb_param_spec *s, const char *shown,
                      const char *problem, const char *valid, pfb_err *err)
{
    char desc[LIST_MAX];
    if (!valid) {
        describe_valid(s, desc, sizeof desc);
        valid = desc;
    }
    return pfb_err_set(err, PFB_EINVAL, "%s: value '%s' for '%s' %s; valid: %s",
                       owner_of(p), shown, s->name, problem, valid);
}

/* Unknown key: suggest the nearest name, or list them all. */
static int fail_unknown_key(const pfb_params *p, const char *key, pfb_err *err)
{
    char shown[SHOW_MAX];
    show_text(key, strlen(key), shown, sizeof shown);

    const char *near = NULL;
    if (p->n > 0) {
        const char **names = malloc(p->n * sizeof *names);
        if (names) {
            for (size_t i = 0; i < p->n; i++)
                names[i] = p->spec[i].name;
            near = pfb_nearest(key, names, p->n);
            free(names);
        }
    }
    if (near)
        return pfb_err_set(err, PFB_EINVAL, "%s: unknown parameter '%s'; did you mean '%s'?",
                           owner_of(p), shown, near);

    char list[LIST_MAX];
    text_buf b;
    tb_init(&b, list, sizeof list);
    for (size_t i = 0; i < p->n; i++) {
        if (i > 0)
            tb_puts(&b, ", ");
        tb_puts(&b, p->spec[i].name);
    }
    if (p->n == 0)
        tb_puts(&b, "(none: this table has no parameters)");
    return pfb_err_set(err, PFB_EINVAL, "%s: unknown parameter '%s'; valid: %s",
                       owner_of(p), shown, list);
}

/* ------------------------------------------------------------------------- */
/* Spec validation                                                            */

static int check_spec(const char *who, const pfb_param_spec *spec, size_t i, pfb_err *err)
{
    const pfb_param_spec *s = &spec[i];
    char a[NUM_MAX], lo[NUM_MAX], hi[NUM_MAX];

    if (s->name[0] == '\0')
        return pfb_err_set(err, PFB_EINVAL, "%s: parameter %zu has an empty name", who, i);
    for (size_t j = 0; j < i; j++) {
        if (strcmp(spec[j].name, s->name) == 0)
            return pfb_err_set(err, PFB_EINVAL, "%s: parameter '%s' is declared twice",
                               who, s->name);
    }

    fmt_num(s->def, a, sizeof a);
    fmt_num(s->min, lo, sizeof lo);
    fmt_num(s->max, hi, sizeof hi);

    switch (s->type) {
    case PFB_PARAM_DOUBLE:
    case PFB_PARAM_INT:
        if (isnan(s->min) || isnan(s->max) || s->min > s->max)
            return pfb_err_set(err, PFB_EINVAL, "%s: parameter '%s' has an invalid range %s to %s",
                               who, s->name, lo, hi);
        if (s->type == PFB_PARAM_INT &&
            (!is_integral(s->min) || !is_integral(s->max) ||
             s->min < (double)INT_MIN || s->max > (double)INT_MAX))
            return pfb_err_set(err, PFB_EINVAL,
                               "%s: integer parameter '%s' has range %s to %s; "
                               "bounds must be integers within %d to %d",
                               who, s->name, lo, hi, INT_MIN, INT_MAX);
        if (!isfinite(s->def) || s->def < s->min || s->def > s->max)
            return pfb_err_set(err, PFB_EINVAL, "%s: default %s of parameter '%s' is outside %s to %s",
                               who, a, s->name, lo, hi);
        if (s->type == PFB_PARAM_INT && !is_integral(s->def))
            return pfb_err_set(err, PFB_EINVAL,
                               "%s: default %s of integer parameter '%s' is not an integer",
                               who, a, s->name);
        break;
    case PFB_PARAM_BOOL:
        if (s->def != 0.0 && s->def != 1.0)
            return pfb_err_set(err, PFB_EINVAL, "%s: default %s of bool parameter '%s' is not 0 or 1",
                               who, a, s->name);
        break;
    case PFB_PARAM_CHOICE: {
        if (!s->choices || s->choices[0] == '\0')
            return pfb_err_set(err, PFB_EINVAL, "%s: choice parameter '%s' has no choices",
                               who, s->name);
        size_t count = choice_count(s->choices);
        for (size_t k = 0; k < count; k++) {
            size_t wl = 0;
            const char *w = choice_word(s->choices, k, &wl);
            if (!w || wl == 0)
                return pfb_err_set(err, PFB_EINVAL,
                                   "%s: choice parameter '%s' has an empty word in '%s'",
                                   who, s->name, s->choices);
            if (choice_lookup(s->choices, w, wl) != (long)k)
                return pfb_err_set(err, PFB_EINVAL,
                                   "%s: choice parameter '%s' lists '%.*s' twice in '%s'",
                                   who, s->name, (int)wl, w, s->choices);
        }
        if (!is_integral(s->def) || s->def < 0.0 || s->def >= (double)count)
            return pfb_err_set(err, PFB_EINVAL,
                               "%s: default index %s of choice parameter '%s' is outside 0 to %zu (%s)",
                               who, a, s->name, count - 1, s->choices);
        break;
    }
    default:
        return pfb_err_set(err, PFB_EINVAL, "%s: parameter '%s' has unknown type %d",
                           who, s->name, (int)s->type);
    }
    return PFB_OK;
}

/* ------------------------------------------------------------------------- */
/* Public API: tables                                                         */

size_t params_spec_count(const pfb_param_spec *spec)
{
    size_t n = 0;
    if (spec) {
        while (spec[n].name)
            n++;
    }
    return n;
}

int params_copy(pfb_params *dst, const pfb_params *src, pfb_err *err)
{
    int rc = params_init(dst, src->spec, src->owner, err);
    if (rc)
        return rc;
    memcpy(dst->val, src->val, src->n * sizeof *dst->val);
    memcpy(dst->is_set, src->is_set, src->n);
    return PFB_OK;
}

int params_init(pfb_params *p, const pfb_param_spec *spec, const char *owner, pfb_err *err)
{
    const char *who = owner ? owner : "parameters";
    if (!p)
        return pfb_err_set(err, PFB_EINVAL, "%s: no parameter set to initialise", who);
    memset(p, 0, sizeof *p);
    if (!spec)
        return pfb_err_set(err, PFB_EINVAL, "%s: no parameter table given", who);

    size_t n = params_spec_count(spec);
    if (n > (size_t)INT_MAX)
        return pfb_err_set(err, PFB_EINVAL, "%s: too many parameters (%zu)", who, n);
    for (size_t i = 0; i < n; i++) {
        int rc = check_spec(who, spec, i, err);
        if (rc)
            return rc;
    }

    size_t alloc = n > 0 ? n : 1;
    double *val = malloc(alloc * sizeof *val);
    unsigned char *is_set = calloc(alloc, 1);
    if (!val || !is_set) {
        free(val);
        free(is_set);
        return pfb_err_set(err, PFB_ENOMEM, "%s: out of memory for %zu parameters", who, n);
    }
    for (size_t i = 0; i < n; i++)
        val[i] = spec[i].def;

    p->owner = owner;
    p->spec = spec;
    p->n = n;
    p->val = val;
    p->is_set = is_set;
    return PFB_OK;
}

void params_free(pfb_params *p)
{
    if (!p)
        return;
    free(p->val);
    free(p->is_set);
    memset(p, 0, sizeof *p);
}

int params_find(const pfb_params *p, const char *key)
{
    if (!p || !p->spec || !key)
        return -1;
    for (size_t i = 0; i < p->n; i++) {
        if (strcmp(p->spec[i].name, key) == 0)
            return (int)i;
    }
    return -1;
}

/* Check v against parameter i and store it; shown is v as the user wrote it. */
static int store_value(pfb_params *p, size_t i, double v, const char *shown, pfb_err *err)
{
    const pfb_param_spec *s = &p->spec[i];
    switch (s->type) {
    case PFB_PARAM_DOUBLE:
        if (!isfinite(v))
            return fail_value(p, s, shown, "is not a finite number", NULL, err);
        if (v < s->min || v > s->max)
            return fail_value(p, s, shown, "is out of range", NULL, err);
        break;
    case PFB_PARAM_INT:
        if (!is_integral(v))
            return fail_value(p, s, shown, "is not an integer", NULL, err);
        if (v < s->min || v > s->max)
            return fail_value(p, s, shown, "is out of range", NULL, err);
        break;
    case PFB_PARAM_BOOL:
        if (v != 0.0 && v != 1.0)
            return fail_value(p, s, shown, "is invalid", "0 (false) or 1 (true)", err);
        break;
    case PFB_PARAM_CHOICE: {
        size_t count = choice_count(s->choices);
        if (!is_integral(v) || v < 0.0 || v >= (double)count) {
            char valid[LIST_MAX], hi[NUM_MAX];
            text_buf b;
            tb_init(&b, valid, sizeof valid);
            fmt_num((double)(count - 1), hi, sizeof hi);
            tb_puts(&b, "index 0 to ");
            tb_puts(&b, hi);
            tb_puts(&b, " (");
            choice_list(s->choices, &b);
            tb_puts(&b, ")");
            return fail_value(p, s, shown, "is not a valid choice index", valid, err);
        }
        break;
    }
    default:
        return pfb_err_set(err, PFB_EINVAL, "%s: parameter '%s' has unknown type %d",
                           owner_of(p), s->name, (int)s->type);
    }
    /* a double keeps its bits (even -0); + 0.0 turns an integral -0 into 0 */
    p->val[i] = (s->type == PFB_PARAM_DOUBLE) ? v : v + 0.0;
    p->is_set[i] = 1;
    return PFB_OK;
}

int params_set(pfb_params *p, const char *key, const char *text, pfb_err *err)
{
    if (!p || !p->spec || !p->val)
        return pfb_err_set(err, PFB_EINVAL, "params_set: parameter set is not initialised");
    if (!key)
        return pfb_err_set(err, PFB_EINVAL, "%s: no parameter name given", owner_of(p));
    int idx = params_find(p, key);
    if (idx < 0)
        return fail_unknown_key(p, key, err);
    size_t i = (size_t)idx;
    const pfb_param_spec *s = &p->spec[i];

    /* Messages quote the text as given; parsing ignores surrounding whitespace:
     * the value proper is the n bytes at b. */
    const char *b = text ? text : "";
    char shown[SHOW_MAX];
    show_text(b, strlen(b), shown, sizeof shown);
    while (*b && is_space(*b))
        b++;
    size_t n = strlen(b);
    while (n > 0 && is_space(b[n - 1]))
        n--;

    double v = 0.0;
    switch (s->type) {
    case PFB_PARAM_DOUBLE: {
        char *end = NULL;
        errno = 0;
        v = n > 0 ? strtod(b, &end) : 0.0;
        if (n == 0 || end != b + n)
            return fail_value(p, s, shown, "is not a number", NULL, err);
        if (errno == ERANGE && isinf(v))
            return fail_value(p, s, shown, "is out of range", NULL, err);
        break;
    }
    case PFB_PARAM_INT: {
        char *end = NULL;
        errno = 0;
        long l = n > 0 ? strtol(b, &end, 10) : 0;
        if (n == 0 || end != b + n)
            return fail_value(p, s, shown, "is not an integer", NULL, err);
        if (errno == ERANGE || l < INT_MIN || l > INT_MAX)
            return fail_value(p, s, shown, "is out of range", NULL, err);
        v = (double)l;
        break;
    }
    case PFB_PARAM_BOOL: {
        int bv = bool_lookup(b, n);
        if (bv < 0)
            return fail_value(p, s, shown, "is invalid", NULL, err);
        v = (double)bv;
        break;
    }
    case PFB_PARAM_CHOICE: {
        long c = choice_lookup(s->choices, b, n);
        if (c < 0)
            return fail_value(p, s, shown, "is invalid", NULL, err);
        v = (double)c;
        break;
    }
    default:
        break; /* store_value reports the unknown type */
    }
    return store_value(p, i, v, shown, err);
}

int params_set_double(pfb_params *p, const char *key, double value, pfb_err *err)
{
    if (!p || !p->spec || !p->val)
        return pfb_err_set(err, PFB_EINVAL, "params_set_double: parameter set is not initialised");
    if (!key)
        return pfb_err_set(err, PFB_EINVAL, "%s: no parameter name given", owner_of(p));
    int idx = params_find(p, key);
    if (idx < 0)
        return fail_unknown_key(p, key, err);
    char shown[NUM_MAX];
    fmt_num(value, shown, sizeof shown);
    return store_value(p, (size_t)idx, value, shown, err);
}

/* A key missing from the table is a programming error: NaN, so it shows up in
 * any arithmetic instead of passing for a plausible value. */
double params_get(const pfb_params *p, const char *key)
{
    int i = params_find(p, key);
    return i < 0 ? NAN : p->val[i];
}

/* A key missing from the table was never set: 0. */
int params_is_set(const pfb_params *p, const char *key)
{
    int i = params_find(p, key);
    return i >= 0 && p->is_set && p->is_set[i];
}

int params_calibrate_rest_density(const pfb_params *p, const char *owner, pfb_err *err)
{
    if (!params_is_set(p, "rest_density"))
        return params_get_int(p, "calibrate_rest_density") != 0;
    if (params_is_set(p, "calibrate_rest_density") && params_get_int(p, "calibrate_rest_density")) {
        pfb_err_set(err, PFB_EINVAL, "%s: rest_density = %g is given with calibrate_rest_density = true, which "
                    "replaces it; valid: one of them", owner, params_get(p, "rest_density"));
        return -1;
    }
    return 0;
}

/* A missing key yields 0.  For a DOUBLE parameter the value is truncated toward
 * zero and saturated to the int range (INT, BOOL and CHOICE values always fit). */
int params_get_int(const pfb_params *p, const char *key)
{
    int i = params_find(p, key);
    if (i < 0)
        return 0;
    double v = p->val[i];
    if (isnan(v))
        return 0;
    if (v >= (double)INT_MAX)
        return INT_MAX;
    if (v <= (double)INT_MIN)
        return INT_MIN;
    return (int)v;
}

/* DOUBLE values use the shortest of %.15g..%.17g that reads back exactly, so
 * 0.001 prints as "0.001" yet every value round-trips bit for bit. */
void params_format(const pfb_params *p, size_t i, char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    buf[0] = '\0';
    if (!p || !p->spec || !p->val || i >= p->n)
        return;
    const pfb_param_spec *s = &p->spec[i];
    double v = p->val[i];
    switch (s->type) {
    case PFB_PARAM_DOUBLE:
        fmt_exact(v, buf, len);
        break;
    case PFB_PARAM_INT:
        snprintf(buf, len, "%d", (int)v);
        break;
    case PFB_PARAM_BOOL:
        snprintf(buf, len, "%s", v != 0.0 ? "true" : "false");
        break;
    case PFB_PARAM_CHOICE: {
        size_t wl = 0;
        const char *w = choice_word(s->choices, (size_t)v, &wl);
        snprintf(buf, len, "%.*s", (int)wl, w ? w : "");
        break;
    }
    default:
        snprintf(buf, len, "?");
        break;
    }
}

/* ------------------------------------------------------------------------- */
/* INI files                                                                  */

typedef struct ini_ctx {
    /* path as shown in messages (control characters replaced) */
    char shown_path[SHOW_MAX * 2];
    const pfb_ini_target *targets;
    size_t ntargets;
    const char *const *ignore;
    size_t nignore;
    FILE *fp;
    int line;              /* number of the line last handed to inih */
    int read_errno;        /* errno of a failed read, or 0 */
    int failed;            /* first error recorded: stop */
    int fail_line;
    int fail_code;
    pfb_err fail;          /* its message */
} ini_ctx;

static void section_list(const ini_ctx *c, text_buf *b)
{
    size_t k = 0;
    for (size_t i = 0; i < c->ntargets; i++, k++) {
        if (k > 0)
            tb_puts(b, ", ");
        tb_puts(b, c->targets[i].section);
    }
    for (size_t i = 0; i < c->nignore; i++, k++) {
        if (k > 0)
            tb_puts(b, ", ");
        tb_puts(b, c->ignore[i]);
    }
    if (k == 0)
        tb_puts(b, "(none)");
}

/* fgets-style reader for ini_parse_stream: counts lines, rejects lines too
 * long for inih's buffer, and ends the input once an error is recorded. */
static char *ini_read_line(char *str, int num, void *stream)
{
    ini_ctx *c = stream;
    if (c->failed)
        return NULL;
    errno = 0;
    if (!fgets(str, num, c->fp)) {
        if (ferror(c->fp))
            c->read_errno = errno ? errno : EIO;
        return NULL;
    }
    c->line++;
    size_t len = strlen(str);
    if (num > 1 && len == (size_t)num - 1 && str[len - 1] != '\n') {
        int ch = getc(c->fp);
        if (ch != EOF && ch != '\n') {
            c->failed = 1;
            c->fail_line = c->line;
            c->fail_code = pfb_err_set(&c->fail, PFB_EINVAL,
                                       "config '%s' line %d: line is longer than %d characters",
                                       c->shown_path, c->line, num - 2);
            return NULL;
        }
    }
    return str;
}

/* inih handler: one key = value in a section.  Returns nonzero on success. */
static int ini_on_key(void *user, const char *section, const char *name, const char *value)
{
    ini_ctx *c = user;
    if (c->failed)
        return 0;
    if (!name)
        return 1; /* a section start, if inih was built to report them */

    const pfb_ini_target *t = NULL;
    for (size_t i = 0; i < c->ntargets && !t; i++) {
        if (strcmp(c->targets[i].section, section) == 0)
            t = &c->targets[i];
    }
    for (size_t i = 0; i < c->nignore && !t; i++) {
        if (strcmp(c->ignore[i], section) == 0)
            return 1;
    }

    char shown_name[SHOW_MAX];
    show_text(name, strlen(name), shown_name, sizeof shown_name);

    if (t) {
        pfb_err inner;
        inner.msg[0] = '\0';
        int rc;
        if (!value)
            rc = pfb_err_set(&inner, PFB_EINVAL, "key '%s' has no value", shown_name);
        else
            rc = params_set(t->params, name, value, &inner);
        if (rc == PFB_OK)
            return 1;
        c->fail_code = pfb_err_set(&c->fail, rc, "config '%s' line %d: %s",
                                   c->shown_path, c->line, inner.msg);
    } else {
        char list[LIST_MAX];
        text_buf b;
        tb_init(&b, list, sizeof list);
        section_list(c, &b);
        if (section[0] == '\0') {
            c->fail_code = pfb_err_set(&c->fail, PFB_EINVAL,
                                       "config '%s' line %d: key '%s' is outside any section; "
                                       "valid sections: %s",
                                       c->shown_path, c->line, shown_name, list);
        } else {
            char shown_sec[SHOW_MAX];
            show_text(section, strlen(section), shown_sec, sizeof shown_sec);
            const char *near = NULL;
            size_t ncand = c->ntargets + c->nignore;
            const char **cands = ncand > 0 ? malloc(ncand * sizeof *cands) : NULL;
            if (cands) {
                for (size_t i = 0; i < c->ntargets; i++)
                    cands[i] = c->targets[i].section;
                for (size_t i = 0; i < c->nignore; i++)
                    cands[c->ntargets + i] = c->ignore[i];
                near = pfb_nearest(section, cands, ncand);
            }
            if (near)
                c->fail_code = pfb_err_set(&c->fail, PFB_EINVAL,
                                           "config '%s' line %d: unknown section [%s]; "
                                           "did you mean [%s]? valid sections: %s",
                                           c->shown_path, c->line, shown_sec, near, list);
            else
                c->fail_code = pfb_err_set(&c->fail, PFB_EINVAL,
                                           "config '%s' line %d: unknown section [%s]; "
                                           "valid sections: %s",
                                           c->shown_path, c->line, shown_sec, list);
            free(cands);
        }
    }
    c->failed = 1;
    c->fail_line = c->line;
    return 0;
}

/* params_load_ini and params_load_ini_text: text != NULL reads len bytes of text,
 * named path in messages, instead of the file path. */
static int load_ini(const char *path, const char *text, size_t len, const pfb_ini_target *targets, size_t ntargets,
                    const char *const *ignore, size_t nignore, pfb_err *err)
{
    if (!path)
        return pfb_err_set(err, PFB_EINVAL, "params_load_ini: no config path given");
    if ((ntargets > 0 && !targets) || (nignore > 0 && !ignore))
        return pfb_err_set(err, PFB_EINVAL, "params_load_ini: target or ignore list missing");
    for (size_t i = 0; i < ntargets; i++) {
        if (!targets[i].section || !targets[i].params)
            return pfb_err_set(err, PFB_EINVAL, "params_load_ini: target %zu is incomplete", i);
    }
    for (size_t i = 0; i < nignore; i++) {
        if (!ignore[i])
            return pfb_err_set(err, PFB_EINVAL, "params_load_ini: ignore entry %zu is NULL", i);
    }

    ini_ctx c;
    memset(&c, 0, sizeof c);
    show_text(path, strlen(path), c.shown_path, sizeof c.shown_path);
    c.targets = targets;
    c.ntargets = ntargets;
    c.ignore = ignore;
    c.nignore = nignore;

    errno = 0;
    c.fp = text ? fmemopen((void *)text, len, "r") : fopen(path, "r");
    if (!c.fp) {
        int e = errno ? errno : ENOENT;
        return pfb_err_set(err, PFB_EIO, "cannot open config '%s': %s; valid: a readable INI file",
                           c.shown_path, strerror(e));
    }
    int ret = ini_parse_stream(ini_read_line, &c, ini_on_key, &c);
    fclose(c.fp);
    c.fp = NULL;

    /* The first error wins: a malformed line (ret > 0) before our own error. */
    if (ret > 0 && (!c.failed || ret < c.fail_line))
        return pfb_err_set(err, PFB_EINVAL,
                           "config '%s' line %d: malformed line; expected key = value or [section] "
                           "(other valid lines: blank or ; comment)",
                           c.shown_path, ret);
    if (c.failed)
        return pfb_err_set(err, c.fail_code, "%s", c.fail.msg);
    if (ret == -2)
        return pfb_err_set(err, PFB_ENOMEM, "cannot read config '%s': out of memory", c.shown_path);
    if (c.read_errno)
        return pfb_err_set(err, PFB_EIO, "cannot read config '%s': %s", c.shown_path,
                           strerror(c.read_errno));
    if (ret != 0)
        return pfb_err_set(err, PFB_EIO, "cannot read config '%s': parser status %d",
                           c.shown_path, ret);
    return PFB_OK;
}

int params_load_ini(const char *path, const pfb_ini_target *targets, size_t ntargets,
                    const char *const *ignore, size_t nignore, pfb_err *err)
{
    return load_ini(path, NULL, 0, targets, ntargets, ignore, nignore, err);
}

int params_load_ini_text(const char *name, const char *text, size_t len, const pfb_ini_target *targets,
                         size_t ntargets, const char *const *ignore, size_t nignore, pfb_err *err)
{
    if (!text || len == 0)
        return pfb_err_set(err, PFB_EINVAL, "config '%s' is empty; valid: INI text", name ? name : "(null)");
    return load_ini(name, text, len, targets, ntargets, ignore, nignore, err);
}
