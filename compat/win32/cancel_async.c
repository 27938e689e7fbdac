/*
 * cancel_async.c - asynchronous cancellation: stopping a thread at an arbitrary
 * instruction and sending it down the exit path.
 *
 * pthread_cancel of a thread whose cancellation is enabled and asynchronous
 * calls slim_cancel_async, which looks at the thread: SuspendThread, then
 * GetThreadContext (which returns only once the thread has really stopped),
 * then a judgement of where it stopped, then perhaps SetThreadContext, then
 * ResumeThread. While the target is stopped the looker takes no lock the
 * target could hold: no heap, no loader, nothing but system calls that keep
 * their locks in the kernel (VirtualQuery, Get/SetThreadContext) and reads of
 * what was computed before the first stop.
 *
 * Where acting is safe (the instruction pointer at the stop):
 *  - in the program's own code: the main executable's image, or the module our
 *    own code lives in (a user DLL we are linked into, or our DLL), minus our
 *    own code, found in the table or section internal.h sets up. Our functions keep our
 *    locks and queues consistent only when they run to their end; the C
 *    runtime, ntdll, kernel32 and every other DLL may hold the heap, loader or
 *    CRT locks; code outside any image (generated code) is unknown. There the
 *    thread is redirected at once.
 *  - anywhere else, at the return into the program's code of the call it is
 *    in, once that call has returned with its locks released: the slot on the
 *    stack that holds that return address, when it is known exactly
 *    (cancel_async_unwind.c: x86_64 and aarch64, from the images' unwind tables;
 *    cancel_async_frames.c: i686, from the frame-pointer chain and the code of
 *    the function that frame belongs to), gets the address of a trampoline
 *    that acts (cancel_async_return.c). Nothing else on the target's stack is
 *    ever written: a word that merely looks like a return address may be a
 *    live datum of the program. A call that never returns never lets the
 *    request act, except our own cancellation points, which pthread_cancel
 *    wakes as for a deferred request.
 * A thread not arranged for is let run and looked at again: pthread_cancel
 * looks a few times, then hands the request to the retrier
 * (cancel_async_retry.c), which goes on looking, with pauses that grow to a
 * bound, until the request is arranged, or the thread is no longer
 * asynchronous and enabled (it raced its own setcanceltype or setcancelstate,
 * or it is exiting: pthread_exit and the thread's return disable
 * cancellation), or it has ended. The request is never dropped: a thread no
 * longer asynchronous or enabled sees it pending when it turns back
 * (setcanceltype and setcancelstate act on it) and at its next cancellation
 * point.
 *
 * The redirect: the instruction pointer goes to exit_after_redirect, which
 * calls slim_cancel_act (cleanup handlers, key destructors, PTHREAD_CANCELED
 * for joiners). The stack pointer goes below the interrupted frame, aligned as
 * a call would leave it: x86_64 RSP = 8 (mod 16) at entry, with the caller's
 * 32-byte shadow space above it; i686 ESP = 12 (mod 16), realigned by the
 * function anyway; aarch64 SP = 0 (mod 16), the return address in Lr. The
 * direction flag (x86) is cleared, as the ABI requires at a call. The redirect writes nothing below the target's stack pointer (a guard
 * page touched by another thread would fault there): the slot of the return
 * address is left as it is, since exit_after_redirect never returns. A
 * replaced return address is one word above it, in a live frame.
 *
 * What remains unsafe (README.md): POSIX allows only pthread_cancel,
 * pthread_setcancelstate and pthread_setcanceltype in this mode. Locks of the
 * program's own code (its own mutexes, held when the thread is stopped) stay
 * held; code of static libraries linked into the executable (libstdc++,
 * libgcc's unwinder, libmingwex) counts as the program's.
 */
#include "wait.h"
#include "cancel_point.h"
#include "cancel_async.h"

#include <string.h>

/* pthread_cancel's own looks before the retrier takes over: a thread found in
 * an epilogue or a short call is elsewhere a yield later. */
#define QUICK_LOOKS 3

/* Without the retrier (no memory, no thread): looks at most this often, the
 * pauses growing from a yield to IN_PLACE_PAUSE_MAX_MS, about 0.3 s in all. */
#define IN_PLACE_LOOKS_MAX 40
#define IN_PLACE_PAUSE_MAX_MS 10

