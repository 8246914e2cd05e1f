/* bench.h — the `pfbench bench` command (cli/bench.c). */
#ifndef PFB_CLI_BENCH_H
#define PFB_CLI_BENCH_H

/* pfbench bench nsearch|step [options]; returns the exit status. */
int cmd_bench(int argc, char **argv);

#endif
