/* version.c — provenance strings; the Makefile writes build/version_info.h. */
#include "version.h"

#if defined(__has_include)
#if __has_include("version_info.h")
#include "version_info.h"
#endif
#endif

#ifndef PFB_VERSION
#define PFB_VERSION "0.1.0"
#endif
#ifndef PFB_COMMIT
#define PFB_COMMIT "unknown"
#endif
#ifndef PFB_CFLAGS
#define PFB_CFLAGS "unknown"
#endif

const char *pfb_version(void)
{
    return PFB_VERSION;
}

const char *pfb_commit(void)
{
    return PFB_COMMIT;
}

const char *pfb_compiler(void)
{
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#else
    return "unknown";
#endif
}

const char *pfb_cflags(void)
{
    return PFB_CFLAGS;
}