/* Below the interrupted frame, before alignment. */
#define REDIRECT_STACK_MARGIN 128
#define STACK_ALIGNMENT 16
#if defined(__x86_64__)
#define CALL_SHADOW_SPACE 32 /* the caller's home area for four register arguments */
#define RETURN_ADDRESS_SIZE 8
#elif defined(__i386__)
#define CALL_SHADOW_SPACE 0
#define RETURN_ADDRESS_SIZE 4
#else /* aarch64: the return address is in a register (Lr), the stack takes none */
#define CALL_SHADOW_SPACE 0
#define RETURN_ADDRESS_SIZE 0
#endif
/* What a look reads: the integer registers too, since unwinding restores the
 * saved ones. A redirect writes back only the control registers: writing the
 * others back unchanged would do no harm in the program's code, where alone
 * the thread is redirected, but nothing needs them. */
#define LOOK_CONTEXT_FLAGS (CONTEXT_CONTROL | CONTEXT_INTEGER)
#define REDIRECT_CONTEXT_FLAGS CONTEXT_CONTROL
#define EFLAGS_DIRECTION 0x400

/* ---- The table of our own code (built by internal.h) ---- */

#if SLIM_CODE_TABLE
__attribute__((section(".rdata$slim_code_a"), aligned(8), used))
static const struct slim_code_range code_table_start = {NULL, NULL};
__attribute__((section(".rdata$slim_code_c"), aligned(8), used))
static const struct slim_code_range code_table_end = {NULL, NULL};
#endif

/* ---- The section of our code (clang: internal.h's pragma) ----
 * One marker byte in a section sorted before ours, one in a section sorted
 * after: the range between them is all of .text$slim_code_b. Written in asm,
 * since a function can be folded with another or moved by the compiler. The
 * end marker's byte is never run: nothing jumps there. */
#if SLIM_CODE_SECTION
/* Each marker is 16 bytes aligned to 16, never executed: GNU ld's i386 script
 * places ___CTOR_LIST__ right after the .text$* sections without aligning it,
 * and a 1-byte marker there left the constructor list misaligned against its
 * entries (the i686 clang build crashed before main). */
__asm__(".section .text$slim_code_a,\"xr\"\n"
        ".balign 16\n"
        "slim_code_section_begin:\n"
        ".zero 16\n"
        ".section .text$slim_code_c,\"xr\"\n"
        ".balign 16\n"
        "slim_code_section_end:\n"
        ".zero 16\n"
        ".text\n");
/* Declared as functions, which lie in code: clang reaches data it does not
 * define through a .refptr pointer of external linkage, for auto-import. */
void code_section_begin(void) __asm__("slim_code_section_begin");
void code_section_end(void) __asm__("slim_code_section_end");
#endif

static int inside_our_code(const char *address)
{
#if SLIM_CODE_TABLE
    const struct slim_code_range *range;

    /* Padding the linker puts between entries reads as empty ones. */
    for (range = &code_table_start + 1; range < &code_table_end; range++)
        if (range->begin != NULL && address >= range->begin && address < range->end)
            return 1;
#elif SLIM_CODE_SECTION
    return address > (const char *)(uintptr_t)code_section_begin &&
           address < (const char *)(uintptr_t)code_section_end;
#else
    (void)address;
#endif
    return 0;
}

/* ---- What is known before any thread is stopped ---- */

/* The executable sections of one image, first byte to end. */
struct code_span {
    const char *begin;
    const char *end;
};

struct known_places {
    struct code_span program_code;  /* the main executable's */
    struct code_span library_code;  /* the image our code lives in */
    const void *executable;         /* the images themselves */
    const void *library;
    int code_table_complete; /* every file's code is in the table */
};

static struct known_places places;
static volatile long places_known;

static const void *module_of(const void *address)
{
    MEMORY_BASIC_INFORMATION region;

    if (VirtualQuery(address, &region, sizeof region) != sizeof region ||
        region.Type != MEM_IMAGE)
        return NULL;
    return region.AllocationBase;
}

/* Functions of different files: each must be found in the table (GCC) or the
 * section (clang), else (-ffunction-sections under GCC, a linker that does not
 * sort .text$ sections) our code cannot be told from the program's. */
static int code_table_complete(void)
{
    const void *samples[] = {
        (const void *)(uintptr_t)pthread_mutex_lock, (const void *)(uintptr_t)pthread_cond_wait,
        (const void *)(uintptr_t)pthread_exit,       (const void *)(uintptr_t)sem_wait,
        (const void *)(uintptr_t)pthread_cancel,     (const void *)(uintptr_t)slim_wait,
        (const void *)(uintptr_t)slim_cancel_async,  (const void *)(uintptr_t)pthread_rwlock_rdlock,
        (const void *)(uintptr_t)slim_async_return_slot,
        (const void *)(uintptr_t)slim_async_retry_later,
    };
    size_t i;

    for (i = 0; i < sizeof samples / sizeof samples[0]; i++)
        if (!inside_our_code(samples[i]))
            return 0;
    return 1;
}

