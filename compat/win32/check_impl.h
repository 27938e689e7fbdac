/*
 * check_impl.h - what check.c, check_graph.c and check_report.c share (the
 * checked build only).
 *
 * Memory is fixed and stated here: nothing on a checking path allocates, so
 * a report can be made while the program's allocator is locked, and nothing
 * grows without bound. When a table is full the checker says so once and
 * goes on checking what it can (README.md, Checked build).
 */
#ifndef SLIMPTHREADS_CHECK_IMPL_H
#define SLIMPTHREADS_CHECK_IMPL_H

#include "internal.h"
#include "check.h"

#if defined(SLIMPTHREADS_CHECKED)

#define SLIM_CHECK_THREADS_MAX 1024  /* threads checked at once */
#define SLIM_CHECK_HELD_MAX 32       /* locks one thread holds, tracked */
#define SLIM_CHECK_LOCKS_MAX 32768   /* locks the order graph knows at once */
#define SLIM_CHECK_ORDERS_MAX 131072 /* distinct orders (held -> taken pairs) */
#define SLIM_CHECK_CYCLE_STEPS_MAX 16 /* orders of a cycle a report lists */
#define SLIM_CHECK_REPORT_BYTES 8192 /* one report's text */
#define SLIM_CHECK_RELEASED_MAX 8    /* releases by other threads a thread has yet to learn */

/* A lock a thread holds: count > 1 for a recursive relock or a second read. */
struct slim_check_held {
    const void *lock;
    void *site; /* where it was taken */
    unsigned count;
    int kind;
};

struct slim_check_thread {
    volatile long in_use;  /* FREE, CLAIMED while being filled in, IN_USE (check.c) */
    unsigned long id;      /* Win32 thread id */
    void *site;            /* the current call's site: its public function's return address */
    unsigned held_count;   /* entries of held[] in use */
    unsigned untracked;    /* acquisitions past SLIM_CHECK_HELD_MAX, not tracked */
    struct slim_check_held held[SLIM_CHECK_HELD_MAX];
    /* DEFAULT mutexes this thread held that other threads' unlocks released
     * (one entry per unlock), written by those threads: the owner applies
     * them at its next call, before it looks at held[]. */
    volatile long released_pending;
    const void *volatile released[SLIM_CHECK_RELEASED_MAX];
};

/* One order of a cycle: `from` was held (taken at held_site) while `to` was
 * taken at `site`, first seen in thread `thread_id`. */
struct slim_check_step {
    const void *from, *to;
    int from_kind, to_kind;
    void *from_init, *to_init; /* where each was initialized, NULL if unknown */
    void *held_site, *site;
    unsigned long thread_id;
};

struct slim_check_cycle {
    struct slim_check_step closing; /* this acquisition: held -> taken */
    unsigned steps;                 /* the opposite path taken -> ... -> held */
    int truncated;
    struct slim_check_step step[SLIM_CHECK_CYCLE_STEPS_MAX];
};

/* ---- check.c: threads and what they hold ---- */

struct slim_check_thread *slim_check_current(void); /* NULL: this thread is not checked */
/* A public call opens on its thread (NULL: the thread is not checked). */
struct slim_check_thread *slim_check_enter(void *site);
struct slim_check_held *slim_check_held_find(struct slim_check_thread *thread, const void *lock);
void slim_check_held_push(struct slim_check_thread *thread, const void *lock, int kind);
void slim_check_held_drop(struct slim_check_thread *thread, struct slim_check_held *held);
void slim_check_report_cycle(const struct slim_check_thread *thread,
                             const struct slim_check_cycle *cycle);
/* A misuse of `object` (and of `other` when not NULL) by the calling thread. */
void slim_check_report_misuse(const struct slim_check_thread *thread, const char *title,
                              const void *object, int kind, const void *other, int other_kind);

/* ---- check_graph.c: the global lock-order graph ---- */

/* Records held -> lock for each held lock not ordered before it yet; fills
 * cycle and returns 1 when one of them closes a cycle (that order is kept
 * out of the graph, and reported once). */
int slim_check_graph_order(const struct slim_check_thread *thread, const void *lock, int kind,
                           void *site, struct slim_check_cycle *cycle);
void slim_check_graph_init(const void *lock, int kind, void *site);
void slim_check_graph_forget(const void *lock);
void *slim_check_graph_init_site(const void *lock);

/* ---- check_report.c: settings, text, output ---- */

struct slim_check_text {
    size_t length;
    char text[SLIM_CHECK_REPORT_BYTES];
};

void slim_check_settings(void); /* reads the environment once */
int slim_check_process_ending(void);
void slim_check_text_begin(struct slim_check_text *out, const char *title);
void slim_check_text_add(struct slim_check_text *out, const char *text);
void slim_check_text_hex(struct slim_check_text *out, uintptr_t value);
void slim_check_text_decimal(struct slim_check_text *out, unsigned long value);
void slim_check_text_site(struct slim_check_text *out, void *site);
void slim_check_text_lock(struct slim_check_text *out, const void *lock, int kind, void *init_site);
void slim_check_text_thread(struct slim_check_text *out, unsigned long id, void *site);
/* Writes the report (one WriteFile), then aborts in abort mode. */
void slim_check_report(struct slim_check_text *out);
/* A one-line notice (a table is full), once per distinct text pointer's caller. */
void slim_check_notice(const char *text);

#endif /* SLIMPTHREADS_CHECKED */
#endif /* SLIMPTHREADS_CHECK_IMPL_H */
