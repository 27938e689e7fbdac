/*
 * check.c - the checked build: each thread's held locks and the hooks of the
 * lock calls (check.h), which report lock-order cycles (check_graph.c) and
 * misuse (check_report.c writes).
 *
 * A thread's state is a slot of a fixed table (SLIM_CHECK_THREADS_MAX), found
 * through a TLS slot of the checker's own and given back on the thread's exit
 * path (thread.c calls slim_check_thread_exits; a thread the library did not
 * create is adopted on its first checked call so that it has that path). It
 * holds the locks the thread holds, in the order taken, with where each was
 * taken: an acquisition while others are held gives the graph one order per
 * held lock. Nothing here takes a lock the program could hold: the graph and
 * the report writer have SRWLOCKs of their own, and nothing allocates.
 */
#include "check_impl.h"
#include "thread_record.h"

#if defined(SLIMPTHREADS_CHECKED)

static DWORD thread_slot = TLS_OUT_OF_INDEXES;
static INIT_ONCE slot_once = INIT_ONCE_STATIC_INIT;
static struct slim_check_thread threads[SLIM_CHECK_THREADS_MAX];
static volatile long threads_full_said, held_full_said;

/* A state's in_use: CLAIMED while the thread that won it fills it in, then
 * IN_USE, stored with release, so that another thread's unlock that finds a
 * state IN_USE (post_release) reads the id of its owner, not of the one before. */
enum { STATE_FREE, STATE_IN_USE, STATE_CLAIMED };

static BOOL CALLBACK allocate_slot(PINIT_ONCE once, void *parameter, void **context)
{
    (void)once;
    (void)parameter;
    (void)context;
    thread_slot = TlsAlloc();
    return TRUE;
}

/* The TLS slot's value, read from the TEB as thread_record.h's slim_self_if_known
 * does: TlsGetValue would clear the caller's last error. */
static void *slot_value(void)
{
    if (thread_slot < TLS_MINIMUM_AVAILABLE)
        return slim_current_teb()->TlsSlots[thread_slot];
    return TlsGetValue(thread_slot);
}

static struct slim_check_thread *claim_state(void)
{
    for (unsigned i = 0; i < SLIM_CHECK_THREADS_MAX; i++) {
        struct slim_check_thread *thread = &threads[i];

        if (slim_load_relaxed(&thread->in_use) == STATE_FREE &&
            slim_cas(&thread->in_use, STATE_FREE, STATE_CLAIMED)) {
            thread->id = GetCurrentThreadId();
            thread->site = NULL;
            thread->held_count = 0;
            thread->untracked = 0;
            thread->released_pending = 0;
            for (unsigned j = 0; j < SLIM_CHECK_RELEASED_MAX; j++)
                thread->released[j] = NULL;
            slim_store_release(&thread->in_use, STATE_IN_USE);
            return thread;
        }
    }
    if (slim_cas(&threads_full_said, 0, 1))
        slim_check_notice("thread table full (1024 threads): further threads are not checked");
    return NULL;
}

/* A thread's first checked call: a record of the library's (for the exit
 * path), a state of the checker's. */
static struct slim_check_thread *first_call(void)
{
    DWORD last_error = GetLastError();
    struct slim_check_thread *thread;

    InitOnceExecuteOnce(&slot_once, allocate_slot, NULL, NULL);
    slim_check_settings();
    if (thread_slot == TLS_OUT_OF_INDEXES)
        return NULL;
    thread = slot_value();
    if (thread == NULL) {
        slim_self();
        thread = claim_state();
        if (thread != NULL)
            TlsSetValue(thread_slot, thread);
    }
    SetLastError(last_error);
    return thread;
}

struct slim_check_thread *slim_check_current(void)
{
    struct slim_check_thread *thread = NULL;

    if (__builtin_expect(thread_slot != TLS_OUT_OF_INDEXES, 1))
        thread = slot_value();
    return __builtin_expect(thread != NULL, 1) ? thread : first_call();
}

static void apply_releases(struct slim_check_thread *thread);

/* A call first learns what other threads released for it. Every call the
 * hooks see is a caller's: the library never calls its own public names
 * (check.h), so no call is nested in another and nothing counts them. */
struct slim_check_thread *slim_check_enter(void *site)
{
    struct slim_check_thread *thread = slim_check_current();