/* From the image's own section headers: code only, never its data, so that a
 * pointer to the program's data is never taken for a return address. */
static struct code_span code_span_of(const void *module)
{
    const char *base = module;
    const IMAGE_DOS_HEADER *dos = module;
    const IMAGE_NT_HEADERS *nt;
    const IMAGE_SECTION_HEADER *section;
    struct code_span span = {NULL, NULL};
    WORD i;

    if (base == NULL || dos->e_magic != IMAGE_DOS_SIGNATURE)
        return span;
    nt = (const IMAGE_NT_HEADERS *)(base + dos->e_lfanew);
    if (nt->Signature != IMAGE_NT_SIGNATURE)
        return span;
    section = IMAGE_FIRST_SECTION(nt);
    for (i = 0; i < nt->FileHeader.NumberOfSections; i++, section++) {
        const char *begin = base + section->VirtualAddress;
        const char *end = begin + section->Misc.VirtualSize;

        if (!(section->Characteristics & IMAGE_SCN_MEM_EXECUTE))
            continue;
        if (span.begin == NULL || begin < span.begin)
            span.begin = begin;
        if (end > span.end)
            span.end = end;
    }
    return span;
}

/* Racing first callers compute the same values: the race is harmless. */
static void know_places(void)
{
    if (slim_load_acquire(&places_known))
        return;
    places.executable = GetModuleHandleW(NULL);
    places.library = module_of((const void *)(uintptr_t)slim_cancel_async);
    places.program_code = code_span_of(places.executable);
    places.library_code = code_span_of(places.library);
    places.code_table_complete = code_table_complete();
    slim_store_release(&places_known, 1);
}

void slim_async_program_images(const void **executable, const void **library)
{
    *executable = places.executable;
    *library = places.library;
}

static int in_span(const struct code_span *span, const char *address)
{
    return address >= span->begin && address < span->end;
}

int slim_async_in_program_code(const char *address)
{
    if (!in_span(&places.program_code, address) && !in_span(&places.library_code, address))
        return 0;
    return places.code_table_complete && !inside_our_code(address);
}

/* ---- The redirect ---- */

/* Where a redirected thread lands, on a fresh call frame below the one it was
 * stopped in. x86 realigns its stack on entry anyway; aarch64's is always
 * 16-byte aligned, as redirect leaves it. */
#if defined(__x86_64__) || defined(__i386__)
__attribute__((force_align_arg_pointer))
#endif
__attribute__((noreturn, noinline, used)) static void exit_after_redirect(void)
{
    slim_cancel_act();
}

#if defined(__x86_64__)
static void redirect(CONTEXT *context)
{
    DWORD64 stack = (context->Rsp - REDIRECT_STACK_MARGIN) & ~(DWORD64)(STACK_ALIGNMENT - 1);

    context->Rsp = stack - CALL_SHADOW_SPACE - RETURN_ADDRESS_SIZE;
    context->Rip = (DWORD64)(uintptr_t)exit_after_redirect;
    context->EFlags &= ~(DWORD)EFLAGS_DIRECTION;
}
#elif defined(__i386__)
static void redirect(CONTEXT *context)
{
    DWORD stack = (context->Esp - REDIRECT_STACK_MARGIN) & ~(DWORD)(STACK_ALIGNMENT - 1);

    context->Esp = stack - CALL_SHADOW_SPACE - RETURN_ADDRESS_SIZE;
    context->Eip = (DWORD)(uintptr_t)exit_after_redirect;
    context->EFlags &= ~(DWORD)EFLAGS_DIRECTION;
}
#else
/* aarch64: Windows keeps only the 16 bytes below SP for code that stores two
 * registers there (its red zone); the margin leaves them, and all of a leaf
 * function's frame, alone. Lr names where the thread was stopped, as if it had
 * called exit_after_redirect from there: only a debugger's backtrace reads it,
 * since that function never returns. The frame pointer is left as it was. */
static void redirect(CONTEXT *context)
{
    DWORD64 stack = (context->Sp - REDIRECT_STACK_MARGIN) & ~(DWORD64)(STACK_ALIGNMENT - 1);

    context->Lr = context->Pc;
    context->Sp = stack - CALL_SHADOW_SPACE - RETURN_ADDRESS_SIZE;
    context->Pc = (DWORD64)(uintptr_t)exit_after_redirect;
}
#endif

