/*
 * thread.c - the per-thread record and the thread-exit hook.
 *
 * Every thread that uses slimpthreads has a record (struct slim_thread), reached
 * from the thread itself through one TLS slot. Threads we create get theirs from
 * pthread_create; any other thread gets one on first need ("adopted").
 *
 * The exit hook is an FLS callback: Windows calls it on the exiting thread for
 * every thread that stored a value in the slot, however the thread ends
 * (returning, _endthreadex, ExitThread) and whoever created it. That runs key
 * destructors for foreign threads too, without a PE TLS callback that linkers
 * may discard.
 */
#include "internal.h"

static DWORD record_slot = TLS_OUT_OF_INDEXES; /* TLS: the calling thread's record */
static DWORD exit_hook_slot = FLS_OUT_OF_INDEXES; /* FLS: the same record, for the hook */

static void WINAPI thread_exit_hook(void *record);

/* The slots exist before main (or before DllMain returns), so the hot path never
 * checks for them. */
__attribute__((constructor)) static void allocate_slots(void)
{
    record_slot = TlsAlloc();
    exit_hook_slot = FlsAlloc(thread_exit_hook);
    if (record_slot == TLS_OUT_OF_INDEXES || exit_hook_slot == FLS_OUT_OF_INDEXES)
        abort();
}

struct slim_thread *slim_self_if_known(void)
{
    return (struct slim_thread *)TlsGetValue(record_slot);
}

/* Binds a record to the calling thread and arms the exit hook for it. */
void slim_thread_attach(struct slim_thread *self)
{
    TlsSetValue(record_slot, self);
    FlsSetValue(exit_hook_slot, self);
}

static struct slim_thread *adopt_current_thread(void)
{
    struct slim_thread *self = calloc(1, sizeof *self);

    if (self == NULL)
        abort();
    self->id = GetCurrentThreadId();
    self->adopted = 1;
    self->join_state = SLIM_THREAD_DETACHED;
    self->cancel_state = PTHREAD_CANCEL_ENABLE;
    self->cancel_type = PTHREAD_CANCEL_DEFERRED;
    /* A real handle, so that other threads can name this one (priorities, kill). */
    DuplicateHandle(GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(), &self->handle,
                    0, FALSE, DUPLICATE_SAME_ACCESS);
    slim_thread_attach(self);
    return self;
}

struct slim_thread *slim_self(void)
{
    struct slim_thread *self = slim_self_if_known();

    return self != NULL ? self : adopt_current_thread();
}

static void WINAPI thread_exit_hook(void *record)
{
    struct slim_thread *self = record;

    if (self == NULL)
        return;
    slim_keys_run_destructors(self);
    TlsSetValue(record_slot, NULL);
    slim_thread_finished(self);
}

void slim_thread_finished(struct slim_thread *self)
{
    /* Placeholder until pthread_create/join land: adopted records die here. */
    if (self->adopted) {
        if (self->handle != NULL)
            CloseHandle(self->handle);
        free(self->key_values);
        free(self->key_sequences);
        free(self);
    }
}
