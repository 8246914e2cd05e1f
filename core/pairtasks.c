/* pairtasks.c — the blocked pair schedule (pairtasks.h says how it orders
 * the tasks and why the sums do not depend on the threads). */
#include "pairtasks.h"
#include "lanes.h"

#include <sched.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int pfb_thread_num(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

int pfb_team_size(void)
{
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

int row_buffers_ensure(pfb_row_buffers *r, size_t maxrow, int threads, pfb_err *err)
{
    if (maxrow + 8 > r->cap) {
        row_buffers_free(r);
        r->cap = maxrow + maxrow / 4 + 8;
    }
    for (int t = 0; t < threads && t < PFB_MAX_THREADS; t++)
        if (!r->b[t] && !(r->b[t] = malloc(r->cap * sizeof *r->b[t])))
            return pfb_err_set(err, PFB_ENOMEM, "out of memory for a row of %zu pairs", r->cap);
    return PFB_OK;
}

void row_buffers_free(pfb_row_buffers *r)
{
    for (int t = 0; t < PFB_MAX_THREADS; t++) {
        free(r->b[t]);
        r->b[t] = NULL;
    }
}

void pairtasks_free(pfb_pairtasks *T)
{
    free(T->done);
    free(T->task);
    T->done = NULL;
    T->task = NULL;
    T->cap_done = T->cap_task = 0;
}

/* Wait until *f is set (by the thread running that task): spin briefly, then
 * yield the core (the other thread may be waiting for it: CI shares the cores). */
static void wait_done(atomic_uchar *f)
{
    for (unsigned spins = 0; !atomic_load_explicit(f, memory_order_acquire); spins++) {
        if (spins < 2000) {
#if defined(__x86_64__)
            __builtin_ia32_pause();
#endif
        } else {
            sched_yield();
        }
    }
}

typedef struct {
    pfb_pairtasks *T;
    const pfb_stage *st;
    int nst;
    size_t nb;
    int ring; /* the last block's rows touch block 0 (halflist.h) */
    void *ctx;
} run_ctx;

/* the completion flag of stage k's task on block b, blocks -1 and nb being always done */
static atomic_uchar *done_flag(const run_ctx *r, size_t k, size_t b_plus_1)
{
    return &r->T->done[k * (r->nb + 2) + b_plus_1];
}

/* Stage k's task on block b, after the tasks it depends on (pairtasks.h).
 * Flag index b + 1 is block b's; on a ring the block after the last is block
 * 0 and the one before block 0 the last. */
static void run_task(const run_ctx *r, size_t k, size_t b)
{
    const size_t next = r->ring && b + 1 == r->nb ? 1 : b + 2, prev = r->ring && b == 0 ? r->nb : b;
    if (r->st[k].pairs) {
        if (k > 0) {
            wait_done(done_flag(r, k - 1, b + 1));
            wait_done(done_flag(r, k - 1, next));
        }
        if (b % 2) {
            wait_done(done_flag(r, k, b));
            wait_done(done_flag(r, k, next));
        }
    } else if (k > 0) {
        wait_done(done_flag(r, k - 1, prev));
        wait_done(done_flag(r, k - 1, b + 1));
    }
    r->st[k].run(r->ctx, b);
    atomic_store_explicit(done_flag(r, k, b + 1), 1, memory_order_release);
}

int pairtasks_run(pfb_pairtasks *T, const pfb_halflist *L, const pfb_stage *st, int nst, void *ctx, int threads,
                  int parallel, pfb_err *err)
{
    const size_t nb = L->nblk, ns = (size_t)nst;
    for (size_t k = 1; k < ns; k++)
        if (!st[k].pairs == !st[k - 1].pairs)
            return pfb_err_set(err, PFB_EINVAL, "pair tasks: stages %zu and %zu are of one kind; valid: "
                               "pair and particle stages in turn", k - 1, k);
    if (ns > PAIRTASKS_MAX_STAGES)
        return pfb_err_set(err, PFB_EINVAL, "pair tasks: %zu stages; valid: at most %d", ns, PAIRTASKS_MAX_STAGES);
    const size_t nflag = ns * (nb + 2), ntask = ns * nb;
    if (nflag > T->cap_done) {
        atomic_uchar *d = realloc(T->done, nflag * sizeof *d);
        if (!d)
            return pfb_err_set(err, PFB_ENOMEM, "pair tasks: out of memory for %zu blocks", nb);
        T->done = d;
        T->cap_done = nflag;
    }
    if (ntask > T->cap_task) {
        size_t *t = realloc(T->task, ntask * sizeof *t);
        if (!t)
            return pfb_err_set(err, PFB_ENOMEM, "pair tasks: out of memory for %zu blocks", nb);
        T->task = t;
        T->cap_task = ntask;
    }
    for (size_t k = 0; k < nflag; k++)
        atomic_init(&T->done[k], (unsigned char)(k % (nb + 2) == 0 || k % (nb + 2) == nb + 1));
    /* the one order: pair stages in L->bord's (even blocks, largest first,
     * then odd), particle stages by block; task = stage * nb + block */
    for (size_t k = 0, m = 0; k < ns; k++)
        for (size_t q = 0; q < nb; q++)
            T->task[m++] = k * nb + (st[k].pairs ? L->bord[q] : q);
    const run_ctx r = {T, st, nst, nb, L->ring && nb > 1, ctx};
    atomic_size_t next, taken[2 * PAIRTASKS_MAX_STAGES]; /* two threads: a pair stage's even, then odd blocks */
    atomic_init(&next, 0);
    for (size_t q = 0; q < 2 * ns; q++)
        atomic_init(&taken[q], 0);
#pragma omp parallel num_threads(threads) if (parallel && threads > 1)
    {
        const int t = pfb_thread_num(), m = pfb_team_size();
        lanes_clean_upper(); /* each thread's vector registers (core/lanes.h) */
        if (m == 2) {
            /* the stages in turn, a pair stage's even blocks then its odd ones,
             * the blocks of each from both ends (pfb_claim) */
            for (size_t k = 0; k < ns; k++)
                for (size_t par = 0; par < (st[k].pairs ? 2u : 1u); par++) {
                    const size_t len = !st[k].pairs ? nb : par == 0 ? (nb + 1) / 2 : nb / 2;
                    size_t mine = 0;
                    for (size_t q; (q = pfb_claim(&taken[2 * k + par], len, t, m, &mine)) < len;)
                        run_task(&r, k, st[k].pairs ? 2 * q + par : q);
                }
        } else {
            for (;;) {
                const size_t k = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
                if (k >= ntask)
                    break;
                run_task(&r, T->task[k] / nb, T->task[k] % nb);
            }
        }
    }
    return PFB_OK;
}