/* ---- Looking at a stopped thread ---- */

static const char *instruction_pointer(const CONTEXT *context)
{
#if defined(__x86_64__)
    return (const char *)context->Rip;
#elif defined(__i386__)
    return (const char *)context->Eip;
#else
    return (const char *)context->Pc;
#endif
}

/* The target is stopped: what it stored before is visible, and it stores
 * nothing until it is resumed. */
static enum slim_async_verdict judge(struct slim_thread *target, HANDLE handle, CONTEXT *context)
{
    /* An exiting thread has cancellation disabled (slim_cancel_exiting). */
    if (target->cancel_state != PTHREAD_CANCEL_ENABLE ||
        slim_int_load_seq_cst(&target->cancel_type) != PTHREAD_CANCEL_ASYNCHRONOUS)
        return SLIM_ASYNC_LEFT_PENDING;
    if (slim_async_in_program_code(instruction_pointer(context))) {
        redirect(context);
        context->ContextFlags = REDIRECT_CONTEXT_FLAGS;
        return SetThreadContext(handle, context) ? SLIM_ASYNC_ARRANGED : SLIM_ASYNC_LOOK_AGAIN;
    }
    return slim_async_replace_return(target, context) ? SLIM_ASYNC_ARRANGED
                                                      : SLIM_ASYNC_LOOK_AGAIN;
}

static int thread_ended(HANDLE handle)
{
    return WaitForSingleObject(handle, 0) == WAIT_OBJECT_0;
}

enum slim_async_verdict slim_async_look(struct slim_thread *target, HANDLE handle, pthread_t life)
{
    CONTEXT context;
    enum slim_async_verdict verdict;

    if (SuspendThread(handle) == (DWORD)-1)
        return thread_ended(handle) ? SLIM_ASYNC_LEFT_PENDING : SLIM_ASYNC_LOOK_AGAIN;
    /* Stopped, the thread cannot end its life: if the record still names it,
     * it does until the thread is resumed. */
    if (slim_thread_checked(life) != target) {
        verdict = SLIM_ASYNC_LEFT_PENDING;
    } else {
        memset(&context, 0, sizeof context);
        context.ContextFlags = LOOK_CONTEXT_FLAGS;
        verdict = GetThreadContext(handle, &context) ? judge(target, handle, &context)
                                                      : SLIM_ASYNC_LOOK_AGAIN;
    }
    /* Cannot fail for a thread we stopped; were it to, the thread would stay
     * stopped whatever we did. */
    ResumeThread(handle);
    if (verdict == SLIM_ASYNC_LOOK_AGAIN && thread_ended(handle))
        verdict = SLIM_ASYNC_LEFT_PENDING;
    return verdict;
}

/* Looks at target up to looks times, until one look's verdict is final:
 * SLIM_ASYNC_ARRANGED or SLIM_ASYNC_LEFT_PENDING, or SLIM_ASYNC_LOOK_AGAIN when
 * none was. After each look it pauses, which lets the target run on out of the
 * code it was found in: a yield after each of the first four, then as many
 * milliseconds as looks so far, at most pause_max_ms (0: a yield every time). */
static enum slim_async_verdict look_repeatedly(struct slim_thread *target, pthread_t life,
                                               int looks, int pause_max_ms)
{
    for (int look = 0; look < looks; look++) {
        enum slim_async_verdict verdict = slim_async_look(target, target->handle, life);

        if (verdict != SLIM_ASYNC_LOOK_AGAIN)
            return verdict;
        slim_nap_ms(look < 4 ? 0 : (unsigned)(look < pause_max_ms ? look : pause_max_ms));
    }
    return SLIM_ASYNC_LOOK_AGAIN;
}

int slim_cancel_async(struct slim_thread *target)
{
    pthread_t life = target->pthread_id;
    enum slim_async_verdict verdict;

    if (target->handle == NULL)
        return 0;
    know_places();
    if (!places.code_table_complete)
        return 0; /* our code cannot be told apart: only points act (README.md) */
    verdict = look_repeatedly(target, life, QUICK_LOOKS, 0);
    if (verdict != SLIM_ASYNC_LOOK_AGAIN)
        return verdict == SLIM_ASYNC_ARRANGED;
    if (slim_async_retry_later(target))
        return 0;
    /* Without the retrier: looks for a bounded time, then leaves the request
     * to the target's next cancellation point. */
    return look_repeatedly(target, life, IN_PLACE_LOOKS_MAX, IN_PLACE_PAUSE_MAX_MS) ==
           SLIM_ASYNC_ARRANGED;
}

#include "code_end.h"
