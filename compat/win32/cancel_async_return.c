/*
 * cancel_async_return.c - the replaced return: a thread stopped outside the
 * program's code acts when the call it is in returns into that code.
 *
 * slim_async_return_slot (cancel_async_unwind.c, cancel_async_frames.c) gives
 * the slot on the stopped thread's stack that holds the return address into
 * the program's code, known exactly, or nothing. That one word is replaced by
 * the address of return_trampoline, and the record remembers the slot and
 * the original address. When the call returns, its locks released, the thread
 * arrives in the trampoline, which keeps the call's return value, checks that
 * the thread is still asynchronous and enabled, and acts, or else goes back to
 * the original address with the return value intact.
 *
 * The trampoline finds its entry by where the slot lay: right below its stack
 * pointer at entry after a plain ret; an i686 callee that pops its own
 * arguments (stdcall: every Win32 function) returns with "ret $n", n bytes
 * higher, so it takes the highest remembered slot at most
 * CALLEE_POPPED_BYTES_MAX below (between the two lie only the popped
 * arguments). An exception propagating through the replaced return finds no
 * unwind data for the trampoline; a hardware shadow stack (CET, which
 * MinGW-w64 programs do not enable) would refuse it.
 */
#include "cancel_point.h"
#include "cancel_async.h"

static void return_trampoline(void);

#if defined(__x86_64__)
#define CALLEE_POPPED_BYTES_MAX 0
#else
#define CALLEE_POPPED_BYTES_MAX 256
#endif

/* The replaced return the trampoline came through, given where its slot lies
 * if the callee popped no arguments, or NULL. */
static struct slim_patched_return *patched_return_taken(struct slim_thread *self,
                                                        void **slot_after_plain_ret)
{
    struct slim_patched_return *patched, *taken = NULL;

    for (patched = self->async_returns; patched < self->async_returns + SLIM_PATCHED_RETURNS_MAX;
         patched++) {
        const char *slot = (const char *)patched->slot;

        if (slot == NULL || slot > (const char *)slot_after_plain_ret ||
            (const char *)slot_after_plain_ret - slot > CALLEE_POPPED_BYTES_MAX)
            continue;
        if (taken == NULL || patched->slot > taken->slot)
            taken = patched;
    }
    return taken;
}

/* Called by the trampoline with where the slot its return came through lies
 * if the callee popped no arguments: acts, or gives back the address that
 * return was going to. */
static __attribute__((used)) void *slim_async_return_check(void **slot_after_plain_ret)
{
    struct slim_thread *self = slim_self_if_known();
    struct slim_patched_return *taken = patched_return_taken(self, slot_after_plain_ret);
    void *back;

    if (taken == NULL)
        abort(); /* a return we never replaced: nowhere to go on */
    back = taken->original;
    taken->slot = NULL;
    if (self->cancel_type == PTHREAD_CANCEL_ASYNCHRONOUS && slim_cancel_requested())
        slim_cancel_act();
    return back;
}

#if defined(__x86_64__)
/* Entered by a ret, so RSP = 0 (mod 16): keeps the return value (RAX, RDX,
 * XMM0) across the check, with the shadow space a call needs, then jumps to
 * where the return was going. */
__attribute__((naked)) static void return_trampoline(void)
{
    __asm__("    subq $80, %rsp\n"
        "    movq %rax, 32(%rsp)\n"
        "    movq %rdx, 40(%rsp)\n"
        "    movdqu %xmm0, 48(%rsp)\n"
        "    cld\n"
        "    leaq 72(%rsp), %rcx\n" /* the slot: RSP at entry, less the return address */
        "    call slim_async_return_check\n"
        "    movq %rax, %r11\n"
        "    movq 32(%rsp), %rax\n"
        "    movq 40(%rsp), %rdx\n"
        "    movdqu 48(%rsp), %xmm0\n"
        "    addq $80, %rsp\n"
        "    jmpq *%r11\n");
}
#else
/* Entered by a ret: keeps the return value (EAX, EDX) across the check, on a
 * stack aligned to 16 bytes at the call, then jumps to where the return was
 * going. */
__attribute__((naked)) static void return_trampoline(void)
{
    __asm__("    pushl %ebp\n"
        "    movl %esp, %ebp\n"
        "    andl $-16, %esp\n"
        "    pushl %eax\n"
        "    pushl %edx\n"
        "    subl $4, %esp\n"
        "    pushl %ebp\n" /* ESP at entry less 4: the slot after a plain ret */
        "    cld\n"
        "    call _slim_async_return_check\n"
        "    movl %eax, %ecx\n"
        "    addl $8, %esp\n"
        "    popl %edx\n"
        "    popl %eax\n"
        "    movl %ebp, %esp\n"
        "    popl %ebp\n"
        "    jmp *%ecx\n");
}
#endif

int slim_async_replace_return(struct slim_thread *target, const CONTEXT *stopped)
{
    uintptr_t *slot = slim_async_return_slot(target, stopped);
    struct slim_patched_return *patched;

    if (slot == NULL)
        return 0;
    if (*slot == (uintptr_t)return_trampoline)
        return 1; /* replaced at an earlier look */
    for (patched = target->async_returns;
         patched < target->async_returns + SLIM_PATCHED_RETURNS_MAX; patched++)
        if (patched->slot == NULL) {
            patched->slot = (void **)slot;
            patched->original = (void *)*slot;
            *slot = (uintptr_t)return_trampoline;
            return 1;
        }
    return 0;
}