    if (thread == NULL)
        return NULL;
    if (__builtin_expect(slim_load_relaxed(&thread->released_pending) != 0, 0))
        apply_releases(thread);
    thread->site = site;
    return thread;
}

/* ---- Held locks ---- */

struct slim_check_held *slim_check_held_find(struct slim_check_thread *thread, const void *lock)
{
    for (unsigned i = thread->held_count; i-- > 0;)
        if (thread->held[i].lock == lock)
            return &thread->held[i];
    return NULL;
}

void slim_check_held_push(struct slim_check_thread *thread, const void *lock, int kind)
{
    struct slim_check_held *held = slim_check_held_find(thread, lock);

    if (held != NULL) {
        held->count++;
        return;
    }
    if (thread->held_count == SLIM_CHECK_HELD_MAX) {
        thread->untracked++;
        if (slim_cas(&held_full_said, 0, 1))
            slim_check_notice("a thread holds more than 32 locks: those past 32 are not ordered");
        return;
    }
    held = &thread->held[thread->held_count++];
    held->lock = lock;
    held->site = thread->site;
    held->count = 1;
    held->kind = kind;
}

void slim_check_held_drop(struct slim_check_thread *thread, struct slim_check_held *held)
{
    struct slim_check_held *end = &thread->held[--thread->held_count];

    for (; held < end; held++)
        held[0] = held[1];
}

/* ---- Releases by other threads (a DEFAULT mutex's unlock by a non-owner) ---- */

/* Our unlock of a locked DEFAULT mutex by another thread leaves its section
 * for the owner (mutex.c; one level of a relocked one), as glibc's does: the
 * owner's state must follow, or it would report a false exit holding locks,
 * record false orders and call its next lock of it a relock. The unlocker
 * posts the lock to the owner's state before the release, so the owner
 * learns it at its next call, before it could take the lock again. Several
 * threads may post to one owner: each claims an empty entry with a CAS. */
static void post_release(const void *lock, unsigned long owner_id)
{
    static volatile long released_full_said;

    for (unsigned i = 0; i < SLIM_CHECK_THREADS_MAX; i++) {
        struct slim_check_thread *owner = &threads[i];

        if (slim_load_acquire(&owner->in_use) != STATE_IN_USE || owner->id != owner_id)
            continue;
        for (unsigned j = 0; j < SLIM_CHECK_RELEASED_MAX; j++) {
            void *empty = NULL;

            if (slim_pointer_cas_release_seen((void *volatile *)&owner->released[j], &empty,
                                              (void *)lock)) {
                slim_store_release(&owner->released_pending, 1);
                return;
            }
        }
        if (slim_cas(&released_full_said, 0, 1))
            slim_check_notice("a thread has more than 8 of its locks released by other "
                              "threads at once: it keeps holding the others in the checker");
        return;
    }
}

static void apply_releases(struct slim_check_thread *thread)
{
    slim_swap(&thread->released_pending, 0);
    for (unsigned i = 0; i < SLIM_CHECK_RELEASED_MAX; i++) {
        const void *lock = slim_pointer_swap_acquire((void *volatile *)&thread->released[i], NULL);
        struct slim_check_held *held = lock != NULL ? slim_check_held_find(thread, lock) : NULL;

        if (held != NULL && --held->count == 0)
            slim_check_held_drop(thread, held);
    }
}

/* ---- Reports ---- */

static void text_step(struct slim_check_text *out, const struct slim_check_step *step)
{
    slim_check_text_add(out, "    ");
    slim_check_text_lock(out, step->from, step->from_kind, step->from_init);
    slim_check_text_add(out, "\n      then ");
    slim_check_text_lock(out, step->to, step->to_kind, step->to_init);
    slim_check_text_add(out, "\n      in thread ");
    slim_check_text_decimal(out, step->thread_id);
    slim_check_text_add(out, ": the first taken at ");
    slim_check_text_site(out, step->held_site);
    slim_check_text_add(out, "\n      the second at ");
    slim_check_text_site(out, step->site);
    slim_check_text_add(out, "\n");
}

