/* pool.c — an experiment's plan and the local pool (pool.h).
 *
 * The pool runs each planned run as its own process, `pfbench exp NAME ...
 * --only ID`: the experiment's own code makes the run, in its own directory,
 * so the bits are those of a serial experiment (results do not depend on the
 * thread count), and a run that crashes takes no other with it.  Each process
 * gets 1/jobs of the threads (OMP_NUM_THREADS), so that jobs runs share the
 * cores without oversubscribing them; a timing (the scaling experiment) runs
 * alone with all of them, since its figure is the machine's speed and its
 * inputs include the thread count. */
#include "pool.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../core/timing.h"

void plan_free(pfb_plan *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->id[i]);
    free(p->id);
    free(p->timing);
    memset(p, 0, sizeof *p);
}

static void plan_add(void *ctx, const char *id, int timing)
{
    pfb_plan *p = ctx;
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->id[i], id))
            return;
    if (p->n == p->cap) {
        const size_t cap = p->cap ? 2 * p->cap : 32;
        char **ids = realloc(p->id, cap * sizeof *ids);
        if (ids)
            p->id = ids;
        int *t = ids ? realloc(p->timing, cap * sizeof *t) : NULL;
        if (t)
            p->timing = t;
        if (!ids || !t) {
            p->oom = 1;
            return;
        }
        p->cap = cap;
    }
    char *s = strdup(id);
    if (!s) {
        p->oom = 1;
        return;
    }
    p->id[p->n] = s;
    p->timing[p->n++] = timing;
}

int plan_make(const pfb_experiment *ex, const pfb_exp_ctx *ctx, pfb_plan *p, pfb_err *err)
{
    memset(p, 0, sizeof *p);
    pfb_exp_ctx c = *ctx;
    c.plan = 1;
    c.only = NULL;
    c.log = NULL;
    c.manifest = NULL;
    c.on_pending = plan_add;
    c.pending_ctx = p;
    int rc = ex->run(&c, err);
    if (!rc && p->oom)
        rc = pfb_err_set(err, PFB_ENOMEM, "out of memory for the plan of experiment '%s'", ex->name);
    if (rc)
        plan_free(p);
    return rc;
}

/* s quoted for a POSIX shell where it needs it. */
static void put_quoted(FILE *f, const char *s)
{
    const char *safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=,:+-@%";
    if (*s && strspn(s, safe) == strlen(s)) {
        fputs(s, f);
        return;
    }
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

void plan_print(FILE *f, const pfb_plan *p, const char *prog, char *const *args, int nargs)
{
    for (size_t i = 0; i < p->n; i++) {
        put_quoted(f, prog);
        fputs(" exp", f);
        for (int a = 0; a < nargs; a++) {
            fputc(' ', f);
            put_quoted(f, args[a]);
        }
        fputs(" --only ", f);
        put_quoted(f, p->id[i]);
        fputs(p->timing[i] ? "  # timing: alone\n" : "\n", f);
    }
}

/* A run in flight. */
typedef struct pool_slot {
    pid_t pid;
    size_t run;
} pool_slot;

/* Start `SELF exp ARGS [--force] --only ID` with OMP_NUM_THREADS = threads. */
static pid_t start_run(char *const *args, int nargs, int force, const char *id, int threads)
{
    char **argv = calloc((size_t)nargs + 6, sizeof *argv);
    if (!argv)
        return -1;
    int k = 0;
    argv[k++] = "pfbench";
    argv[k++] = "exp";
    for (int a = 0; a < nargs; a++)
        argv[k++] = args[a];
    if (force)
        argv[k++] = "--force";
    argv[k++] = "--only";
    argv[k++] = (char *)id;
    argv[k] = NULL;
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        char nt[32];
        snprintf(nt, sizeof nt, "%d", threads);
        setenv("OMP_NUM_THREADS", nt, 1);
        execv("/proc/self/exe", argv);
        fprintf(stderr, "pfbench: pool: cannot start run '%s': %s\n", id, strerror(errno));
        _exit(127);
    }
    free(argv);
    return pid;
}

