/* error.h — status codes and the error message buffer every fallible call fills.
 *
 * Library code never prints and never exits: a failing call returns a non-zero
 * status and writes one line into a caller-owned pfb_err, naming the bad value
 * and what is valid.  The command line prints that line and exits non-zero. */
#ifndef PFB_ERROR_H
#define PFB_ERROR_H

#include <stddef.h>

enum {
    PFB_OK = 0,
    PFB_EINVAL = 1,   /* bad argument or input value */
    PFB_ENOMEM = 2,   /* allocation failed */
    PFB_EIO = 3,      /* file could not be read or written */
    PFB_EUNSTABLE = 4, /* the simulation blew up (recorded, not fatal) */
    PFB_EINTR = 5      /* stopped by SIGINT or SIGTERM, its checkpoint written (resumable) */
};

typedef struct pfb_err {
    char msg[512];
} pfb_err;

/* Format a message into err (if non-NULL) and return code.  The message is one
 * line: control characters (a newline in the text it quotes) become '?'. */
int pfb_err_set(pfb_err *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Clear the message. */
void pfb_err_clear(pfb_err *err);

/* Levenshtein distance between two short strings (for "did you mean"). */
size_t pfb_edit_distance(const char *a, const char *b);

/* Pick the candidate nearest to word; returns NULL if none is reasonably close. */
const char *pfb_nearest(const char *word, const char *const *cands, size_t ncands);

#endif
