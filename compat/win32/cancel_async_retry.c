/*
 * cancel_async_retry.c - the retrier: asynchronous requests that could not
 * act at once are looked at again until they can, never dropped.
 *
 * pthread_cancel must return whether or not the target can be stopped where it
 * stands. A target found where acting is unsafe (cancel_async.c: inside a DLL
 * or our own code, with no exactly known return into the program) is handed
 * here after a few looks. One thread of ours, the retrier, keeps a queue of
 * such targets and looks at each again, with pauses that double from
 * RETRY_PAUSE_FIRST_MS to RETRY_PAUSE_MOST_MS (starting over when a new one
 * arrives), until its request is arranged, or the target is no longer
 * asynchronous and enabled (its own setcanceltype, setcancelstate and
 * cancellation points then see the pending request), or it has ended. On a
 * loaded machine a target may not run for a long time between two looks; no
 * number of looks is a reason to give up.
 *
 * The queue holds, for each target, its record, the life the request was made
 * to and a duplicate of its thread handle: the program may join the thread
 * (which closes the record's handle and ends the life) while it is queued.
 * slim_async_look stops it through that handle and then checks the life.
 *
 * The retrier never holds the queue's lock while a target is stopped (a target
 * calling pthread_cancel may hold that lock), and allocates and frees only
 * with no target stopped. It starts when the queue gets its first entry and
 * ends when the queue is empty. While it runs it holds a reference to the
 * module our code lives in, so that a DLL linking us is not unloaded under it:
 * it drops that reference as it ends (FreeLibraryAndExitThread).
 */
#include "cancel_async.h"

#define RETRY_PAUSE_FIRST_MS 1
#define RETRY_PAUSE_MOST_MS 64
/* The retrier's stack: it calls nothing deep. */
#define RETRIER_STACK_BYTES (64 * 1024)

struct retry_entry {
    struct retry_entry *next;
    struct slim_thread *target;
    pthread_t life;  /* the life the request was made to */
    HANDLE handle;   /* our own duplicate of the target's thread handle */
};

static SRWLOCK queue_lock = SRWLOCK_INIT;
static CONDITION_VARIABLE queue_grew = CONDITION_VARIABLE_INIT;
static struct retry_entry *queue;      /* under queue_lock */
static int retrier_running;            /* under queue_lock */
static int newcomers;                  /* under queue_lock: entries since the last round */

static void drop_entry(struct retry_entry *entry)
{
    CloseHandle(entry->handle);
    free(entry);
}

/* One look at each entry: the list of those to look at again. */
static struct retry_entry *look_at_each(struct retry_entry *entries)
{
    struct retry_entry *again = NULL, *entry, *next;

    for (entry = entries; entry != NULL; entry = next) {
        next = entry->next;
        if (slim_async_look(entry->target, entry->handle, entry->life) == SLIM_ASYNC_LOOK_AGAIN) {
            entry->next = again;
            again = entry;
        } else {
            drop_entry(entry);
        }
    }
    return again;
}

static DWORD WINAPI retrier(void *module)
{
    DWORD pause = RETRY_PAUSE_FIRST_MS;

    AcquireSRWLockExclusive(&queue_lock);
    for (;;) {
        struct retry_entry *batch = queue, *last;

        queue = NULL;
        newcomers = 0;
        ReleaseSRWLockExclusive(&queue_lock);
        batch = look_at_each(batch);
        AcquireSRWLockExclusive(&queue_lock);
        if (batch != NULL) {
            for (last = batch; last->next != NULL; last = last->next)
                continue;
            last->next = queue;
            queue = batch;
        }
        if (queue == NULL)
            break;
        if (newcomers == 0)
            SleepConditionVariableSRW(&queue_grew, &queue_lock, pause, 0);
        if (newcomers != 0)
            pause = RETRY_PAUSE_FIRST_MS;
        else if (pause < RETRY_PAUSE_MOST_MS)
            pause *= 2;
    }
    retrier_running = 0;
    ReleaseSRWLockExclusive(&queue_lock);
    FreeLibraryAndExitThread((HMODULE)module, 0);
    return 0;
}

/* Under queue_lock: nonzero once the retrier runs, holding its reference to
 * our module. */
static int start_retrier(void)
{
    HMODULE module;
    HANDLE thread;

    if (retrier_running)
        return 1;
    if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS,
                            (LPCWSTR)(uintptr_t)retrier, &module))
        return 0;
    thread = CreateThread(NULL, RETRIER_STACK_BYTES, retrier, module,
                          STACK_SIZE_PARAM_IS_A_RESERVATION, NULL);
    if (thread == NULL) {
        FreeLibrary(module);
        return 0;
    }
    CloseHandle(thread);
    retrier_running = 1;
    return 1;
}

int slim_async_retry_later(struct slim_thread *target)
{
    struct retry_entry *entry = malloc(sizeof *entry);
    int taken;

    if (entry == NULL)
        return 0;
    entry->target = target;
    entry->life = target->pthread_id;
    if (!DuplicateHandle(GetCurrentProcess(), target->handle, GetCurrentProcess(),
                         &entry->handle, 0, FALSE, DUPLICATE_SAME_ACCESS)) {
        free(entry);
        return 0;
    }
    AcquireSRWLockExclusive(&queue_lock);
    taken = start_retrier();
    if (taken) {
        entry->next = queue;
        queue = entry;
        newcomers++;
        WakeConditionVariable(&queue_grew);
    }
    ReleaseSRWLockExclusive(&queue_lock);
    if (!taken)
        drop_entry(entry);
    return taken;
}

#include "code_end.h"
