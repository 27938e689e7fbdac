/*
 * harness.h - what the three benchmark programs share.
 *
 * bench_posix.c (built once against slimpthreads and once against winpthreads)
 * and bench_raw.c (the Win32 floor) run the same cases through the same
 * drivers (cases.h). Everything here that is not a thread primitive under test
 * - the clock, CPU time, sleeping, yielding, the output - comes from
 * harness.c, which talks to Windows directly, so that all three programs time
 * themselves identically and no library under test measures itself.
 *
 * Output: one line per measurement, tab separated:
 *     case  variant  metric  value  unit  checksum
 * The checksum is a count that proves the work was done; when it is not what
 * the case expected, it is printed as BAD:<got>/<expected> and the program
 * exits with status 1. Lines starting with '#' are comments (#impl says what a
 * variant measures in this program). The last line is
 *     done  <program>  lines  <n>  count  ok
 * so that a driver can tell a complete run from a crashed one.
 */
#ifndef BENCH_HARNESS_H
#define BENCH_HARNESS_H

/* Every lock a case measures sits on a cache line of its own, so that where
 * the compiler happens to put it on the stack (next to another lock, or across
 * two lines) is not part of what a contended case measures. The same for every
 * implementation. */
#define BENCH_OWN_CACHE_LINE __attribute__((__aligned__(64)))

#include <stdatomic.h>
#include <stdint.h>

#define BENCH_INLINE static inline __attribute__((always_inline))

/* ---- Sizes of a run: full or --quick ---- */

struct bench_params {
    long lockperf_pairs;      /* a. lock/unlock pairs per thread */
    unsigned lockperf_cap_ms; /* a. a row's subruns stop early after this in all (#capped) */
    long nsv_background_ops;  /* b. operations of each background thread */
    long nsv_foreground_ops;  /* b. operations of the foreground thread */
    unsigned nsv_cap_ms;      /* b. each subrun of a variant stops early after this (#capped) */
    long nsv_busy_foreground_ops; /* b. busy variant: operations of the foreground */
    unsigned nsv_busy_cap_ms;     /* b. busy variant: its subruns stop after this in all (#capped) */
    unsigned cond2010_ms;     /* c. duration of each setting */
    unsigned uncontended_ms;  /* d. time spent on each primitive */
    unsigned queue_ms;        /* e. producer time per variant */
    unsigned thread_ms;       /* f. create+join time */
    long bufread_bytes;       /* g. size of the file read byte by byte */
    unsigned handoff_ms;      /* h. ping-pong time per variant */
    int subruns;              /* a, b, e, h: fresh-thread repetitions inside a run (median) */
    unsigned sweep_ms;        /* i. duration of each point of the contention sweep */
    unsigned xproc_ms;        /* k. duration of each cross-process or two-thread row */
    long yieldloop_rounds;    /* l. rounds of each thread in each subrun */
    int load_threads;         /* --load N: busy threads beside the loaded cases (0: none) */
    double sweep_loops_per_us; /* j. the busy loop's rate run.sh measured for every
                                * program of the run (BENCH_SWEEP_RATE), 0: measure */
};

extern struct bench_params bench_params;

/* Parses [--quick] [--only CASE[,CASE...]] [--load N]; prints the #program line. */
void bench_init(int argc, char **argv, const char *program);

/* Whether case_name was selected by --only (all cases by default). */
int bench_case_enabled(const char *case_name);

/* Prints the done line; returns main's exit status (1 if a checksum was bad). */
int bench_finish(void);

/* ---- Measurement ---- */

int64_t bench_now_ns(void);    /* monotonic (QueryPerformanceCounter) */
int64_t bench_cpu_ns(void);    /* user + kernel time of the process, less the load threads' */
/* Busy time of every CPU of the machine (GetSystemTimes: kernel + user - idle).
 * Under Wine a wait on a kernel object (an event, a semaphore, a kernel mutex)
 * is served by wineserver, another process, whose CPU the process's own times
 * miss; on Windows that work is the waiting thread's kernel time. On a machine
 * that runs nothing else, this is what the run costs it, whatever did the work. */
int64_t bench_machine_cpu_ns(void);
void bench_sleep_ms(unsigned ms);
void bench_yield(void);
unsigned bench_cpu_count(void);
/* Keeps the calling thread on processor `cpu` (0-based); -1 lets it run anywhere. */
void bench_pin_to_cpu(int cpu);

/* One result line. ok says whether checksum is what the case expected. */
void bench_report(const char *case_name, const char *variant, const char *metric,
                  double value, const char *unit, long long checksum, long long expected);

/* A comment line saying what variant is made of in this program. */
void bench_impl(const char *case_name, const char *variant, const char *text);

/* A comment line: this program cannot run variant (why says what refused it),
 * so its column reads "unsupported" rather than failing the run. */
void bench_unsupported(const char *case_name, const char *variant, const char *why);

