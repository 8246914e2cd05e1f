/* fuzz.h — what the fuzz targets share (tests/fuzz/<target>.c).
 *
 * Each target defines LLVMFuzzerTestOneInput: `make fuzz` links it with
 * libFuzzer (clang -fsanitize=fuzzer), tests/test_fuzz.c with a plain main that
 * replays the committed corpus and regressions (gcc, under `make test`), so
 * nothing here is libFuzzer's own.  A parser's contract, checked after every
 * call: it returns 0, or a status with one line of message (no newline, not
 * empty); the sanitizers check the rest (no read out of bounds, no leak, no UB). */
#ifndef PFB_FUZZ_H
#define PFB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort (a crash the fuzzer records) if rc is a failure whose message is empty
 * or spans lines. */
static inline void fuzz_check_err(int rc, const pfb_err *err, const char *call)
{
    if (!rc)
        return;
    const size_t n = strnlen(err->msg, sizeof err->msg);
    if (n == 0 || n == sizeof err->msg || memchr(err->msg, '\n', n) || memchr(err->msg, '\r', n)) {
        fprintf(stderr, "fuzz: %s failed (status %d) without a one-line message: '%.*s'\n", call, rc, (int)n,
                err->msg);
        abort();
    }
}

/* data[0..size) as a NUL-terminated copy (free it). */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif
