/* version.h — provenance compiled into the binary (set by the Makefile). */
#ifndef PFB_VERSION_H
#define PFB_VERSION_H

/* pfbench version string. */
const char *pfb_version(void);

/* Git commit of the build, with "-dirty" if the tree had changes, or "unknown". */
const char *pfb_commit(void);

/* Compiler and version used for the build. */
const char *pfb_compiler(void);

/* Compilation flags used for the build. */
const char *pfb_cflags(void);

#endif
