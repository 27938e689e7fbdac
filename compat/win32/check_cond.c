/*
 * check_cond.c - the checked build's cond waits.
 *
 * Which mutex each cond is waited with right now, and by how many threads:
 * a table of SLIM_CHECK_CONDS_MAX entries (linear probing, deleted by
 * backward shift), under an SRWLOCK of its own. A wait names its cond and
 * mutex at its start and leaves at its end; a wait with another mutex while
 * the cond has waiters is reported (POSIX leaves it undefined: the dynamic
 * binding of a cond to a mutex). A wait with a mutex the thread does not hold
 * is reported too. While a thread waits, its mutex is not among its held
 * locks; the relock is an acquisition while it holds the others, checked for
 * order before the wait begins, so an inversion that only a wakeup would
 * deadlock on is reported before any thread sleeps.
 */
#include "check_impl.h"

#if defined(SLIMPTHREADS_CHECKED)

#define SLIM_CHECK_CONDS_MAX 4096 /* conds waited on at once; a power of two */
#define CONDS_USABLE (SLIM_CHECK_CONDS_MAX / 4 * 3)

struct cond_wait {
    const void *cond; /* NULL: free */
    const void *mutex;
    unsigned waiters;
};

static SRWLOCK conds_lock = SRWLOCK_INIT;
static struct cond_wait conds[SLIM_CHECK_CONDS_MAX];
static unsigned conds_used;
static int conds_full_said;

static unsigned home_of(const void *cond)
{
    return (unsigned)(((uintptr_t)cond >> 4) * 2654435761u) & (SLIM_CHECK_CONDS_MAX - 1);
}

static unsigned find(const void *cond)
{
    unsigned i = home_of(cond);

    while (conds[i].cond != NULL && conds[i].cond != cond)
        i = (i + 1) & (SLIM_CHECK_CONDS_MAX - 1);
    return i;
}

/* Backward shift: every entry after the hole that may move into it does. */
static void remove_at(unsigned hole)
{
    unsigned next = hole;

    for (;;) {
        unsigned home;

        next = (next + 1) & (SLIM_CHECK_CONDS_MAX - 1);
        if (conds[next].cond == NULL)
            break;
        home = home_of(conds[next].cond);
        if (((next - home) & (SLIM_CHECK_CONDS_MAX - 1)) >=
            ((next - hole) & (SLIM_CHECK_CONDS_MAX - 1))) {
            conds[hole] = conds[next];
            hole = next;
        }
    }
    conds[hole].cond = NULL;
    conds_used--;
}

/* The mutex the cond's other waiters wait with when it is not `mutex`. */
static const void *wait_starts(const void *cond, const void *mutex)
{
    const void *other = NULL;
    unsigned i;

    AcquireSRWLockExclusive(&conds_lock);
    i = find(cond);
    if (conds[i].cond == cond) {
        if (conds[i].mutex != mutex)
            other = conds[i].mutex;
        conds[i].waiters++;
    } else if (conds_used < CONDS_USABLE) {
        conds[i].cond = cond;
        conds[i].mutex = mutex;
        conds[i].waiters = 1;
        conds_used++;
    } else if (!conds_full_said) {
        conds_full_said = 1;
        slim_check_notice("cond table full (3072 conds waited on): further conds are not checked");
    }
    ReleaseSRWLockExclusive(&conds_lock);
    return other;
}

static void wait_ends(const void *cond)
{
    unsigned i;

    AcquireSRWLockExclusive(&conds_lock);
    i = find(cond);
    if (conds[i].cond == cond && --conds[i].waiters == 0)
        remove_at(i);
    ReleaseSRWLockExclusive(&conds_lock);
}

static void report_two_mutexes(const struct slim_check_thread *thread, const void *cond,
                               const void *mutex, int mutex_kind, const void *other)
{
    struct slim_check_text out;

    slim_check_text_begin(&out, "cond waited on with two mutexes at once");
    slim_check_text_thread(&out, thread->id, thread->site);
    slim_check_text_add(&out, "  cond ");
    slim_check_text_hex(&out, (uintptr_t)cond);
    slim_check_text_add(&out, " is waited on with ");
    slim_check_text_lock(&out, mutex, mutex_kind, slim_check_graph_init_site(mutex));
    slim_check_text_add(&out, "\n  while other threads wait on it with ");
    slim_check_text_lock(&out, other, SLIM_CHECK_KIND_UNKNOWN, slim_check_graph_init_site(other));
    slim_check_text_add(&out, "\n");
    slim_check_report(&out);
}

void slim_check_cond_wait_begin(const void *cond, const void *mutex, int mutex_kind)
{
    struct slim_check_thread *thread = slim_check_current();
    struct slim_check_held *held;
    struct slim_check_cycle cycle;
    const void *other;

    if (thread == NULL)
        return;
    held = slim_check_held_find(thread, mutex);
    if (held == NULL && thread->untracked == 0)
        slim_check_report_misuse(thread, "cond wait with a mutex this thread does not hold", cond,
                                 SLIM_CHECK_COND, mutex, mutex_kind);
    other = wait_starts(cond, mutex);
    if (other != NULL)
        report_two_mutexes(thread, cond, mutex, mutex_kind, other);
    if (held == NULL)
        return;
    slim_check_held_drop(thread, held);
    if (thread->held_count > 0 &&
        slim_check_graph_order(thread, mutex, mutex_kind, thread->site, &cycle))
        slim_check_report_cycle(thread, &cycle);
}

void slim_check_cond_wait_end(const void *cond, const void *mutex, int mutex_kind, int held_again)
{
    struct slim_check_thread *thread = slim_check_current();

    if (thread == NULL)
        return;
    wait_ends(cond);
    if (held_again)
        slim_check_held_push(thread, mutex, mutex_kind);
}

#endif /* SLIMPTHREADS_CHECKED */

#include "code_end.h"
