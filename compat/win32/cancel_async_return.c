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
 * On x86 the trampoline finds its entry by where the slot lay: right below its
 * stack pointer at entry after a plain ret; an i686 callee that pops its own
 * arguments (stdcall: every Win32 function) returns with "ret $n", n bytes
 * higher, so it takes the highest remembered slot at most
 * CALLEE_POPPED_BYTES_MAX below (between the two lie only the popped
 * arguments). On aarch64 the slot lay in the callee's frame, which its
 * epilogue has freed: the trampoline finds its entry by its stack pointer at
 * entry, which is the program frame's own, remembered with the slot. An
 * exception propagating through the replaced return finds no
 * unwind data for the trampoline; a hardware shadow stack (CET, which
 * MinGW-w64 programs do not enable) would refuse it.
 */
#include "cancel_point.h"
#include "cancel_async.h"

static void return_trampoline(void);

#if defined(__x86_64__) || defined(__aarch64__)
#define CALLEE_POPPED_BYTES_MAX 0
#else
#define CALLEE_POPPED_BYTES_MAX 256
#endif

#if defined(__aarch64__)
/* The replaced return the trampoline came through, given its stack pointer
 * at entry, or NULL. */
static struct slim_patched_return *patched_return_taken(struct slim_thread *self,
                                                        void **stack_at_entry)
{
    struct slim_patched_return *patched;

    for (patched = self->async_returns; patched < self->async_returns + SLIM_PATCHED_RETURNS_MAX;
         patched++)
        if (patched->slot != NULL && patched->stack_at_return == (const char *)stack_at_entry)
            return patched;
    return NULL;
}
#else
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
#endif

/* Called by the trampoline with what names the return it came through (x86:
 * where its slot lies if the callee popped no arguments; aarch64: its stack
 * pointer at entry): acts, or gives back the address that return was going to. */
static __attribute__((used)) void *slim_async_return_check(void **entry)
{
    struct slim_thread *self = slim_self_if_known();
    struct slim_patched_return *taken = patched_return_taken(self, entry);
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
#elif defined(__aarch64__)
/* Entered by a ret, SP as the program's frame has it (16-byte aligned): keeps
 * the return value (x0 and x1; x8, a returned aggregate's address; q0-q3, a
 * floating-point or vector aggregate) and the frame pointer across the check,
 * in a frame record of its own, then branches to where the return was going
 * (through x16, the scratch register a branch between functions may use). */
__attribute__((naked)) static void return_trampoline(void)
{
    __asm__("    stp x29, x30, [sp, #-112]!\n"
            "    mov x29, sp\n"
            "    stp x0, x1, [sp, #16]\n"
            "    str x8, [sp, #32]\n"
            "    stp q0, q1, [sp, #48]\n"
            "    stp q2, q3, [sp, #80]\n"
            "    add x0, sp, #112\n" /* SP at entry */
            "    bl slim_async_return_check\n"
            "    mov x16, x0\n"
            "    ldp q2, q3, [sp, #80]\n"
            "    ldp q0, q1, [sp, #48]\n"
            "    ldr x8, [sp, #32]\n"
            "    ldp x0, x1, [sp, #16]\n"
            "    ldp x29, x30, [sp], #112\n"
            "    br x16\n");
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
    const char *stack_at_return = NULL;
    uintptr_t *slot = slim_async_return_slot(target, stopped, &stack_at_return);
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
            patched->stack_at_return = stack_at_return;
            *slot = (uintptr_t)return_trampoline;
            return 1;
        }
    return 0;
}

#include "code_end.h"
