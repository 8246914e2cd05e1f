/* pairtasks.h — the blocked, thread-independent schedule of a solver's pair
 * passes over a half list (core/halflist.h; issue 33).
 *
 * A solver's step is a sequence of stages that alternate between pair stages
 * (the rows of a block: every pair i < j of them, adding to both particles)
 * and particle stages (the particles of a block, once their sums are
 * complete).  Each stage runs as one task per block, and the tasks are ordered
 * by dependences instead of barriers (with P a pair stage and Q a particle
 * stage, b a block; the rows of block b touch blocks b and b + 1 only):
 *   P_b   after the stage before at b and b + 1 (whose particles it reads and
 *         adds to), and, for odd b, after P_b-1 and P_b+1 (the even blocks'
 *         rows first, so that no two threads add to one particle);
 *   Q_b   after the pair stage before at b - 1 and b (the only blocks that
 *         add to its sums).
 * On a ring (a periodic list, halflist.h) the last block's rows touch block 0
 * too, and b + 1 and b - 1 are taken around it (nblk is even there, so the
 * last block is odd and block 0 even).
 * Every sum therefore receives its terms in the same order whatever the
 * threads and their timing: the results do not depend on the thread count.
 * The threads take the tasks from one fixed order in which each task comes
 * after those it depends on (a pair stage's even blocks, largest first, then
 * its odd ones; a particle stage's blocks in order), so a task waits only for
 * tasks already running, and with one thread never.  Two threads instead take
 * each stage's blocks from both ends (pfb_claim), each keeping to its part of
 * the storage from stage to stage.  (OpenMP's own tasks with depend clauses
 * do the same, but libgomp keeps allocations of theirs that LeakSanitizer
 * reports.)  No atomics touch particle data: a completion flag per task. */
#ifndef PFB_PAIRTASKS_H
#define PFB_PAIRTASKS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "halflist.h"

/* The thread running this code in its OpenMP team, and the team's size. */
int pfb_thread_num(void);
int pfb_team_size(void);

/* The next of len items for thread t of a team of m, or len when all are
 * taken; *taken counts the claims (shared, from 0), *mine this thread's.  Two
 * threads take them from the two ends (thread 0 from the first up, thread 1
 * from the last down), so that each keeps to one part of the particles in
 * every loop of a step and from step to step, its data staying in its own
 * core's caches; other teams take them in order as they come. */
static inline size_t pfb_claim(atomic_size_t *taken, size_t len, int t, int m, size_t *mine)
{
    const size_t k = atomic_fetch_add_explicit(taken, 1, memory_order_relaxed);
    if (k >= len)
        return len;
    if (m != 2)
        return k;
    const size_t q = (*mine)++;
    return t == 0 ? q : len - 1 - q;
}

/* A stage: pairs (1) or particles (0), and what it does for block b (the
 * rows or particles blk[b] .. blk[b+1]-1 of the list), on the running thread
 * (pfb_thread_num). */
typedef void (*pfb_block_fn)(void *ctx, size_t b);
typedef struct {
    int pairs;
    pfb_block_fn run;
} pfb_stage;

#define PAIRTASKS_MAX_STAGES 16

/* The threads a solver's pair stages run on: the run's, at most
 * PFB_MAX_THREADS (the size of every per-thread array). */
static inline int pairtasks_threads(const pfb_sim *sim)
{
    const int t = sim_threads(sim);
    return t < PFB_MAX_THREADS ? t : PFB_MAX_THREADS;
}

/* Per thread, a buffer for one row's pairs (a solver's compacted rows), taken
 * by the running thread as b[pfb_thread_num()].  Zero it before first use. */
typedef struct pfb_row_buffers {
    uint32_t *b[PFB_MAX_THREADS];
    size_t cap; /* entries each buffer holds */
} pfb_row_buffers;

/* Room in the buffers of threads 0 .. threads-1 for rows of up to maxrow
 * pairs and 8 entries more (core/lanes.h's V_COMPACT4 writes up to 4 past the
 * last kept, V_ROW_QUAD reads up to 3 past a row's end). */
int row_buffers_ensure(pfb_row_buffers *r, size_t maxrow, int threads, pfb_err *err);
void row_buffers_free(pfb_row_buffers *r);

typedef struct pfb_pairtasks {
    atomic_uchar *done; /* completion flags: stages (nblk + 2) */
    size_t *task;       /* the tasks in the order the threads take them */
    size_t cap_done, cap_task;
} pfb_pairtasks;

void pairtasks_free(pfb_pairtasks *T);

/* Run the nst stages (alternating pairs and particles) over the blocks of L,
 * on up to `threads` threads when `parallel`, else on one.  Fails only when
 * out of memory (before any stage runs), for more than PAIRTASKS_MAX_STAGES
 * stages, or when two stages of one kind follow each other. */
int pairtasks_run(pfb_pairtasks *T, const pfb_halflist *L, const pfb_stage *st, int nst, void *ctx, int threads,
                  int parallel, pfb_err *err);

#endif
