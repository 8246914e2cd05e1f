/* params.h — typed parameter specifications, values, INI files and overrides.
 *
 * A spec table (terminated by an entry whose name is NULL) declares each
 * parameter's type, default, valid range, unit and help.  A pfb_params holds the
 * effective values for one table; every value is checked against its range when
 * set.  Values are stored as doubles; ints, bools and choices (index into a
 * '|'-separated list) are exact in a double. */
#ifndef PFB_PARAMS_H
#define PFB_PARAMS_H

#include <stddef.h>
#include "error.h"

typedef enum pfb_param_type {
    PFB_PARAM_DOUBLE = 0,
    PFB_PARAM_INT,
    PFB_PARAM_BOOL,    /* accepts 0/1, true/false, yes/no, on/off */
    PFB_PARAM_CHOICE   /* one of the words in `choices`, stored as its index */
} pfb_param_type;

typedef struct pfb_param_spec {
    const char *name;
    pfb_param_type type;
    double def;           /* default (for CHOICE: index of the default word) */
    double min, max;      /* inclusive valid range (ignored for BOOL and CHOICE) */
    const char *unit;     /* SI unit, "1" for dimensionless, "" for none */
    const char *help;     /* one line */
    const char *choices;  /* CHOICE only: "csv|vtp|none" */
} pfb_param_spec;

typedef struct pfb_params {
    const char *owner;              /* "run", "scene dam_break", "solver muller": for messages */
    const pfb_param_spec *spec;
    size_t n;
    double *val;
    unsigned char *is_set;          /* 1 where the value came from a file or override */
} pfb_params;

/* Number of entries in a NULL-terminated spec table. */
size_t params_spec_count(const pfb_param_spec *spec);

/* Fill p with the defaults of spec; owner names the table in messages. */
int params_init(pfb_params *p, const pfb_param_spec *spec, const char *owner, pfb_err *err);

/* Free the values (accepts a zeroed struct). */
void params_free(pfb_params *p);

/* dst = an independent copy of src (values and which were set). */
int params_copy(pfb_params *dst, const pfb_params *src, pfb_err *err);

/* Index of key in p, or -1. */
int params_find(const pfb_params *p, const char *key);

/* Parse text as the value of key, check its type and range, and store it.
 * Unknown keys fail with the nearest valid name suggested. */
int params_set(pfb_params *p, const char *key, const char *text, pfb_err *err);

/* Store a numeric value for key, with the same checks as params_set. */
int params_set_double(pfb_params *p, const char *key, double value, pfb_err *err);

/* Value of key (the key must exist in the table: a missing key is a programming error). */
double params_get(const pfb_params *p, const char *key);

/* 1 if key's value came from a file or an override rather than the default. */
int params_is_set(const pfb_params *p, const char *key);

/* Value of key as an int (INT, BOOL or CHOICE parameters). */
int params_get_int(const pfb_params *p, const char *key);

/* A solver's choice between a rest density calibrated to its initial lattice
 * (calibrate_rest_density) and the one it was given (rest_density): a
 * rest_density the user gave is used, never silently replaced, and given with
 * calibrate_rest_density = true it is refused.  1: calibrate; 0: use
 * rest_density; -1 with err set (owner names the solver in the message). */
int params_calibrate_rest_density(const pfb_params *p, const char *owner, pfb_err *err);

/* Format the value of parameter i as text ("0.001", "true", "vtp"). */
void params_format(const pfb_params *p, size_t i, char *buf, size_t len);

/* One INI section name mapped to the table its keys set. */
typedef struct pfb_ini_target {
    const char *section;
    pfb_params *params;
} pfb_ini_target;

/* Read an INI file with libinih.  Keys in a section named in targets set that
 * table; sections listed in `ignore` (e.g. other solvers' names) are skipped;
 * any other section, an unknown key or a bad value is an error naming the file
 * and line. */
int params_load_ini(const char *path, const pfb_ini_target *targets, size_t ntargets,
                    const char *const *ignore, size_t nignore, pfb_err *err);

/* The same for INI text held in memory (a built-in preset), named name in messages. */
int params_load_ini_text(const char *name, const char *text, size_t len, const pfb_ini_target *targets,
                         size_t ntargets, const char *const *ignore, size_t nignore, pfb_err *err);

#endif