void slim_check_report_cycle(const struct slim_check_thread *thread,
                             const struct slim_check_cycle *cycle)
{
    struct slim_check_text out;

    slim_check_text_begin(&out, "lock order inversion (a possible deadlock)");
    slim_check_text_thread(&out, thread->id, thread->site);
    slim_check_text_add(&out, "  this order closes a cycle:\n");
    text_step(&out, &cycle->closing);
    slim_check_text_add(&out, "  the opposite order was seen before:\n");
    for (unsigned i = 0; i < cycle->steps; i++)
        text_step(&out, &cycle->step[i]);
    if (cycle->truncated)
        slim_check_text_add(&out, "    (more orders of the cycle not shown)\n");
    slim_check_report(&out);
}

void slim_check_report_misuse(const struct slim_check_thread *thread, const char *title,
                              const void *object, int kind, const void *other, int other_kind)
{
    struct slim_check_text out;

    slim_check_text_begin(&out, title);
    slim_check_text_thread(&out, thread->id, thread->site);
    slim_check_text_add(&out, "  ");
    slim_check_text_lock(&out, object, kind, slim_check_graph_init_site(object));
    slim_check_text_add(&out, "\n");
    if (other != NULL) {
        slim_check_text_add(&out, "  ");
        slim_check_text_lock(&out, other, other_kind, slim_check_graph_init_site(other));
        slim_check_text_add(&out, "\n");
    }
    slim_check_report(&out);
}

static int unusable(int kind)
{
    return (kind & SLIM_CHECK_UNUSABLE) != 0;
}

/* A call of a checked thread on a usable object: its checks run. */
static int checks(const struct slim_check_call *call)
{
    return call->thread != NULL && call->object != NULL && !unusable(call->kind);
}

/* ---- The hooks ---- */

/* slim_check_begin, inlined into the lock and unlock openings: every lock call
 * goes through one of them. */
static inline void open_call(struct slim_check_call *call, void *site, const void *object,
                             int kind)
{
    call->thread = slim_check_enter(site);
    call->object = object;
    call->kind = kind;
    if (call->thread != NULL && object != NULL && unusable(kind))
        slim_check_report_misuse(call->thread, "use of a destroyed or never initialized object",
                                 object, kind, NULL, 0);
}

void slim_check_begin(struct slim_check_call *call, void *site, const void *object, int kind)
{
    open_call(call, site, object, kind);
}

/* The owner takes a lock again: a NORMAL mutex deadlocks for certain (POSIX
 * says it blocks), a DEFAULT one is undefined (here it recurses; glibc's
 * deadlocks). Recursive relocks and second reads order nothing; an
 * ERRORCHECK relock and a write over the caller's own hold are EDEADLK. */
static void relocked(struct slim_check_thread *thread, const void *lock, int kind, int how)
{
    if (how != SLIM_CHECK_BLOCKING)
        return;
    if (kind == PTHREAD_MUTEX_NORMAL)
        slim_check_report_misuse(thread, "relock of a NORMAL mutex by its owner: it deadlocks",
                                 lock, kind, NULL, 0);
    else if (kind == PTHREAD_MUTEX_DEFAULT)
        slim_check_report_misuse(thread,
                                 "relock of a DEFAULT mutex by its owner (undefined in POSIX; it "
                                 "deadlocks on other systems)",
                                 lock, kind, NULL, 0);
}

void slim_check_lock_begin(struct slim_check_call *call, void *site, const void *lock, int kind,
                           int how)
{
    struct slim_check_thread *thread;
    struct slim_check_cycle cycle;

    open_call(call, site, lock, kind);
    if (!checks(call))
        return;
    thread = call->thread;
    if (slim_check_held_find(thread, lock) != NULL)
        relocked(thread, lock, kind, how);
    else if (how == SLIM_CHECK_BLOCKING && thread->held_count > 0 &&
             slim_check_graph_order(thread, lock, kind, thread->site, &cycle))
        slim_check_report_cycle(thread, &cycle);
}

int slim_check_locked(struct slim_check_call *call, int error)
{
    if (checks(call) && (error == 0 || error == EOWNERDEAD))
        slim_check_held_push(call->thread, call->object, call->kind);
    return error;
}

/* An unlock of a lock the caller does not hold: reported; for a DEFAULT mutex
 * another thread holds, the release is that thread's. */