/* Wait for one of the runs in slots[0 .. *active); record its outcome. */
static void reap_one(pool_slot *slots, int *active, const pfb_plan *p, char **failed, size_t *nfailed)
{
    int st = 0;
    pid_t pid;
    do
        pid = waitpid(-1, &st, 0);
    while (pid < 0 && errno == EINTR);
    for (int s = 0; s < *active; s++) {
        if (slots[s].pid != pid)
            continue;
        const char *id = p->id[slots[s].run];
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
            fprintf(stderr, "pool: %s done\n", id);
        } else {
            char why[64];
            if (WIFEXITED(st))
                snprintf(why, sizeof why, "exit %d", WEXITSTATUS(st));
            else
                snprintf(why, sizeof why, "signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
            fprintf(stderr, "pool: %s FAILED (%s)\n", id, why);
            char *line = malloc(strlen(id) + strlen(why) + 4);
            if (line) {
                sprintf(line, "%s (%s)", id, why);
                failed[(*nfailed)++] = line;
            }
        }
        slots[s] = slots[--(*active)];
        return;
    }
    if (pid < 0) /* no child left: nothing to wait for */
        *active = 0;
}

/* Whether two plans list the same runs. */
static int same_plan(const pfb_plan *a, const pfb_plan *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->id[i], b->id[i]))
            return 0;
    return 1;
}

int pool_run(const pfb_experiment *ex, const pfb_exp_ctx *ctx, int jobs, char *const *args, int nargs, int force,
             pfb_err *err)
{
    const int all = pfb_max_threads() > 0 ? pfb_max_threads() : 1;
    const int each = all / jobs > 0 ? all / jobs : 1;
    pfb_plan prev = {0};
    int rc = PFB_OK;
    for (int round = 1; !rc; round++) {
        pfb_exp_ctx c = *ctx;
        c.force = round == 1 && force;
        pfb_plan p;
        rc = plan_make(ex, &c, &p, err);
        if (rc)
            break;
        if (p.n == 0) {
            plan_free(&p);
            break;
        }
        if (round > 1 && same_plan(&p, &prev)) {
            rc = pfb_err_set(err, PFB_EIO, "pool: run '%s' is still not current after it ran (its outputs are "
                             "not found or not its inputs')", p.id[0]);
            plan_free(&p);
            break;
        }
        fprintf(stderr, "pool: %s round %d: %zu runs, %d at a time on %d thread%s each (timings alone)\n", ex->name,
                round, p.n, jobs, each, each == 1 ? "" : "s");
        pool_slot *slots = calloc((size_t)jobs, sizeof *slots);
        char **failed = calloc(p.n, sizeof *failed);
        size_t nfailed = 0;
        if (!slots || !failed) {
            free(slots);
            free(failed);
            plan_free(&p);
            rc = pfb_err_set(err, PFB_ENOMEM, "out of memory for the pool");
            break;
        }
        int active = 0;
        for (int pass = 0; pass < 2; pass++) /* the simulations, then the timings one by one */
            for (size_t i = 0; i < p.n; i++) {
                if (p.timing[i] != pass)
                    continue;
                const int cap = pass ? 1 : jobs;
                while (active >= cap)
                    reap_one(slots, &active, &p, failed, &nfailed);
                const pid_t pid = start_run(args, nargs, c.force, p.id[i], pass ? all : each);
                if (pid < 0) {
                    char *line = malloc(strlen(p.id[i]) + 32);
                    if (line) {
                        sprintf(line, "%s (not started)", p.id[i]);
                        failed[nfailed++] = line;
                    }
                    continue;
                }
                slots[active].pid = pid;
                slots[active++].run = i;
                if (pass) /* a timing alone */
                    while (active > 0)
                        reap_one(slots, &active, &p, failed, &nfailed);
            }
        while (active > 0)
            reap_one(slots, &active, &p, failed, &nfailed);
        if (nfailed) {
            fprintf(stderr, "pool: %zu of %zu runs failed:\n", nfailed, p.n);
            for (size_t f = 0; f < nfailed; f++)
                fprintf(stderr, "  %s\n", failed[f]);
            rc = pfb_err_set(err, PFB_EIO, "pool: %zu run%s of experiment '%s' failed (listed above); the others "
                             "are kept and current", nfailed, nfailed == 1 ? "" : "s", ex->name);
        }
        for (size_t f = 0; f < nfailed; f++)
            free(failed[f]);
        free(failed);
        free(slots);
        plan_free(&prev);
        prev = p;
    }
    plan_free(&prev);
    return rc;
}
