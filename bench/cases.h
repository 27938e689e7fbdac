/*
 * cases.h - the benchmark cases, written once for all three programs.
 *
 * A program supplies its primitives as tables of small static functions
 * (struct lock_ops, cond_ops, sem_ops) and one-line worker wrappers that call
 * the BENCH_INLINE loops below with a constant table: the loops are inlined
 * into the wrapper and the table's calls become direct calls, so the hot loops
 * of the three programs are the same code around different primitives.
 *
 * Every case checks its own work (a counter reached exactly, no torn read,
 * every item produced was consumed) and reports it as the line's checksum.
 *   a  lockperf     APR testlockperf: 1-6 threads x N lock/unlock pairs, one lock
 *   b  nsv          NaviServer nsv: 20 background threads + 1 foreground, one lock
 *   c  cond2010     1 broadcaster, 10 waiters, 10 ms / 100 ms and the reverse
 *   d  uncontended  ns per operation of every primitive on one thread
 *   e  queue        bounded queue of 64, mutex + 2 condvars, 1/1 and 4/4 threads
 *   f  thread       create + join
 *   g  bufread      byte-by-byte buffered reader, without and with a mutex
 *   h  handoff      ping-pong between two threads
 *   i  sleep        requested versus actual sleep: 50 us, 200 us, 1 ms, 10 ms
 *   j  sweep        one lock, 2-8 threads, critical sections of 0 ns to 10 us
 *   k  xproc        a mutex, a cond and a sem ping-pong shared by two processes,
 *                   and the same on private objects shared by two threads
 *   l  yieldloop    2-32 threads: lock, a little floating-point work, unlock,
 *                   lock, store, unlock, yield (mcfgthread's benchmark shape)
 */
#ifndef BENCH_CASES_H
#define BENCH_CASES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* ---- What a program supplies ---- */

struct lock_ops {
    void (*lock)(void *lock); /* exclusive */
    void (*unlock)(void *lock);
    void (*lock_shared)(void *lock); /* read side; the exclusive pair for a mutex */
    void (*unlock_shared)(void *lock);
};

struct cond_ops {
    void (*wait)(void *cond, void *lock);
    void (*signal)(void *cond);
    void (*broadcast)(void *cond);
};

struct sem_ops {
    void (*post)(void *sem);
    void (*wait)(void *sem);
};

/* One operation of case d on `object`: returns 1 when it did what it should. */
typedef int (*bench_op_fn)(void *object);
/* n operations of case d; returns how many succeeded. */
typedef long (*bench_batch_fn)(void *object, long n);

#define BENCH_MAX_THREADS 32
/* Loops look at the clock once every this many + 1 iterations. */
#define BENCH_CLOCK_CHECK_MASK 1023L
#define NS_PER_US 1000.0
#define NS_PER_MS 1000000LL

static void *bench_spawn_checked(bench_thread_fn fn, void *argument)
{
    void *thread = bench_spawn(fn, argument);

    if (thread == NULL)
        bench_fatal("thread creation", 0);
    return thread;
}

/* Some cases settle, for a whole run, into one of two modes (the two threads of
 * a ping-pong sharing a core or not): they repeat their measurement with fresh
 * threads this many times and report the median. */
#define BENCH_MAX_SUBRUNS 16