static void unlock_not_held(struct slim_check_thread *thread, const void *lock, int kind)
{
    unsigned long owner_id = kind == PTHREAD_MUTEX_DEFAULT
                                 ? slim_mutex_check_released_owner((const pthread_mutex_t *)lock)
                                 : 0;
    struct slim_check_text out;

    if (owner_id == 0 || owner_id == thread->id) {
        slim_check_report_misuse(thread, "unlock of a lock this thread does not hold", lock, kind,
                                 NULL, 0);
        return;
    }
    post_release(lock, owner_id);
    slim_check_text_begin(&out, "unlock of a lock this thread does not hold");
    slim_check_text_thread(&out, thread->id, thread->site);
    slim_check_text_add(&out, "  ");
    slim_check_text_lock(&out, lock, kind, slim_check_graph_init_site(lock));
    slim_check_text_add(&out, "\n  held by thread ");
    slim_check_text_decimal(&out, owner_id);
    slim_check_text_add(&out, ": this unlock releases it for that thread (a DEFAULT mutex)\n");
    slim_check_report(&out);
}

void slim_check_unlock_begin(struct slim_check_call *call, void *site, const void *lock, int kind)
{
    open_call(call, site, lock, kind);
    if (checks(call) && slim_check_held_find(call->thread, lock) == NULL &&
        call->thread->untracked == 0)
        unlock_not_held(call->thread, lock, kind);
}

int slim_check_unlocked(struct slim_check_call *call, int error)
{
    struct slim_check_thread *thread = call->thread;
    struct slim_check_held *held;

    if (!checks(call))
        return error;
    held = slim_check_held_find(thread, call->object);
    if (held != NULL) {
        if (--held->count == 0)
            slim_check_held_drop(thread, held);
    } else if (thread->untracked > 0) {
        thread->untracked--; /* one of those taken past the table's end */
    }
    return error;
}

int slim_check_initialized(struct slim_check_call *call, int error)
{
    if (checks(call) && error == 0)
        slim_check_graph_init(call->object, call->kind, call->thread->site);
    return error;
}

/* A lock destroyed is held by nobody: the caller's own entry goes too, and
 * so do its orders. */
static void forget(struct slim_check_thread *thread, const void *lock)
{
    struct slim_check_held *held = slim_check_held_find(thread, lock);

    if (held != NULL)
        slim_check_held_drop(thread, held);
    slim_check_graph_forget(lock);
}

int slim_check_destroyed(struct slim_check_call *call, int error)
{
    if (checks(call) && error == EBUSY)
        slim_check_report_misuse(call->thread, "destroy of a lock that is held or waited for",
                                 call->object, call->kind, NULL, 0);
    else if (checks(call) && error == 0)
        forget(call->thread, call->object);
    return error;
}

int slim_check_waited_destroyed(struct slim_check_call *call, int error)
{
    if (checks(call) && error == EBUSY)
        slim_check_report_misuse(call->thread,
                                 call->kind == SLIM_CHECK_COND
                                     ? "destroy of a cond that threads wait on"
                                     : "destroy of a barrier that threads are waiting at",
                                 call->object, call->kind, NULL, 0);
    return error;
}

/* The exit path, on the exiting thread: what it still holds stays locked for
 * good (a robust mutex's next owner is told EOWNERDEAD). Not at the process's
 * exit, where every thread ends wherever it stands. */
void slim_check_thread_exits(void)
{
    struct slim_check_thread *thread;
    struct slim_check_text out;

    if (thread_slot == TLS_OUT_OF_INDEXES || (thread = slot_value()) == NULL)
        return;
    apply_releases(thread);
    if (thread->held_count > 0 && !slim_check_process_ending()) {
        slim_check_text_begin(&out, "thread exits holding locks");
        slim_check_text_thread(&out, thread->id, NULL);
        for (unsigned i = 0; i < thread->held_count; i++) {
            slim_check_text_add(&out, "  ");
            slim_check_text_lock(&out, thread->held[i].lock, thread->held[i].kind,
                                 slim_check_graph_init_site(thread->held[i].lock));
            slim_check_text_add(&out, ", taken at ");
            slim_check_text_site(&out, thread->held[i].site);
            slim_check_text_add(&out, "\n");
        }
        slim_check_report(&out);
    }
    TlsSetValue(thread_slot, NULL);
    slim_store_release(&thread->in_use, STATE_FREE);
}

#endif /* SLIMPTHREADS_CHECKED */

#include "code_end.h"