/* For errors that make the rest of the run meaningless: prints and exits 2.
 * Cold and noreturn, so that a primitive's checked wrapper (bench_posix.c)
 * stays small enough to be inlined into the case's loop, as the raw
 * program's unchecked one is: the loops compare the primitives, not calls. */
void bench_fatal(const char *what, int code) __attribute__((noreturn, cold));

/* A path for a temporary data file in the current directory (case g). */
void bench_temp_path(char *buffer, unsigned size, const char *tag);

/* ---- Load: busy threads beside a case (--load N) ---- */

/* With --load N, bench_main runs each case that contends for a lock (a, c, e,
 * h, j) twice: quiet, then between bench_load_start and bench_load_stop, with N
 * threads of normal priority in this process spinning on plain arithmetic, so
 * that the locks are also measured on a machine that has other work. While the
 * load runs, bench_report and bench_unsupported add the suffix -loadN to every
 * variant (the rows of one run, quiet and loaded, then sit side by side), and
 * bench_cpu_ns leaves the load threads' CPU time out: a case's CPU per
 * operation stays what its own threads spent. The load threads are plain
 * Win32 threads, the same in every program: they are not under test. */
#define BENCH_MAX_LOAD_THREADS 64

void bench_load_start(void);
void bench_load_stop(void);
/* Whether the load threads run (a case may measure fewer rows under load). */
int bench_loaded(void);
/* "" when quiet, "-loadN" while the load threads run: for lines a case prints itself. */
const char *bench_variant_suffix(void);

/* ---- Another process (case k): a copy of this program ---- */

/* The first argument that makes a program the other side of a case k row:
 *     PROGRAM --xproc-child ROLE MAPPING PARENT_PID
 * bench_main looks for it before bench_init, which would refuse it. */
#define BENCH_CHILD_FLAG "--xproc-child"
#define BENCH_NAME_SIZE 96

/* A view of fresh memory other processes can map: *name (BENCH_NAME_SIZE
 * bytes) gets the mapping's name, which also prefixes the names of the raw
 * program's kernel objects. Exits (bench_fatal) when it cannot. */
void *bench_shared_create(char *name, unsigned long size);
/* The other side's view, at another address than the creator's (a view is
 * mapped and kept in the way first). NULL when it cannot. */
void *bench_shared_open(const char *name, unsigned long size);
void bench_shared_close(void *view);

struct bench_child;
/* Starts `PROGRAM --xproc-child role name <this pid>` and a watchdog thread
 * that ends this process (status 2) if the child exits with a failure or is
 * still there after timeout_ms: a side blocked on a lock the other process
 * will never release must not hang the run. */
struct bench_child *bench_child_start(const char *role, const char *name, unsigned timeout_ms);
/* Waits for the child's exit (killing it after timeout_ms), ends the
 * watchdog; returns the child's exit status (nonzero: it failed). */
unsigned long bench_child_finish(struct bench_child *child, unsigned timeout_ms);
/* In the child: parses the arguments after BENCH_CHILD_FLAG, maps the memory
 * and starts a watchdog that ends the child (status 3) when the parent exits or
 * after timeout_ms. Returns the view, or NULL (bad arguments, no mapping). */
void *bench_child_attach(int argc, char **argv, const char **role, const char **name,
                         unsigned long size, unsigned timeout_ms);

/* ---- Threads: each program implements these with its own primitive ---- */

typedef void (*bench_thread_fn)(void *argument);
void *bench_spawn(bench_thread_fn fn, void *argument);
void bench_join(void *thread);

/* ---- A start line for worker threads (not a primitive under test) ---- */

struct bench_gate {
    atomic_int arrived;
    atomic_int open;
};

static inline void bench_gate_init(struct bench_gate *gate)
{
    atomic_init(&gate->arrived, 0);
    atomic_init(&gate->open, 0);
}

/* Workers call this; they run on when the main thread opens the gate. */
static inline void bench_gate_arrive(struct bench_gate *gate)
{
    atomic_fetch_add(&gate->arrived, 1);
    while (!atomic_load_explicit(&gate->open, memory_order_acquire))
        bench_yield();
}

/* The main thread: waits until `threads` workers stand at the gate. */
static inline void bench_gate_wait(struct bench_gate *gate, int threads)
{
    while (atomic_load(&gate->arrived) < threads)
        bench_yield();
}

/* The main thread: lets the workers run; returns the start time. What it wrote
 * before is visible to every worker past the gate. */
static inline int64_t bench_gate_release(struct bench_gate *gate)
{
    int64_t start = bench_now_ns();

    atomic_store_explicit(&gate->open, 1, memory_order_release);
    return start;
}

static inline int64_t bench_gate_open(struct bench_gate *gate, int threads)
{
    bench_gate_wait(gate, threads);
    return bench_gate_release(gate);
}

#endif