static double bench_median(double *values, int n)
{
    int i, j;

    for (i = 1; i < n; i++)
        for (j = i; j > 0 && values[j - 1] > values[j]; j--) {
            double swap = values[j];
            values[j] = values[j - 1];
            values[j - 1] = swap;
        }
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

static int bench_subruns(void)
{
    int n = bench_params.subruns;
    return n < 1 ? 1 : n > BENCH_MAX_SUBRUNS ? BENCH_MAX_SUBRUNS : n;
}

/* ======== a. lockperf ======== */

#define LOCKPERF_MAX_THREADS 6

struct lockperf_run {
    void *lock;
    long pairs;
    int64_t deadline_ns;       /* a slow variant stops early rather than stall the run */
    volatile long counter;     /* bumped under the exclusive lock */
    volatile long shared_value; /* read under the shared lock; always 1 */
    struct bench_gate gate;
};

struct lockperf_thread {
    struct lockperf_run *run;
    long done;
    long long sum;
    int64_t first_ns; /* a held row's: when its first pair was done */
    int64_t end_ns;
};

BENCH_INLINE void lockperf_loop(void *argument, const struct lock_ops *ops, int shared)
{
    struct lockperf_thread *self = argument;
    struct lockperf_run *run = self->run;
    long long sum = 0;
    long i;

    bench_gate_arrive(&run->gate);
    for (i = 0; i < run->pairs; i++) {
        if ((i & BENCH_CLOCK_CHECK_MASK) == BENCH_CLOCK_CHECK_MASK &&
            bench_now_ns() > run->deadline_ns)
            break;
        if (shared) {
            ops->lock_shared(run->lock);
            sum += run->shared_value;
            ops->unlock_shared(run->lock);
        } else {
            ops->lock(run->lock);
            run->counter++;
            ops->unlock(run->lock);
        }
    }
    self->done = i;
    self->sum = sum;
    self->end_ns = bench_now_ns();
}

/* How long the main thread keeps a held row's lock once its worker has passed
 * the gate: far past a spin's window (spin.h's 8 us), so the worker is asleep
 * in its contended lock when the main thread lets go. */
#define LOCKPERF_HELD_MS 2

/* A held row's worker (lockperf_add_held_row), after APR's testlockperf, whose
 * main thread holds the lock while it starts the workers: the first lock finds
 * the lock held by the main thread and waits for it; the pairs that follow,
 * alone, are the ones timed, from the end of that first pair, so that the row
 * shows what one contended acquisition leaves behind (a flag, a count, a
 * section in another state) and not the thread's start. One thread only. */
BENCH_INLINE void lockperf_held_loop(void *argument, const struct lock_ops *ops)
{
    struct lockperf_thread *self = argument;
    struct lockperf_run *run = self->run;
    long i;

    bench_gate_arrive(&run->gate);
    ops->lock(run->lock);
    run->counter++;
    ops->unlock(run->lock);
    self->first_ns = bench_now_ns();
    for (i = 1; i < run->pairs; i++) {
        if ((i & BENCH_CLOCK_CHECK_MASK) == BENCH_CLOCK_CHECK_MASK &&
            bench_now_ns() > run->deadline_ns)
            break;
        ops->lock(run->lock);
        run->counter++;
        ops->unlock(run->lock);
    }
    self->done = i;
    self->end_ns = bench_now_ns();
}

/* The counts of one lockperf subrun. */
struct lockperf_counts {
    long long done;  /* pairs done by all threads */
    long long proof; /* what the pairs left behind: equals done when the lock held */
};

/* One subrun: `threads` fresh copies of worker (a wrapper of lockperf_loop) on
 * one lock, for at most cap_ms; adds its counts, returns ns per pair. With
 * held (a held row: one worker, a wrapper of lockperf_held_loop), the main
 * thread holds the lock from before the worker starts until LOCKPERF_HELD_MS
 * after the gate opens, and the time is the worker's own after its first pair. */
static double lockperf_subrun(bench_thread_fn worker, void *lock, int shared, int threads,
                              const struct lock_ops *held, unsigned cap_ms,
                              struct lockperf_counts *counts)
{
    struct lockperf_run run;
    struct lockperf_thread self[LOCKPERF_MAX_THREADS];
    void *handle[LOCKPERF_MAX_THREADS];
    long long done = 0, proof = 0;
    int64_t start, end = 0;
    int i;

    memset(&run, 0, sizeof run);
    run.lock = lock;
    run.pairs = bench_params.lockperf_pairs;
    run.shared_value = 1;
    bench_gate_init(&run.gate);
    if (held != NULL)
        held->lock(lock);
    for (i = 0; i < threads; i++) {
        memset(&self[i], 0, sizeof self[i]);
        self[i].run = &run;
        handle[i] = bench_spawn_checked(worker, &self[i]);
    }
    bench_gate_wait(&run.gate, threads);
    run.deadline_ns = bench_now_ns() + (int64_t)cap_ms * NS_PER_MS;
    start = bench_gate_release(&run.gate);
    if (held != NULL) {
        bench_sleep_ms(LOCKPERF_HELD_MS);
        held->unlock(lock);
    }
    for (i = 0; i < threads; i++) {
        bench_join(handle[i]);
        done += self[i].done;
        proof += self[i].sum;
        if (self[i].end_ns > end)
            end = self[i].end_ns;
    }
    counts->done += done;
    counts->proof += shared ? proof : run.counter;
    if (held != NULL) /* one worker: its pairs after the first */
        return done > 1 ? (double)(end - self[0].first_ns) / (double)(done - 1) : 0;
    return done ? (double)(end - start) / (double)done : 0;
}

/* The rows of one run of the case: measured together by lockperf_run. */
#define LOCKPERF_MAX_ROWS 40

struct lockperf_row {
    const char *lock_name;
    bench_thread_fn worker;
    void *lock;
    const struct lock_ops *held; /* a held row's: the main thread's calls */
    int shared, threads;
    double ns_per_pair[BENCH_MAX_SUBRUNS];
    struct lockperf_counts counts;
};

static struct lockperf_row lockperf_rows[LOCKPERF_MAX_ROWS];
static int lockperf_row_count;

/* Adds a row for lockperf_run: `threads` copies of worker on lock, which must
 * live until then. */
static void lockperf_add_row(const char *lock_name, bench_thread_fn worker, void *lock,
                             int shared, int threads)
{
    struct lockperf_row *row;

    if (lockperf_row_count == LOCKPERF_MAX_ROWS)
        bench_fatal("lockperf: too many rows", LOCKPERF_MAX_ROWS);
    row = &lockperf_rows[lockperf_row_count++];
    memset(row, 0, sizeof *row);
    row->lock_name = lock_name;
    row->worker = worker;
    row->lock = lock;
    row->shared = shared;
    row->threads = threads;
}

/* Adds a held row (lockperf_held_loop): one worker, a wrapper of
 * lockperf_held_loop, on lock, which the main thread takes and leaves with
 * ops. */
static void lockperf_add_held_row(const char *lock_name, bench_thread_fn worker, void *lock,
                                  const struct lock_ops *ops)
{
    lockperf_add_row(lock_name, worker, lock, 0, 1);
    lockperf_rows[lockperf_row_count - 1].held = ops;
}

/* Runs every row added since the last run as bench_subruns() subruns with
 * fresh threads and reports each one's median. The rows take turns, one
 * subrun each per round, so that a row's subruns are spread over the whole
 * case: on a VM the same loop ran at 6 ns a pair on one set of threads and at
 * 10 on the next, and for stretches of a fraction of a second to seconds, so
 * that one measurement said more about where and when it ran than about the
 * lock. Rows compared with each other (C11 with pthreads) run side by side in
 * time. Each row's cap is shared out among its subruns. */
static void lockperf_run(void)
{
    int runs = bench_subruns(), round, i;

    for (round = 0; round < runs; round++)
        for (i = 0; i < lockperf_row_count; i++) {
            struct lockperf_row *row = &lockperf_rows[i];

            row->ns_per_pair[round] =
                lockperf_subrun(row->worker, row->lock, row->shared, row->threads, row->held,
                                bench_params.lockperf_cap_ms / (unsigned)runs, &row->counts);
        }
    for (i = 0; i < lockperf_row_count; i++) {
        struct lockperf_row *row = &lockperf_rows[i];
        long long asked = (long long)bench_params.lockperf_pairs * row->threads * runs;
        char variant[64];

        snprintf(variant, sizeof variant, "%s-%dt", row->lock_name, row->threads);
        if (row->counts.done < asked)
            printf("#capped\tlockperf\t%s%s\t%lld of %lld pairs\n", variant, bench_variant_suffix(),
                   row->counts.done, asked);
        bench_report("lockperf", variant, "time", bench_median(row->ns_per_pair, runs),
                     "ns/pair", row->counts.proof, row->counts.done);
    }
    lockperf_row_count = 0;
}

/* ======== b. nsv ======== */

/* 20 background threads each do a fixed number of operations with a little
 * private work (a few hundred ns) between two, as server threads do between
 * two nsv calls; the foreground does its operations back to back. All start
 * together; the case reports the foreground's time per operation and the time
 * until all 21 are done per operation of all of them. Fixed work keeps the
 * comparison honest: a lock that starves the background threads speeds the
 * foreground up but not the whole. */
#define NSV_BACKGROUND_THREADS 20
/* 256 bytes: about a short value that nsv_get copies out. With 8 words the read
 * section was too short for two readers ever to overlap on two cores, and the
 * case weighed only the lock word, where a mutex and an rwlock cost the same. */
#define NSV_RECORD_WORDS 64
#define NSV_PERMILLE 1000u
#define NSV_BACKGROUND_WORK 256
/* A starved foreground may take a millisecond an operation: look often. */
#define NSV_CLOCK_CHECK_MASK 15L

struct nsv_run {
    void *lock;
    int64_t deadline_ns;                    /* a slow variant stops early */
    volatile int stop;                      /* busy variant: the foreground is done */
    long clock_check_mask;                  /* look at the clock every mask + 1 operations */
    volatile long record[NSV_RECORD_WORDS]; /* all words equal unless torn */
    struct bench_gate gate;
};

struct nsv_thread {
    struct nsv_run *run;
    long target;      /* operations to do */
    int private_work; /* background threads work between two operations */
    int busy;         /* busy background: operations back to back until stop */
    unsigned write_permille;
    unsigned seed;
    long long operations;
    long long writes;
    long long torn;
    int64_t end_ns;
};

BENCH_INLINE void nsv_operation(struct nsv_thread *self, const struct lock_ops *ops)
{
    struct nsv_run *run = self->run;
    int w;

    self->seed = self->seed * 1103515245u + 12345u;
    if ((self->seed >> 16) % NSV_PERMILLE < self->write_permille) {
        ops->lock(run->lock);
        long next = run->record[0] + 1;
        for (w = 0; w < NSV_RECORD_WORDS; w++)
            run->record[w] = next;
        ops->unlock(run->lock);
        self->writes++;
    } else {
        long torn = 0;
        ops->lock_shared(run->lock);
        long first = run->record[0];
        for (w = 1; w < NSV_RECORD_WORDS; w++)
            torn |= run->record[w] != first;
        ops->unlock_shared(run->lock);
        self->torn += torn;
    }
    self->operations++;
}

BENCH_INLINE void nsv_loop(void *argument, const struct lock_ops *ops)
{
    struct nsv_thread *self = argument;
    struct nsv_run *run = self->run;
    long i;

    bench_gate_arrive(&run->gate);
    for (i = 0; self->busy ? !__atomic_load_n(&run->stop, __ATOMIC_RELAXED) : i < self->target;
         i++) {
        if ((i & run->clock_check_mask) == run->clock_check_mask &&
            bench_now_ns() > run->deadline_ns)
            break;
        if (self->private_work) {
            unsigned work = self->seed;
            int step;
            for (step = 0; step < NSV_BACKGROUND_WORK; step++)
                work = work * 1103515245u + 12345u;
            self->seed = work;
        }
        nsv_operation(self, ops);
    }
    self->end_ns = bench_now_ns();
}

/* What the subruns of one nsv row add up: the checksums, and the #info line. */
struct nsv_totals {
    long long operations, target;   /* done, and asked for (fixed work) */
    long long writes, torn;         /* every thread's */
    long long versions;             /* the record's version at each subrun's end: its writes */
    long long foreground_ops, background_ops;
    double fg_ns[BENCH_MAX_SUBRUNS], all_ns[BENCH_MAX_SUBRUNS];
};

/* What both variants set up alike: the run on lock, and the 21 threads' records
 * (thread 0 the foreground), each with its own seed. */
static void nsv_prepare(struct nsv_run *run, struct nsv_thread *self, void *lock,
                        long clock_check_mask)
{
    int i;

    memset(run, 0, sizeof *run);
    run->lock = lock;
    run->clock_check_mask = clock_check_mask;
    bench_gate_init(&run->gate);
    for (i = 0; i < NSV_BACKGROUND_THREADS + 1; i++) {
        memset(&self[i], 0, sizeof self[i]);
        self[i].run = run;
        self[i].seed = 12345u + 7919u * (unsigned)i;
    }
}

/* Starts the 21 threads of worker on run (their records set up by the caller)
 * and releases them together: the start time. */
static int64_t nsv_start(struct nsv_run *run, struct nsv_thread *self, void **handle,
                         bench_thread_fn worker, unsigned cap_ms)
{
    int i;

    for (i = 0; i < NSV_BACKGROUND_THREADS + 1; i++)
        handle[i] = bench_spawn_checked(worker, &self[i]);
    bench_gate_wait(&run->gate, NSV_BACKGROUND_THREADS + 1);
    run->deadline_ns = bench_now_ns() + (int64_t)cap_ms * NS_PER_MS;
    return bench_gate_release(&run->gate);
}

/* One subrun of the fixed-work variant: the foreground's and everyone's ns per
 * operation go into totals at index. */
static void nsv_subrun(bench_thread_fn worker, void *lock, unsigned write_permille,
                       unsigned cap_ms, struct nsv_totals *totals, int index)
{
    enum { THREADS = NSV_BACKGROUND_THREADS + 1 };
    struct nsv_run run;
    struct nsv_thread self[THREADS];
    void *handle[THREADS];
    long long operations = 0;
    int64_t start, end = 0;
    int i;

    nsv_prepare(&run, self, lock, BENCH_CLOCK_CHECK_MASK);
    for (i = 0; i < THREADS; i++) {
        self[i].write_permille = write_permille;
        self[i].private_work = i != 0; /* thread 0 is the foreground */
        self[i].target = i == 0 ? bench_params.nsv_foreground_ops : bench_params.nsv_background_ops;
        totals->target += self[i].target;
    }
    start = nsv_start(&run, self, handle, worker, cap_ms);
    for (i = 0; i < THREADS; i++) {
        bench_join(handle[i]);
        operations += self[i].operations;
        totals->writes += self[i].writes;
        totals->torn += self[i].torn;
        if (self[i].end_ns > end)
            end = self[i].end_ns;
    }
    /* The record's version counts every write; a torn read adds to it. */
    totals->versions += run.record[0];
    totals->operations += operations;
    totals->foreground_ops += self[0].operations;
    totals->background_ops += operations - self[0].operations;
    totals->fg_ns[index] =
        self[0].operations ? (double)(self[0].end_ns - start) / (double)self[0].operations : 0;
    totals->all_ns[index] = operations ? (double)(end - start) / (double)operations : 0;
}

/* Reports a row: the medians of its subruns. */
static void nsv_report(const char *variant, struct nsv_totals *totals, int runs)
{
    printf("#info\tnsv\t%s\twrites=%lld torn_reads=%lld fg_ops=%lld bg_ops=%lld subruns=%d\n",
           variant, totals->writes, totals->torn, totals->foreground_ops, totals->background_ops,
           runs);
    bench_report("nsv", variant, "fg", bench_median(totals->fg_ns, runs), "ns/op",
                 totals->versions + totals->torn, totals->writes);
    bench_report("nsv", variant, "all", bench_median(totals->all_ns, runs), "ns/op",
                 totals->operations, totals->operations);
}

/* The fixed-work variant, as bench_subruns() subruns with fresh threads, each
 * with the whole cap (a shorter one would stop the work it is measured by):
 * with 21 threads on 2 cores one run of this case is one draw of the
 * scheduler. */
static void nsv_measure(const char *lock_name, bench_thread_fn worker, void *lock,
                        unsigned write_permille)
{
    struct nsv_totals totals;
    int runs = bench_subruns(), i;
    char variant[64];

    memset(&totals, 0, sizeof totals);
    for (i = 0; i < runs; i++)
        nsv_subrun(worker, lock, write_permille, bench_params.nsv_cap_ms, &totals, i);
    snprintf(variant, sizeof variant, "%s-w%u", lock_name, write_permille / 10);
    if (totals.operations < totals.target)
        printf("#capped\tnsv\t%s\t%lld of %lld operations\n", variant, totals.operations,
               totals.target);
    nsv_report(variant, &totals, runs);
}

/* The case as NaviServer's authors ran it: the background threads read and
 * write busily, operations back to back with no private work, for as long as
 * the foreground does its operations; write shares are set apart for the
 * background and the foreground. Reports the foreground's time per operation
 * and the time per operation of all 21 threads until then (variant
 * busy-bB-fF: B% background writes, F% foreground writes). One subrun; the
 * foreground's time is also its share of the cores: a lock that keeps the
 * background asleep leaves it more, and "all" says how much work the 21
 * threads got done meanwhile. */
static void nsv_busy_subrun(bench_thread_fn worker, void *lock, unsigned background_permille,
                            unsigned foreground_permille, unsigned cap_ms,
                            struct nsv_totals *totals, int index)
{
    enum { THREADS = NSV_BACKGROUND_THREADS + 1 };
    struct nsv_run run;
    struct nsv_thread self[THREADS];
    void *handle[THREADS];
    long long background_ops = 0;
    int64_t start;
    int i;

    nsv_prepare(&run, self, lock, NSV_CLOCK_CHECK_MASK);
    for (i = 0; i < THREADS; i++) {
        self[i].busy = i != 0; /* thread 0 is the foreground */
        self[i].write_permille = i == 0 ? foreground_permille : background_permille;
        self[i].target = bench_params.nsv_busy_foreground_ops;
    }
    totals->target += self[0].target;
    start = nsv_start(&run, self, handle, worker, cap_ms);
    bench_join(handle[0]);
    __atomic_store_n(&run.stop, 1, __ATOMIC_RELAXED);
    for (i = 0; i < THREADS; i++) {
        if (i != 0) {
            bench_join(handle[i]);
            background_ops += self[i].operations;
        }
        totals->writes += self[i].writes;
        totals->torn += self[i].torn;
    }
    totals->versions += run.record[0];
    totals->operations += self[0].operations + background_ops;
    totals->foreground_ops += self[0].operations;
    totals->background_ops += background_ops;
    totals->fg_ns[index] =
        self[0].operations ? (double)(self[0].end_ns - start) / (double)self[0].operations : 0;
    totals->all_ns[index] =
        (double)(self[0].end_ns - start) / (double)(self[0].operations + background_ops);
}

/* The busy variant, as bench_subruns() subruns with fresh threads (the cap
 * shared out), each row the median: one subrun's foreground time swung by up
 * to 10x from run to run. */
static void nsv_busy_measure(const char *lock_name, bench_thread_fn worker, void *lock,
                             unsigned background_permille, unsigned foreground_permille)
{
    struct nsv_totals totals;
    int runs = bench_subruns(), i;
    char variant[64];

    memset(&totals, 0, sizeof totals);
    for (i = 0; i < runs; i++)
        nsv_busy_subrun(worker, lock, background_permille, foreground_permille,
                        bench_params.nsv_busy_cap_ms / (unsigned)runs, &totals, i);
    snprintf(variant, sizeof variant, "%s-busy-b%u-f%u", lock_name, background_permille / 10,
             foreground_permille / 10);
    if (totals.foreground_ops < totals.target)
        printf("#capped\tnsv\t%s\t%lld of %lld operations\n", variant, totals.foreground_ops,
               totals.target);
    nsv_report(variant, &totals, runs);
}

/* The floor of the fixed-work variant: the same threads and work with no lock
 * at all (row nolock-w0; no writes, so no read can be torn). With 21 threads
 * on few cores the private work alone may take most of the time, and no
 * rwlock can then beat a mutex by more than that leaves. */
static void nsv_no_lock(void *lock)
{
    (void)lock;
}

static const struct lock_ops nsv_no_lock_ops = { nsv_no_lock, nsv_no_lock, nsv_no_lock,
                                                 nsv_no_lock };

static void nsv_unlocked(void *self)
{
    nsv_loop(self, &nsv_no_lock_ops);
}

/* The busy settings: background / foreground write shares in per mille. */
static const unsigned nsv_busy_settings[][2] = {
    { 0, 0 }, { 0, 100 }, { 0, 500 }, { 10, 100 }, { 10, 500 },
};
#define NSV_BUSY_SETTINGS (sizeof nsv_busy_settings / sizeof nsv_busy_settings[0])

/* ======== c. cond2010 ======== */

#define COND2010_WAITERS 10

struct cond2010_run {
    void *lock;
    void *cond;
    unsigned waiter_sleep_ms;
    long generation;     /* guarded by lock */
    int64_t broadcast_ns; /* guarded by lock: when the latest broadcast began */
    int stop;            /* guarded by lock */
    struct bench_gate gate;
};

struct cond2010_waiter {
    struct cond2010_run *run;
    long waits;
    long wakeups;
    long spurious;
    int64_t latency_ns;
};

BENCH_INLINE void cond2010_loop(void *argument, const struct lock_ops *lops,
                                const struct cond_ops *cops)
{
    struct cond2010_waiter *self = argument;
    struct cond2010_run *run = self->run;

    bench_gate_arrive(&run->gate);
    for (;;) {
        bench_sleep_ms(run->waiter_sleep_ms);
        lops->lock(run->lock);
        if (run->stop) {
            lops->unlock(run->lock);
            break;
        }
        long seen = run->generation;
        self->waits++;
        while (run->generation == seen && !run->stop) {
            cops->wait(run->cond, run->lock);
            if (run->generation == seen && !run->stop)
                self->spurious++;
        }
        if (run->generation != seen) {
            self->wakeups++;
            self->latency_ns += bench_now_ns() - run->broadcast_ns;
        }
        lops->unlock(run->lock);
    }
}

static void cond2010_measure(bench_thread_fn worker, const struct lock_ops *lops,
                             const struct cond_ops *cops, void *lock, void *cond,
                             unsigned broadcast_every_ms, unsigned wait_every_ms)
{
    struct cond2010_run run;
    struct cond2010_waiter self[COND2010_WAITERS];
    void *handle[COND2010_WAITERS];
    long long broadcasts = 0, wakeups = 0, waits = 0, spurious = 0;
    int64_t start, broadcast_total = 0, latency_total = 0;
    int consistent = 1;
    char variant[64];
    int i;

    memset(&run, 0, sizeof run);
    run.lock = lock;
    run.cond = cond;
    run.waiter_sleep_ms = wait_every_ms;
    bench_gate_init(&run.gate);
    for (i = 0; i < COND2010_WAITERS; i++) {
        memset(&self[i], 0, sizeof self[i]);
        self[i].run = &run;
        handle[i] = bench_spawn_checked(worker, &self[i]);
    }
    start = bench_gate_open(&run.gate, COND2010_WAITERS);
    while (bench_now_ns() - start < (int64_t)bench_params.cond2010_ms * NS_PER_MS) {
        bench_sleep_ms(broadcast_every_ms);
        lops->lock(lock);
        run.generation++;
        int64_t before = bench_now_ns();
        run.broadcast_ns = before;
        cops->broadcast(cond);
        broadcast_total += bench_now_ns() - before;
        lops->unlock(lock);
        broadcasts++;
    }
    lops->lock(lock);
    run.stop = 1;
    cops->broadcast(cond);
    lops->unlock(lock);
    for (i = 0; i < COND2010_WAITERS; i++) {
        bench_join(handle[i]);
        waits += self[i].waits;
        wakeups += self[i].wakeups;
        spurious += self[i].spurious;
        latency_total += self[i].latency_ns;
        /* Every wait ends with a wake-up, except perhaps the one the stop ended. */
        if (self[i].waits - self[i].wakeups > 1)
            consistent = 0;
    }
    snprintf(variant, sizeof variant, "b%ums-w%ums", broadcast_every_ms, wait_every_ms);
    bench_report("cond2010", variant, "broadcast",
                 broadcasts ? broadcast_total / NS_PER_US / (double)broadcasts : 0, "us",
                 broadcasts, broadcasts);
    bench_report("cond2010", variant, "wakeup",
                 wakeups ? latency_total / NS_PER_US / (double)wakeups : 0, "us", wakeups,
                 consistent && wakeups > 0 ? wakeups : -1);
    printf("#info\tcond2010\t%s%s\twaits=%lld wakeups=%lld spurious=%lld broadcasts=%lld\n",
           variant, bench_variant_suffix(), waits, wakeups, spurious, broadcasts);
}

/* ======== d. uncontended ======== */

BENCH_INLINE long uncontended_batch(void *object, bench_op_fn op, long n)
{
    long succeeded = 0;
    long i;

    for (i = 0; i < n; i++)
        succeeded += op(object);
    return succeeded;
}

/* A batch lasts at least this long: short enough that many of them run
 * between two preemptions on a busy machine, long enough for the clock. */
#define UNCONTENDED_BATCH_NS 200000
/* The processors the measurement visits in turn (see below). */
#define UNCONTENDED_MAX_CPUS 4

/* The rows of one run of the case: measured together by uncontended_run. */
#define UNCONTENDED_MAX_ROWS 32

struct uncontended_row {
    const char *variant;
    bench_batch_fn batch;
    void *object;
    long batch_size; /* operations in a batch of UNCONTENDED_BATCH_NS at least */
    double best;     /* ns per operation of the fastest batch */
    long long succeeded, attempted;
};

static struct uncontended_row uncontended_rows[UNCONTENDED_MAX_ROWS];
static int uncontended_row_count;

/* Adds a row for uncontended_run; object must live until then. */
static void uncontended_add_row(const char *variant, bench_batch_fn batch, void *object)
{
    struct uncontended_row *row;

    if (uncontended_row_count == UNCONTENDED_MAX_ROWS)
        bench_fatal("uncontended: too many rows", UNCONTENDED_MAX_ROWS);
    row = &uncontended_rows[uncontended_row_count++];
    memset(row, 0, sizeof *row);
    row->variant = variant;
    row->batch = batch;
    row->object = object;
    row->best = 1e300;
}

/* Grows the row's batch until it lasts UNCONTENDED_BATCH_NS. */
static void uncontended_calibrate(struct uncontended_row *row)
{
    long n = 64;

    row->succeeded += row->batch(row->object, n); /* warm-up */
    row->attempted += n;
    for (;;) {
        int64_t start = bench_now_ns();

        row->succeeded += row->batch(row->object, n);
        row->attempted += n;
        if (bench_now_ns() - start >= UNCONTENDED_BATCH_NS || n >= (1L << 28))
            break;
        n *= 2;
    }
    row->batch_size = n;
}

/* Repeats the row's batch for share ns, keeping the fastest. */
static void uncontended_slice(struct uncontended_row *row, int64_t share)
{
    int64_t deadline = bench_now_ns() + share;

    do {
        int64_t start = bench_now_ns(), elapsed;

        row->succeeded += row->batch(row->object, row->batch_size);
        elapsed = bench_now_ns() - start;
        row->attempted += row->batch_size;
        if ((double)elapsed / row->batch_size < row->best)
            row->best = (double)elapsed / row->batch_size;
    } while (bench_now_ns() < deadline);
}

/* Measures every row added since the last run and reports each one's fastest
 * batch: on a shared machine noise only ever adds time. The rows take turns,
 * in bench_subruns() rounds, each round on each processor in turn (pinned: on
 * a VM one virtual CPU can be steadily slower than another), so that each
 * row's batches are spread over the whole case: the VM ran the same loop at
 * two speeds for stretches of a fraction of a second to seconds, and a row
 * measured in one stretch only said which stretch it fell in. Rows compared
 * with each other (C11 with pthreads, one kind with another) are so measured
 * side by side in time. */
static void uncontended_run(void)
{
    int cpus = (int)bench_cpu_count(), rounds = bench_subruns(), round, cpu, i;
    int64_t share;

    if (cpus > UNCONTENDED_MAX_CPUS)
        cpus = UNCONTENDED_MAX_CPUS;
    if (cpus < 1)
        cpus = 1;
    share = (int64_t)bench_params.uncontended_ms * NS_PER_MS / (cpus * rounds);
    for (i = 0; i < uncontended_row_count; i++)
        uncontended_calibrate(&uncontended_rows[i]);
    for (round = 0; round < rounds; round++)
        for (cpu = 0; cpu < cpus; cpu++) {
            bench_pin_to_cpu(cpu);
            for (i = 0; i < uncontended_row_count; i++)
                uncontended_slice(&uncontended_rows[i], share);
        }
    bench_pin_to_cpu(-1);
    for (i = 0; i < uncontended_row_count; i++) {
        struct uncontended_row *row = &uncontended_rows[i];

        bench_report("uncontended", row->variant, "op", row->best, "ns/op", row->succeeded,
                     row->attempted);
    }
    uncontended_row_count = 0;
}

/* ======== e. queue ======== */

#define QUEUE_CAPACITY 64
#define QUEUE_MAX_SIDE 4

struct queue_run {
    void *lock;
    void *not_full;
    void *not_empty;
    long items[QUEUE_CAPACITY]; /* guarded by lock */
    int head;                   /* guarded by lock */
    int count;                  /* guarded by lock */
    int producers_left;         /* guarded by lock */
    atomic_int stop;
    struct bench_gate gate;
};

struct queue_thread {
    struct queue_run *run;
    int producer;
    long long items;
    long long sum;
    int64_t end_ns;
};

BENCH_INLINE void queue_produce(struct queue_thread *self, const struct lock_ops *lops,
                                const struct cond_ops *cops)
{
    struct queue_run *run = self->run;
    long item = 0;

    while (!atomic_load_explicit(&run->stop, memory_order_relaxed)) {
        item++;
        lops->lock(run->lock);
        while (run->count == QUEUE_CAPACITY)
            cops->wait(run->not_full, run->lock);
        run->items[(run->head + run->count) % QUEUE_CAPACITY] = item;
        run->count++;
        cops->signal(run->not_empty);
        lops->unlock(run->lock);
        self->items++;
        self->sum += item;
    }
    lops->lock(run->lock);
    if (--run->producers_left == 0)
        cops->broadcast(run->not_empty);
    lops->unlock(run->lock);
}

BENCH_INLINE void queue_consume(struct queue_thread *self, const struct lock_ops *lops,
                                const struct cond_ops *cops)
{
    struct queue_run *run = self->run;

    for (;;) {
        lops->lock(run->lock);
        while (run->count == 0 && run->producers_left > 0)
            cops->wait(run->not_empty, run->lock);
        if (run->count == 0) {
            lops->unlock(run->lock);
            break;
        }
        long item = run->items[run->head];
        run->head = (run->head + 1) % QUEUE_CAPACITY;
        run->count--;
        cops->signal(run->not_full);
        lops->unlock(run->lock);
        self->items++;
        self->sum += item;
    }
}

BENCH_INLINE void queue_loop(void *argument, const struct lock_ops *lops,
                             const struct cond_ops *cops)
{
    struct queue_thread *self = argument;

    bench_gate_arrive(&self->run->gate);
    if (self->producer)
        queue_produce(self, lops, cops);
    else
        queue_consume(self, lops, cops);
    self->end_ns = bench_now_ns();
}

struct queue_totals {
    long long produced, consumed, produced_sum, consumed_sum;
    int64_t cpu_ns;
};

/* One sub-run of `ms` with fresh threads: returns the items per ns. */
static double queue_subrun(bench_thread_fn worker, void *lock, void *not_full, void *not_empty,
                           int pairs, unsigned ms, struct queue_totals *totals)
{
    struct queue_run run;
    struct queue_thread self[2 * QUEUE_MAX_SIDE];
    void *handle[2 * QUEUE_MAX_SIDE];
    long long consumed = 0;
    int64_t start, end = 0, cpu_start;
    int i;

    memset(&run, 0, sizeof run);
    run.lock = lock;
    run.not_full = not_full;
    run.not_empty = not_empty;
    run.producers_left = pairs;
    atomic_init(&run.stop, 0);
    bench_gate_init(&run.gate);
    for (i = 0; i < 2 * pairs; i++) {
        memset(&self[i], 0, sizeof self[i]);
        self[i].run = &run;
        self[i].producer = i % 2 == 0;
        handle[i] = bench_spawn_checked(worker, &self[i]);
    }
    cpu_start = bench_cpu_ns();
    start = bench_gate_open(&run.gate, 2 * pairs);
    bench_sleep_ms(ms);
    atomic_store(&run.stop, 1);
    for (i = 0; i < 2 * pairs; i++) {
        bench_join(handle[i]);
        if (self[i].producer) {
            totals->produced += self[i].items;
            totals->produced_sum += self[i].sum;
        } else {
            consumed += self[i].items;
            totals->consumed_sum += self[i].sum;
        }
        if (self[i].end_ns > end)
            end = self[i].end_ns;
    }
    totals->cpu_ns += bench_cpu_ns() - cpu_start;
    totals->consumed += consumed;
    return (double)consumed / (double)(end - start);
}

/* variant_prefix names the API when a program measures two on one primitive
 * ("" for its own, "c11_" for <threads.h> in bench_slim). */
static void queue_measure(bench_thread_fn worker, void *lock, void *not_full, void *not_empty,
                          int pairs, const char *variant_prefix)
{
    struct queue_totals totals;
    double rate[BENCH_MAX_SUBRUNS];
    int runs = bench_subruns();
    char variant[64];
    int i;

    memset(&totals, 0, sizeof totals);
    for (i = 0; i < runs; i++)
        rate[i] = queue_subrun(worker, lock, not_full, not_empty, pairs,
                               bench_params.queue_ms / (unsigned)runs, &totals);
    snprintf(variant, sizeof variant, "%s%dp%dc", variant_prefix, pairs, pairs);
    bench_report("queue", variant, "throughput", bench_median(rate, runs) * 1e3, "Mitems/s",
                 totals.consumed, totals.consumed_sum == totals.produced_sum ? totals.produced : -1);
    bench_report("queue", variant, "cpu",
                 totals.consumed ? (double)totals.cpu_ns / (double)totals.consumed : 0, "ns/item",
                 totals.consumed, totals.produced);
}

/* ======== f. thread ======== */

/* pair() creates a thread that adds 1 to *counter and joins it; 1 on success. */
static void thread_measure(int (*pair)(atomic_long *counter))
{
    atomic_long counter;
    long long pairs = 0, succeeded = 0;
    int64_t start, elapsed;

    atomic_init(&counter, 0);
    succeeded += pair(&counter); /* warm-up: the first thread maps its stack, etc. */
    pairs++;
    start = bench_now_ns();
    do {
        succeeded += pair(&counter);
        pairs++;
        elapsed = bench_now_ns() - start;
    } while (elapsed < (int64_t)bench_params.thread_ms * NS_PER_MS);
    bench_report("thread", "create_join", "pair", elapsed / NS_PER_US / (double)(pairs - 1),
                 "us/pair", atomic_load(&counter), succeeded == pairs ? pairs : -1);
}

/* ======== g. bufread ======== */

#define BUFREAD_BUFFER 4096

struct bufreader {
    FILE *file;
    size_t position;
    size_t length;
    unsigned char buffer[BUFREAD_BUFFER];
};

BENCH_INLINE int bufreader_getc(struct bufreader *reader)
{
    if (reader->position == reader->length) {
        reader->length = fread(reader->buffer, 1, sizeof reader->buffer, reader->file);
        reader->position = 0;
        if (reader->length == 0)
            return EOF;
    }
    return reader->buffer[reader->position++];
}

/* Reads to the end; ops == NULL reads without a lock. Returns the byte sum. */
BENCH_INLINE long long bufread_loop(struct bufreader *reader, void *lock,
                                    const struct lock_ops *ops)
{
    long long sum = 0;
    int c;

    for (;;) {
        if (ops)
            ops->lock(lock);
        c = bufreader_getc(reader);
        if (ops)
            ops->unlock(lock);
        if (c == EOF)
            break;
        sum += c;
    }
    return sum;
}

typedef long long (*bufread_fn)(struct bufreader *reader, void *lock);

static long long bufread_plain(struct bufreader *reader, void *lock)
{
    return bufread_loop(reader, lock, NULL);
}

/* Writes the data file; returns the sum of its bytes, or -1. */
static long long bufread_make_file(const char *path, long bytes)
{
    unsigned char block[BUFREAD_BUFFER];
    unsigned seed = 2024u;
    long long sum = 0;
    long written = 0;
    FILE *file = fopen(path, "wb");

    if (file == NULL)
        return -1;
    while (written < bytes) {
        size_t i, n = sizeof block;
        if ((long)n > bytes - written)
            n = (size_t)(bytes - written);
        for (i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            block[i] = (unsigned char)(seed >> 16);
            sum += block[i];
        }
        if (fwrite(block, 1, n, file) != n) {
            fclose(file);
            return -1;
        }
        written += (long)n;
    }
    return fclose(file) == 0 ? sum : -1;
}

static void bufread_measure(const char *variant, const char *path, long long expected,
                            bufread_fn read_all, void *lock)
{
    struct bufreader *reader = calloc(1, sizeof *reader);
    int64_t start, elapsed;
    long long sum;

    if (reader == NULL || (reader->file = fopen(path, "rb")) == NULL)
        bench_fatal("bufread: open", 0);
    start = bench_now_ns();
    sum = read_all(reader, lock);
    elapsed = bench_now_ns() - start;
    fclose(reader->file);
    free(reader);
    bench_report("bufread", variant, "byte", (double)elapsed / (double)bench_params.bufread_bytes,
                 "ns/byte", sum, expected);
}

/* ======== h. handoff ======== */

struct handoff_run {
    void *ping; /* sem variant: two semaphores; cond variant: two condvars + lock */
    void *pong;
    void *lock;
    int turn;   /* cond variant, guarded by lock: whose move it is */
    atomic_int stop;
    long long partner_rounds;
    struct bench_gate gate;
};

enum { HANDOFF_TURN_MAIN, HANDOFF_TURN_PARTNER };
#define HANDOFF_CLOCK_CHECK_MASK 63L

BENCH_INLINE void handoff_sem_partner(void *argument, const struct sem_ops *ops)
{
    struct handoff_run *run = argument;

    bench_gate_arrive(&run->gate);
    for (;;) {
        ops->wait(run->ping);
        if (atomic_load_explicit(&run->stop, memory_order_relaxed))
            break;
        run->partner_rounds++;
        ops->post(run->pong);
    }
}

BENCH_INLINE void handoff_cond_partner(void *argument, const struct lock_ops *lops,
                                       const struct cond_ops *cops)
{
    struct handoff_run *run = argument;

    bench_gate_arrive(&run->gate);
    lops->lock(run->lock);
    for (;;) {
        while (run->turn != HANDOFF_TURN_PARTNER)
            cops->wait(run->ping, run->lock);
        if (atomic_load_explicit(&run->stop, memory_order_relaxed))
            break;
        run->partner_rounds++;
        run->turn = HANDOFF_TURN_MAIN;
        cops->signal(run->pong);
    }
    lops->unlock(run->lock);
}

/* Starts the partner on run (already filled in but for the gate) and returns
 * the start time; *deadline is when this sub-run's share of the time is up. */
static int64_t handoff_start(struct handoff_run *run, bench_thread_fn partner, void **thread,
                             int64_t *deadline)
{
    int64_t start;

    atomic_init(&run->stop, 0);
    bench_gate_init(&run->gate);
    *thread = bench_spawn_checked(partner, run);
    start = bench_gate_open(&run->gate, 1);
    *deadline = start + (int64_t)bench_params.handoff_ms * NS_PER_MS / bench_subruns();
    return start;
}

/* Joins the partner (already told to stop), adds up the rounds and returns the
 * one-way time in us. */
static double handoff_finish(struct handoff_run *run, void *thread, int64_t elapsed,
                             long long rounds, long long *total_rounds,
                             long long *partner_rounds)
{
    bench_join(thread);
    *total_rounds += rounds;
    *partner_rounds += run->partner_rounds;
    return elapsed / NS_PER_US / (2.0 * (double)rounds);
}

/* One sub-run of each kind: adds its rounds to *total_rounds and
 * *partner_rounds, returns the one-way time in us. */
static double handoff_sem_subrun(bench_thread_fn partner, const struct sem_ops *ops, void *ping,
                                 void *pong, long long *total_rounds, long long *partner_rounds)
{
    struct handoff_run run;
    long long rounds = 0;
    int64_t start, deadline, elapsed;
    void *thread;

    memset(&run, 0, sizeof run);
    run.ping = ping;
    run.pong = pong;
    start = handoff_start(&run, partner, &thread, &deadline);
    do {
        ops->post(ping);
        ops->wait(pong);
        rounds++;
    } while ((rounds & HANDOFF_CLOCK_CHECK_MASK) != 0 || bench_now_ns() < deadline);
    elapsed = bench_now_ns() - start;
    atomic_store(&run.stop, 1);
    ops->post(ping);
    return handoff_finish(&run, thread, elapsed, rounds, total_rounds, partner_rounds);
}

static double handoff_cond_subrun(bench_thread_fn partner, const struct lock_ops *lops,
                                  const struct cond_ops *cops, void *lock, void *ping, void *pong,
                                  long long *total_rounds, long long *partner_rounds)
{
    struct handoff_run run;
    long long rounds = 0;
    int64_t start, deadline, elapsed;
    void *thread;

    memset(&run, 0, sizeof run);
    run.ping = ping;
    run.pong = pong;
    run.lock = lock;
    run.turn = HANDOFF_TURN_MAIN;
    start = handoff_start(&run, partner, &thread, &deadline);
    lops->lock(lock);
    do {
        run.turn = HANDOFF_TURN_PARTNER;
        cops->signal(ping);
        while (run.turn != HANDOFF_TURN_MAIN)
            cops->wait(pong, lock);
        rounds++;
    } while ((rounds & HANDOFF_CLOCK_CHECK_MASK) != 0 || bench_now_ns() < deadline);
    elapsed = bench_now_ns() - start;
    atomic_store(&run.stop, 1);
    run.turn = HANDOFF_TURN_PARTNER;
    cops->signal(ping);
    lops->unlock(lock);
    return handoff_finish(&run, thread, elapsed, rounds, total_rounds, partner_rounds);
}

/* Process CPU time per one-way hand-off: what a design that spins pays. */
static void handoff_report_cpu(const char *variant, int64_t cpu_ns, long long rounds,
                               long long partner_rounds)
{
    bench_report("handoff", variant, "cpu",
                 rounds ? (double)cpu_ns / NS_PER_US / (2.0 * (double)rounds) : 0, "us",
                 partner_rounds, rounds);
}

static void handoff_sem_measure(bench_thread_fn partner, const struct sem_ops *ops, void *ping,
                                void *pong)
{
    double oneway[BENCH_MAX_SUBRUNS];
    long long rounds = 0, partner_rounds = 0;
    int runs = bench_subruns(), i;
    int64_t cpu_start = bench_cpu_ns();

    for (i = 0; i < runs; i++)
        oneway[i] = handoff_sem_subrun(partner, ops, ping, pong, &rounds, &partner_rounds);
    bench_report("handoff", "sem", "oneway", bench_median(oneway, runs), "us", partner_rounds,
                 rounds);
    handoff_report_cpu("sem", bench_cpu_ns() - cpu_start, rounds, partner_rounds);
}

static void handoff_cond_measure(const char *variant, bench_thread_fn partner,
                                 const struct lock_ops *lops, const struct cond_ops *cops,
                                 void *lock, void *ping, void *pong)
{
    double oneway[BENCH_MAX_SUBRUNS];
    long long rounds = 0, partner_rounds = 0;
    int runs = bench_subruns(), i;
    int64_t cpu_start = bench_cpu_ns();

    for (i = 0; i < runs; i++)
        oneway[i] = handoff_cond_subrun(partner, lops, cops, lock, ping, pong, &rounds,
                                        &partner_rounds);
    bench_report("handoff", variant, "oneway", bench_median(oneway, runs), "us", partner_rounds,
                 rounds);
    handoff_report_cpu(variant, bench_cpu_ns() - cpu_start, rounds, partner_rounds);
}

/* ======== i. sleep ======== */

/* Each request is slept this many times in a row (fewer of the long ones);
 * the mean actual sleep is the value, and the checksum counts the sleeps that
 * were not early (informational: winpthreads' and raw Sleep's may be). */
#define SLEEP_REQUEST_COUNT 4
#define SLEEP_SHORT_SAMPLES 40
#define SLEEP_LONG_SAMPLES 10
#define SLEEP_LONG_US 10000L

static void sleep_measure(void (*sleep_us)(long us))
{
    static const long request_us[SLEEP_REQUEST_COUNT] = {50, 200, 1000, SLEEP_LONG_US};
    char variant[32];
    int r, i;

    for (r = 0; r < SLEEP_REQUEST_COUNT; r++) {
        int samples = request_us[r] >= SLEEP_LONG_US ? SLEEP_LONG_SAMPLES : SLEEP_SHORT_SAMPLES;
        int64_t total = 0;
        long long not_early = 0;

        for (i = 0; i < samples; i++) {
            int64_t start = bench_now_ns(), slept;

            sleep_us(request_us[r]);
            slept = bench_now_ns() - start;
            total += slept;
            not_early += slept >= (int64_t)request_us[r] * 1000;
        }
        snprintf(variant, sizeof variant, "%ldus", request_us[r]);
        bench_report("sleep", variant, "actual", (double)total / NS_PER_US / samples, "us",
                     not_early, not_early);
    }
}

/* ======== i. sweep: exclusive contention, 2-8 threads, four critical sections ======== */

/* Every thread locks, spends cs_ns inside (a calibrated busy loop), unlocks,
 * and goes straight back, for sweep_ms. Reported per point: throughput, the
 * process CPU per operation (what waiting costs: a spinning waiter burns it,
 * a sleeping one does not), the machine's CPU per operation (the same, plus
 * what wineserver does for a lock that waits on kernel objects:
 * bench_machine_cpu_ns), and the slowest thread's share of the operations
 * relative to an even split (1.0 = perfectly fair, near 0 = starved). Generic
 * over struct lock_ops: a lock joins the sweep with one sweep_measure call. */

#define SWEEP_MAX_THREADS 8
static const int sweep_threads[] = { 2, 4, 6, 8 };
static const int sweep_cs_ns[] = { 0, 100, 1000, 10000 };

struct sweep_run {
    void *lock;
    const struct lock_ops *ops;
    long cs_loops;             /* busy-loop iterations for the critical section */
    int64_t deadline_ns;
    volatile long counter;     /* bumped under the lock: the checksum */
    struct bench_gate gate;
};

struct sweep_thread {
    struct sweep_run *run;
    long done;
};

static volatile long sweep_sink;

BENCH_INLINE void sweep_busy(long loops)
{
    long i;

    for (i = 0; i < loops; i++)
        sweep_sink = i;
}

#define SWEEP_WARM_UP_MS 20      /* the loop runs this long before it is timed */
#define SWEEP_CALIBRATIONS 200    /* timings of the loop; the fastest counts */
#define SWEEP_CALIBRATION_LOOPS 100000L /* tens of us: shorter than a time slice */

/* The fastest rate of the busy loop on the CPU the caller runs on. */
static double sweep_fastest_rate(int timings)
{
    int64_t start, warm_up_end = bench_now_ns() + (int64_t)SWEEP_WARM_UP_MS * NS_PER_MS;
    double fastest = 0;
    int i;

    while (bench_now_ns() < warm_up_end)
        sweep_busy(SWEEP_CALIBRATION_LOOPS / 10);
    for (i = 0; i < timings; i++) {
        double rate;

        start = bench_now_ns();
        sweep_busy(SWEEP_CALIBRATION_LOOPS);
        rate = (double)SWEEP_CALIBRATION_LOOPS * 1000.0 / (double)(bench_now_ns() - start + 1);
        if (rate > fastest)
            fastest = rate;
    }
    return fastest;
}

/* Busy-loop iterations per 1000 ns on this machine, measured once, on each
 * CPU in turn after a warm-up, as the fastest of many short timings: a core
 * just back from idle runs slower for a while. Timed once and cold, right
 * after the sleep case, the loop ran about 2/3 as fast as later, and every
 * section came out a third short ("10000 ns" sections were 7 us long). A
 * timing that a preemption lengthened only loses, and with many short ones
 * some are never preempted. On each CPU: one virtual CPU of a VM can be
 * steadily slower than another (case d pins for the same reason), and a
 * program calibrated on the slow one held the lock 0.6x as long as the
 * others of the same run, which made it look faster and cheaper. */
static double sweep_loops_per_us(void)
{
    static double per_us;
    int cpus = (int)bench_cpu_count(), cpu;

    if (per_us == 0 && bench_params.sweep_loops_per_us > 0) {
        per_us = bench_params.sweep_loops_per_us; /* the run's, for every program alike */
        printf("#info\tsweep\tcalibration\tloops_per_us=%.1f (the run's)\n", per_us);
    }
    if (per_us == 0) {
        if (cpus < 1)
            cpus = 1;
        for (cpu = 0; cpu < cpus; cpu++) {
            double rate;

            bench_pin_to_cpu(cpu);
            rate = sweep_fastest_rate(SWEEP_CALIBRATIONS / cpus + 1);
            if (rate > per_us)
                per_us = rate;
        }
        bench_pin_to_cpu(-1);
        printf("#info\tsweep\tcalibration\tloops_per_us=%.1f\n", per_us);
    }
    return per_us;
}

static void sweep_worker(void *argument)
{
    struct sweep_thread *self = argument;
    struct sweep_run *run = self->run;
    long i;

    bench_gate_arrive(&run->gate);
    for (i = 0;; i++) {
        if ((i & 63) == 63 && bench_now_ns() > run->deadline_ns)
            break;
        run->ops->lock(run->lock);
        run->counter++;
        sweep_busy(run->cs_loops);
        run->ops->unlock(run->lock);
    }
    self->done = i;
}

static void sweep_point(const char *lock_name, const struct lock_ops *ops, void *lock,
                        int threads, int cs_ns)
{
    struct sweep_run run;
    struct sweep_thread self[SWEEP_MAX_THREADS];
    void *handle[SWEEP_MAX_THREADS];
    long long done = 0, slowest = -1;
    int64_t start, elapsed, cpu_start, machine_cpu_start;
    char variant[64];
    int i;

    memset(&run, 0, sizeof run);
    run.lock = lock;
    run.ops = ops;
    run.cs_loops = (long)(sweep_loops_per_us() * cs_ns / 1000.0);
    bench_gate_init(&run.gate);
    for (i = 0; i < threads; i++) {
        self[i].run = &run;
        self[i].done = 0;
        handle[i] = bench_spawn_checked(sweep_worker, &self[i]);
    }
    bench_gate_wait(&run.gate, threads);
    cpu_start = bench_cpu_ns();
    machine_cpu_start = bench_machine_cpu_ns();
    run.deadline_ns = bench_now_ns() + (int64_t)bench_params.sweep_ms * NS_PER_MS;
    start = bench_gate_release(&run.gate);
    for (i = 0; i < threads; i++) {
        bench_join(handle[i]);
        done += self[i].done;
        if (slowest < 0 || self[i].done < slowest)
            slowest = self[i].done;
    }
    elapsed = bench_now_ns() - start;
    snprintf(variant, sizeof variant, "%s-%dt-cs%dns", lock_name, threads, cs_ns);
    bench_report("sweep", variant, "throughput", done ? (double)done * 1e3 / (double)elapsed : 0,
                 "Mops/s", run.counter, done);
    bench_report("sweep", variant, "cpu", done ? (double)(bench_cpu_ns() - cpu_start) / done : 0,
                 "ns/op", run.counter, done);
    if (!bench_loaded()) /* under load the machine is busy whatever the lock does */
        bench_report("sweep", variant, "machine_cpu",
                     done ? (double)(bench_machine_cpu_ns() - machine_cpu_start) / done : 0,
                     "ns/op", run.counter, done);
    bench_report("sweep", variant, "slowest_share",
                 done ? (double)slowest * threads / (double)done : 0, "of_even", run.counter,
                 done);
}

/* The whole sweep for one lock. */
static void sweep_measure(const char *lock_name, const struct lock_ops *ops, void *lock)
{
    size_t t, c;

    for (c = 0; c < sizeof sweep_cs_ns / sizeof sweep_cs_ns[0]; c++)
        for (t = 0; t < sizeof sweep_threads / sizeof sweep_threads[0]; t++)
            sweep_point(lock_name, ops, lock, sweep_threads[t], sweep_cs_ns[c]);
}

/* ======== k. xproc: two processes on one object ======== */

/* The program starts a copy of itself (harness.h, bench_child_start) as the
 * other side of a row and both work on objects in memory they both map, each at
 * its own address. The same loops run with a second thread of this process as
 * the other side, on process-private objects: the cost of sharing. */

#define XPROC_OBJECTS_SIZE 1024
/* Waits for the other side to come up; a Wine process start takes 0.1-1 s,
 * far more on a loaded machine. */
#define XPROC_START_TIMEOUT_MS 20000
/* Past this the watchdogs end both processes: no row lasts near it. */
#define XPROC_TIMEOUT_MS 60000
#define XPROC_START_POLL_MS 1

/* The start of the shared memory: what the two sides say to each other, then
 * each program's objects. No pointers: each side has its own addresses. */
struct xproc_control {
    atomic_int arrived BENCH_OWN_CACHE_LINE; /* the partner is ready */
    atomic_int open;                          /* the parent's go, after start_ns */
    atomic_int finished;                      /* the partner's counts are written */
    long long partner_ops;
    int64_t partner_end_ns;
    atomic_int stop BENCH_OWN_CACHE_LINE;     /* read by the partner's mutex loop */
    volatile long counter BENCH_OWN_CACHE_LINE; /* mutex rows: bumped under the lock */
    volatile int turn;                        /* cond rows: under the lock */
    unsigned char objects[XPROC_OBJECTS_SIZE] BENCH_OWN_CACHE_LINE;
};

/* The parent's own counts: in its memory, not the shared one. */
struct xproc_parent {
    int64_t start_ns, end_ns;
    long long ops;
};

/* One side of a row: parent is NULL in the partner (the child, or the second
 * thread). Each program resolves its objects and calls a loop below. */
typedef void (*xproc_side_fn)(struct xproc_control *control, struct xproc_parent *parent);

static void xproc_partner_arrive(struct xproc_control *control)
{
    int64_t give_up = bench_now_ns() + XPROC_START_TIMEOUT_MS * NS_PER_MS;

    atomic_store_explicit(&control->arrived, 1, memory_order_release);
    /* Short: the parent opens as soon as it sees the arrival. */
    while (!atomic_load_explicit(&control->open, memory_order_acquire))
        if (bench_now_ns() > give_up)
            bench_fatal("xproc: the parent never opened", 0);
        else
            bench_yield();
}

static void xproc_partner_done(struct xproc_control *control, long long ops)
{
    control->partner_ops = ops;
    control->partner_end_ns = bench_now_ns();
    atomic_store_explicit(&control->finished, 1, memory_order_release);
}

/* Both sides lock, bump the counter, unlock, until the parent's time is up. */
BENCH_INLINE void xproc_mutex_side(struct xproc_control *control, struct xproc_parent *parent,
                                   void *lock, const struct lock_ops *ops)
{
    long long pairs = 0;

    if (parent != NULL) {
        int64_t deadline = parent->start_ns + (int64_t)bench_params.xproc_ms * NS_PER_MS;

        do {
            ops->lock(lock);
            control->counter++;
            ops->unlock(lock);
            pairs++;
        } while ((pairs & BENCH_CLOCK_CHECK_MASK) != 0 || bench_now_ns() < deadline);
        parent->end_ns = bench_now_ns();
        parent->ops = pairs;
        atomic_store_explicit(&control->stop, 1, memory_order_relaxed);
        return;
    }
    xproc_partner_arrive(control);
    do {
        ops->lock(lock);
        control->counter++;
        ops->unlock(lock);
        pairs++;
    } while (!atomic_load_explicit(&control->stop, memory_order_relaxed));
    xproc_partner_done(control, pairs);
}

/* Ping-pong on two signals (semaphores, events): the parent posts ping and
 * waits for pong, the partner the other way round. */
BENCH_INLINE void xproc_signal_side(struct xproc_control *control, struct xproc_parent *parent,
                                    void *ping, void *pong, const struct sem_ops *ops)
{
    long long rounds = 0;

    if (parent != NULL) {
        int64_t deadline = parent->start_ns + (int64_t)bench_params.xproc_ms * NS_PER_MS;

        do {
            ops->post(ping);
            ops->wait(pong);
            rounds++;
        } while ((rounds & HANDOFF_CLOCK_CHECK_MASK) != 0 || bench_now_ns() < deadline);
        parent->end_ns = bench_now_ns();
        parent->ops = rounds;
        atomic_store_explicit(&control->stop, 1, memory_order_relaxed);
        ops->post(ping); /* the post orders the stop before the partner's look */
        return;
    }
    xproc_partner_arrive(control);
    for (;;) {
        ops->wait(ping);
        if (atomic_load_explicit(&control->stop, memory_order_relaxed))
            break;
        rounds++;
        ops->post(pong);
    }
    xproc_partner_done(control, rounds);
}

/* Ping-pong on a mutex, two condvars and the turn word, as case h. */
BENCH_INLINE void xproc_cond_side(struct xproc_control *control, struct xproc_parent *parent,
                                  void *lock, void *ping, void *pong,
                                  const struct lock_ops *lops, const struct cond_ops *cops)
{
    long long rounds = 0;

    if (parent != NULL) {
        int64_t deadline = parent->start_ns + (int64_t)bench_params.xproc_ms * NS_PER_MS;

        lops->lock(lock);
        do {
            control->turn = HANDOFF_TURN_PARTNER;
            cops->signal(ping);
            while (control->turn != HANDOFF_TURN_MAIN)
                cops->wait(pong, lock);
            rounds++;
        } while ((rounds & HANDOFF_CLOCK_CHECK_MASK) != 0 || bench_now_ns() < deadline);
        parent->end_ns = bench_now_ns();
        parent->ops = rounds;
        atomic_store_explicit(&control->stop, 1, memory_order_relaxed);
        control->turn = HANDOFF_TURN_PARTNER;
        cops->signal(ping);
        lops->unlock(lock);
        return;
    }
    xproc_partner_arrive(control);
    lops->lock(lock);
    for (;;) {
        while (control->turn != HANDOFF_TURN_PARTNER)
            cops->wait(ping, lock);
        if (atomic_load_explicit(&control->stop, memory_order_relaxed))
            break;
        rounds++;
        control->turn = HANDOFF_TURN_MAIN;
        cops->signal(pong);
    }
    lops->unlock(lock);
    xproc_partner_done(control, rounds);
}

/* The second thread of a two-thread row. */
struct xproc_thread {
    struct xproc_control *control;
    xproc_side_fn side;
};

static void xproc_thread_main(void *argument)
{
    struct xproc_thread *thread = argument;

    thread->side(thread->control, NULL);
}

/* Waits for the partner's arrival, bounded: a child that never comes fails. */
static void xproc_wait_arrival(struct xproc_control *control)
{
    int64_t give_up = bench_now_ns() + XPROC_START_TIMEOUT_MS * NS_PER_MS;

    while (!atomic_load_explicit(&control->arrived, memory_order_acquire))
        if (bench_now_ns() > give_up)
            bench_fatal("xproc: the other side never came", 0);
        else
            bench_sleep_ms(XPROC_START_POLL_MS); /* a process start: no need to spin */
}

enum xproc_unit { XPROC_PAIRS, XPROC_ROUND_TRIPS };

/* One row: the other side is a child process running `role` on the memory
 * named shared_name, or (shared_name NULL) a thread of this process. Reports
 * ns per lock/unlock pair of both sides, or us per round trip. */
static void xproc_measure(const char *variant, struct xproc_control *control,
                          const char *shared_name, const char *role, xproc_side_fn side,
                          enum xproc_unit unit)
{
    struct xproc_parent parent = { 0, 0, 0 };
    struct xproc_thread thread = { control, side };
    struct bench_child *child = NULL;
    void *partner = NULL;
    long long checksum, expected;

    atomic_store(&control->arrived, 0);
    atomic_store(&control->open, 0);
    atomic_store(&control->finished, 0);
    atomic_store(&control->stop, 0);
    control->partner_ops = 0;
    control->counter = 0;
    control->turn = HANDOFF_TURN_MAIN;
    if (shared_name != NULL)
        child = bench_child_start(role, shared_name, XPROC_TIMEOUT_MS);
    else
        partner = bench_spawn_checked(xproc_thread_main, &thread);
    xproc_wait_arrival(control);
    parent.start_ns = bench_now_ns();
    atomic_store_explicit(&control->open, 1, memory_order_release);
    side(control, &parent);
    if (child != NULL) {
        unsigned long status = bench_child_finish(child, XPROC_START_TIMEOUT_MS);

        if (status != 0)
            bench_fatal("xproc: the child process", (int)status);
    } else
        bench_join(partner);
    if (!atomic_load_explicit(&control->finished, memory_order_acquire))
        bench_fatal("xproc: the other side left no counts", 0);
    if (unit == XPROC_PAIRS) {
        int64_t end = control->partner_end_ns > parent.end_ns ? control->partner_end_ns
                                                               : parent.end_ns;

        expected = parent.ops + control->partner_ops;
        checksum = control->counter;
        bench_report("xproc", variant, "time",
                     expected ? (double)(end - parent.start_ns) / (double)expected : 0,
                     "ns/pair", checksum, expected);
        return;
    }
    expected = parent.ops;
    checksum = control->partner_ops;
    bench_report("xproc", variant, "roundtrip",
                 expected ? (double)(parent.end_ns - parent.start_ns) / NS_PER_US / (double)expected
                          : 0,
                 "us", checksum, expected);
}

/* A program's roles for its child: the role name and its side. */
struct xproc_role {
    const char *name;
    xproc_side_fn side;
    /* Called first with the mapping's name (the raw program opens its named
     * kernel objects); may be NULL. */
    void (*attach)(const char *shared_name);
};

/* The child's main: returns its exit status. */
static int xproc_child_main(int argc, char **argv, const struct xproc_role *roles, int count)
{
    const char *role = NULL, *name = NULL;
    struct xproc_control *control = bench_child_attach(argc, argv, &role, &name,
                                                       sizeof *control, XPROC_TIMEOUT_MS);
    int i;

    if (control == NULL)
        bench_fatal("xproc: the child's arguments or mapping", 0);
    for (i = 0; i < count; i++)
        if (strcmp(roles[i].name, role) == 0) {
            if (roles[i].attach != NULL)
                roles[i].attach(name);
            roles[i].side(control, NULL);
            return 0;
        }
    bench_fatal("xproc: unknown role", 0);
}

/* ======== l. yieldloop: lock, a little work, unlock, lock, store, unlock, yield ======== */

/* The shape of the mutex benchmark mcfgthread (lhmouse/mcfgthread) publishes,
 * written here from its description: each of N threads does a fixed number of
 * rounds; a round locks, does a little floating-point work on shared state,
 * unlocks, locks again, stores the result, unlocks, and gives the processor
 * away (sched_yield; SwitchToThread in the raw program). With more threads
 * than processors and a yield in every round, a waiter is more often asleep
 * or descheduled than spinning: what counts is how the lock wakes and hands
 * over. Reported per thread count: wall ns per round (all threads' rounds
 * over the time until the last thread is done; the median of the subruns)
 * and process CPU ns per round. */

static const int yieldloop_threads[] = { 2, 4, 8, 16, 32 };
/* The floating-point work of the first section: a few steps of x * a + b. */
#define YIELDLOOP_FP_STEPS 8
#define YIELDLOOP_FP_SCALE 1.0000001
#define YIELDLOOP_FP_OFFSET 0.5

struct yieldloop_run {
    void *lock;
    long rounds;
    volatile double fp_state;      /* guarded by lock: the first section's work */
    volatile long long fp_rounds;  /* guarded by lock: first sections done */
    volatile double stored;        /* guarded by lock: the second section's store */
    volatile long long stores;     /* guarded by lock: second sections done */
    struct bench_gate gate;
};

struct yieldloop_thread {
    struct yieldloop_run *run;
    int64_t end_ns;
};

BENCH_INLINE void yieldloop_loop(void *argument, const struct lock_ops *ops, void (*yield)(void))
{
    struct yieldloop_thread *self = argument;
    struct yieldloop_run *run = self->run;
    long i;
    int step;

    bench_gate_arrive(&run->gate);
    for (i = 0; i < run->rounds; i++) {
        double value;

        ops->lock(run->lock);
        value = run->fp_state;
        for (step = 0; step < YIELDLOOP_FP_STEPS; step++)
            value = value * YIELDLOOP_FP_SCALE + YIELDLOOP_FP_OFFSET;
        run->fp_state = value;
        run->fp_rounds++;
        ops->unlock(run->lock);
        ops->lock(run->lock);
        run->stored = value;
        run->stores++;
        ops->unlock(run->lock);
        yield();
    }
    self->end_ns = bench_now_ns();
}

/* The counts of a row over its subruns. */
struct yieldloop_totals {
    long long rounds;    /* asked of all threads */
    long long proof;     /* both sections' counts, when each equals rounds; else -1 */
    int64_t cpu_ns;
};

/* One subrun: `threads` fresh copies of worker (a wrapper of yieldloop_loop) on
 * lock; adds its counts, returns wall ns per round. */
static double yieldloop_subrun(bench_thread_fn worker, void *lock, int threads,
                               struct yieldloop_totals *totals)
{
    struct yieldloop_run run;
    struct yieldloop_thread self[BENCH_MAX_THREADS];
    void *handle[BENCH_MAX_THREADS];
    long long asked = (long long)bench_params.yieldloop_rounds * threads;
    int64_t start, end = 0, cpu_start;
    int i;

    memset(&run, 0, sizeof run);
    run.lock = lock;
    run.rounds = bench_params.yieldloop_rounds;
    bench_gate_init(&run.gate);
    for (i = 0; i < threads; i++) {
        self[i].run = &run;
        self[i].end_ns = 0;
        handle[i] = bench_spawn_checked(worker, &self[i]);
    }
    bench_gate_wait(&run.gate, threads);
    cpu_start = bench_cpu_ns();
    start = bench_gate_release(&run.gate);
    for (i = 0; i < threads; i++) {
        bench_join(handle[i]);
        if (self[i].end_ns > end)
            end = self[i].end_ns;
    }
    totals->cpu_ns += bench_cpu_ns() - cpu_start;
    totals->rounds += asked;
    if (totals->proof >= 0 && run.fp_rounds == asked && run.stores == asked)
        totals->proof += asked;
    else
        totals->proof = -1;
    return (double)(end - start) / (double)asked;
}

/* Every thread count for one lock: variants lock_name-Nt. */
static void yieldloop_measure(const char *lock_name, bench_thread_fn worker, void *lock)
{
    size_t t;

    for (t = 0; t < sizeof yieldloop_threads / sizeof yieldloop_threads[0]; t++) {
        struct yieldloop_totals totals = { 0, 0, 0 };
        double ns_per_round[BENCH_MAX_SUBRUNS];
        int runs = bench_subruns(), i;
        char variant[64];

        for (i = 0; i < runs; i++)
            ns_per_round[i] = yieldloop_subrun(worker, lock, yieldloop_threads[t], &totals);
        snprintf(variant, sizeof variant, "%s-%dt", lock_name, yieldloop_threads[t]);
        bench_report("yieldloop", variant, "time", bench_median(ns_per_round, runs), "ns/round",
                     totals.proof, totals.rounds);
        bench_report("yieldloop", variant, "cpu", (double)totals.cpu_ns / (double)totals.rounds,
                     "ns/round", totals.proof, totals.rounds);
    }
}

/* ======== The run ======== */

/* One function per case, in the order they run; each program fills in all. */
struct bench_cases {
    void (*uncontended)(void);
    void (*lockperf)(void);
    void (*nsv)(void);
    void (*cond2010)(void);
    void (*queue)(void);
    void (*thread)(void);
    void (*bufread)(void);
    void (*handoff)(void);
    void (*sleep)(void);
    void (*sweep)(void);
    void (*xproc)(void);
    void (*yieldloop)(void);
    /* The other process of case k: main's work when argv[1] is BENCH_CHILD_FLAG. */
    int (*xproc_child)(int argc, char **argv);
};

/* Runs a case; with --load N, a case that contends for a lock runs again at
 * once with the load threads (harness.h), so that its quiet and loaded rows
 * come from the same run, side by side in time. */
enum { BENCH_QUIET_ONLY, BENCH_LOADABLE };

static void bench_run_case(void (*run)(void), int loadable)
{
    run();
    if (loadable == BENCH_LOADABLE && bench_params.load_threads > 0) {
        bench_load_start();
        run();
        bench_load_stop();
    }
}

static int bench_main(int argc, char **argv, const char *program, const struct bench_cases *cases)
{
    const struct {
        const char *name;
        void (*run)(void);
        int loadable;
    } order[] = {
        { "uncontended", cases->uncontended, BENCH_QUIET_ONLY },
        { "lockperf", cases->lockperf, BENCH_LOADABLE },
        { "nsv", cases->nsv, BENCH_QUIET_ONLY },
        { "cond2010", cases->cond2010, BENCH_LOADABLE },
        { "queue", cases->queue, BENCH_LOADABLE },
        { "thread", cases->thread, BENCH_QUIET_ONLY },
        { "bufread", cases->bufread, BENCH_QUIET_ONLY },
        { "handoff", cases->handoff, BENCH_LOADABLE },
        { "sleep", cases->sleep, BENCH_QUIET_ONLY },
        { "sweep", cases->sweep, BENCH_LOADABLE },
        { "xproc", cases->xproc, BENCH_QUIET_ONLY },
        { "yieldloop", cases->yieldloop, BENCH_QUIET_ONLY },
    };
    size_t i;

    if (argc > 1 && strcmp(argv[1], BENCH_CHILD_FLAG) == 0)
        return cases->xproc_child(argc, argv);
    bench_init(argc, argv, program);
    for (i = 0; i < sizeof order / sizeof order[0]; i++)
        if (bench_case_enabled(order[i].name))
            bench_run_case(order[i].run, order[i].loadable);
    return bench_finish();
}

#endif
