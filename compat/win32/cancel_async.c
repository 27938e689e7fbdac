/*
 * cancel_async.c - asynchronous cancellation: stopping a thread at an arbitrary
 * instruction and sending it down the exit path.
 *
 * pthread_cancel of a thread whose cancellation is enabled and asynchronous
 * calls slim_cancel_async: SuspendThread, then GetThreadContext (which returns
 * only once the thread has really stopped), then a look at where it stopped and
 * at its record, then either a redirect (SetThreadContext) or nothing, then
 * ResumeThread. While the target is stopped the canceller takes no lock the
 * target could hold: no heap, no loader, nothing but system calls that keep
 * their locks in the kernel (VirtualQuery, Get/SetThreadContext) and reads of
 * what was computed before the first stop.
 *
 * Where acting is safe (the instruction pointer at the stop):
 *  - in the program's own code: the main executable's image, or the module our
 *    own code lives in (a user DLL we are linked into, or our DLL), minus our
 *    own code, found in the table internal.h builds. Our functions keep our
 *    locks and queues consistent only when they run to their end; the C
 *    runtime, ntdll, kernel32 and every other DLL may hold the heap, loader or
 *    CRT locks; code outside any image (generated code) is unknown.
 *  - x86_64, stopped anywhere else: the stack is unwound with the images' own
 *    unwind tables (looked up here, with no loader call, and RtlVirtualUnwind,
 *    which only computes) up to the first frame in the program's code, and the
 *    return address into that frame is replaced by return_trampoline. When the
 *    call (ours, the C runtime's, a system call's, Sleep's) returns, with its
 *    locks released, the thread arrives there, checks that it is still
 *    asynchronous and enabled, and acts, or else goes back to the original
 *    address with its return value intact. A call that never returns (a wait
 *    without end) never lets it act, except our own cancellation points,
 *    which pthread_cancel wakes as for a deferred request.
 *  - i686, which has no unwind tables: every word up the stack that is an
 *    address in the program's code right after a call out of the program's
 *    code (to our code, a DLL, an import thunk, or through a register or
 *    memory, whose target is no longer known) is patched (16 at most, each
 *    remembered with its slot so that the trampoline knows where to go back;
 *    a Win32 function returns with "ret $n", past its arguments, and the
 *    trampoline takes the nearest patched slot below).
 *    Besides the return address wanted, such words are return addresses of
 *    calls further out, or stale copies in slots not yet written, which their
 *    functions overwrite before any use. A live datum equal to a return
 *    address is what this heuristic cannot tell apart; our functions keep no
 *    code addresses on the stack. Failing that, in ntdll's NtDelayExecution
 *    stub, a thread in Win32 Sleep/SleepEx, a pure delay that holds no lock, is
 *    redirected as it stands; the new context takes effect when the delay
 *    ends (Windows and Wine apply it on the return from the system call).
 *    Abandoned there, SleepEx's activation-context frame (Windows) stays
 *    linked; it lies above the exit path's stack, so it stays valid until the
 *    thread ends. Our own code never calls Sleep while it holds any of our
 *    state (spin.c and cancel.c sleep only while they hold nothing).
 * A thread found where none of this applies is resumed and looked at again, a
 * bounded number of times with growing pauses; after that the request stays
 * pending and acts at the thread's next cancellation point. A thread no longer
 * asynchronous or enabled when it is stopped (it raced its own setcanceltype or
 * setcancelstate, or it is already exiting: pthread_exit and the thread's
 * return disable cancellation) is left alone: it sees the pending request.
 *
 * The redirect: the instruction pointer goes to exit_after_redirect, which
 * calls slim_cancel_act (cleanup handlers, key destructors, PTHREAD_CANCELED
 * for joiners). The stack pointer goes below the interrupted frame, aligned as
 * a call would leave it: x86_64 RSP = 8 (mod 16) at entry, with the caller's
 * 32-byte shadow space above it; i686 ESP = 12 (mod 16), realigned by the
 * function anyway. The direction flag is cleared, as the ABI requires at a
 * call. The redirect writes nothing below the target's stack pointer (a guard
 * page touched by another thread would fault there): the slot of the return
 * address is left as it is, since exit_after_redirect never returns. A patch
 * writes one word above it, in a live frame, committed memory.
 *
 * What remains unsafe (README.md): POSIX allows only pthread_cancel,
 * pthread_setcancelstate and pthread_setcanceltype in this mode. Locks of the
 * program's own code (its own mutexes, held when the thread is stopped) stay
 * held; code of static libraries linked into the executable (libstdc++,
 * libgcc's unwinder, libmingwex) counts as the program's; on i686, a lock a
 * DLL holds while it calls Sleep stays held when the thread is redirected in
 * that Sleep. An exception propagating through a patched return finds no
 * unwind data for the trampoline. A patched return address defeats a hardware
 * shadow stack (CET), which MinGW-w64 programs do not enable.
 */
#include "internal.h"

#include <string.h>

enum place_verdict {
    ACT_HERE,       /* redirected now */
    ACT_ON_RETURN,  /* x86_64: its return into the program's code is patched */
    LOOK_AGAIN,     /* in code that may hold locks: resume, retry later */
    LEAVE_PENDING   /* no longer asynchronous and enabled, or gone */
};

/* Looks at a stopped thread at most this often; the pauses between looks grow
 * from a yield to ATTEMPT_PAUSE_MAX_MS, about 0.3 s in all. */
#define ATTEMPTS_MAX 40
#define ATTEMPT_PAUSE_MAX_MS 10

/* Below the interrupted frame, before alignment. */
#define REDIRECT_STACK_MARGIN 128
#define STACK_ALIGNMENT 16
#if defined(__x86_64__)
#define CALL_SHADOW_SPACE 32 /* the caller's home area for four register arguments */
#define RETURN_ADDRESS_SIZE 8
#else
#define CALL_SHADOW_SPACE 0
#define RETURN_ADDRESS_SIZE 4
#endif
#define EFLAGS_DIRECTION 0x400

/* A system call stub's length: NtDelayExecution's stops inside it, at the
 * instruction after the call into the kernel (x86_64: syscall at +0x12; WOW64
 * and Wine i686: after the call at +0x0a). */
#if defined(__x86_64__)
#define SYSCALL_STUB_BYTES 32
#else
#define SYSCALL_STUB_BYTES 16
#endif

/* ---- The table of our own code (built by internal.h) ---- */

#if SLIM_CODE_TABLE
__attribute__((section(".rdata$slim_code_a"), aligned(8), used))
static const struct slim_code_range code_table_start = {NULL, NULL};
__attribute__((section(".rdata$slim_code_c"), aligned(8), used))
static const struct slim_code_range code_table_end = {NULL, NULL};
#endif

static int inside_our_code(const char *address)
{
#if SLIM_CODE_TABLE
    const struct slim_code_range *range;

    /* Padding the linker puts between entries reads as empty ones. */
    for (range = &code_table_start + 1; range < &code_table_end; range++)
        if (range->begin != NULL && address >= range->begin && address < range->end)
            return 1;
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
    const char *delay_stub; /* ntdll's NtDelayExecution, or NULL */
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

/* Functions of different files: each must be found in the table, else (clang,
 * -ffunction-sections) our code cannot be told from the program's. */
static int code_table_complete(void)
{
    const void *samples[] = {
        (const void *)(uintptr_t)pthread_mutex_lock, (const void *)(uintptr_t)pthread_cond_wait,
        (const void *)(uintptr_t)pthread_exit,       (const void *)(uintptr_t)sem_wait,
        (const void *)(uintptr_t)pthread_cancel,     (const void *)(uintptr_t)slim_wait_on,
        (const void *)(uintptr_t)slim_cancel_async,  (const void *)(uintptr_t)pthread_rwlock_rdlock,
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
    HMODULE ntdll;

    if (slim_load_acquire(&places_known))
        return;
    places.program_code = code_span_of(GetModuleHandleW(NULL));
    places.library_code = code_span_of(module_of((const void *)(uintptr_t)slim_cancel_async));
    ntdll = GetModuleHandleW(L"ntdll.dll");
    places.delay_stub =
        ntdll != NULL ? (const char *)(uintptr_t)GetProcAddress(ntdll, "NtDelayExecution") : NULL;
    places.code_table_complete = code_table_complete();
    slim_store_release(&places_known, 1);
}

/* ---- The first return into the program's code ---- */

static int in_program_code(const char *address);

static void return_trampoline(void);

/* A callee that pops its own arguments (i686 stdcall: every Win32 function)
 * returns with "ret $n", leaving the stack pointer n bytes above where a plain
 * ret leaves it; x86_64 has no such return. */
#if defined(__x86_64__)
#define CALLEE_POPPED_BYTES_MAX 0
#else
#define CALLEE_POPPED_BYTES_MAX 256
#endif

/* The patched return the trampoline came through, given where its slot lies
 * if the callee popped no arguments: the highest patched slot at most
 * CALLEE_POPPED_BYTES_MAX below that (between the two lie only the popped
 * arguments). NULL if there is none. */
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
        abort(); /* a return we never patched: nowhere to go on */
    back = taken->original;
    taken->slot = NULL;
    if (self->cancel_type == PTHREAD_CANCEL_ASYNCHRONOUS && slim_cancel_requested())
        slim_cancel_act();
    return back;
}

/* Replaces the return address in slot, which returns into the program: 0 once
 * the record has no room left. */
static int patch_slot(struct slim_thread *target, uintptr_t *slot)
{
    struct slim_patched_return *patched;

    for (patched = target->async_returns;
         patched < target->async_returns + SLIM_PATCHED_RETURNS_MAX; patched++)
        if (patched->slot == NULL || patched->slot == (void **)slot) {
            patched->slot = (void **)slot;
            patched->original = (void *)*slot;
            *slot = (uintptr_t)return_trampoline;
            return 1;
        }
    return 0;
}

/* The fields of a ModRM byte (the operand after an opcode), which both the
 * x86_64 epilogue check and the i686 call check read. */
#define MODRM_MOD_SHIFT 6
#define MODRM_REG_SHIFT 3
#define MODRM_FIELD_MASK 7 /* reg and rm are 3 bits each */
#define MODRM_MOD_DISP8 1  /* [reg + disp8] */
#define MODRM_MOD_DISP32 2 /* [reg + disp32] */

#if defined(__x86_64__)
/* Frames unwound at most before giving up on a stop. */
#define UNWIND_FRAMES_MAX 64

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

/* The unwind entry for address in the image at base, from the image's own
 * exception directory: a binary search, no loader call, no lock. */
static RUNTIME_FUNCTION *function_entry(const char *base, const char *address)
{
    const IMAGE_DOS_HEADER *dos = (const IMAGE_DOS_HEADER *)base;
    const IMAGE_NT_HEADERS64 *nt;
    const IMAGE_DATA_DIRECTORY *directory;
    RUNTIME_FUNCTION *entries;
    DWORD offset = (DWORD)(address - base), low = 0, high;

    if (dos->e_magic != IMAGE_DOS_SIGNATURE)
        return NULL;
    nt = (const IMAGE_NT_HEADERS64 *)(base + dos->e_lfanew);
    if (nt->Signature != IMAGE_NT_SIGNATURE ||
        nt->OptionalHeader.Magic != IMAGE_NT_OPTIONAL_HDR64_MAGIC ||
        nt->OptionalHeader.NumberOfRvaAndSizes <= IMAGE_DIRECTORY_ENTRY_EXCEPTION)
        return NULL;
    directory = &nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXCEPTION];
    entries = (RUNTIME_FUNCTION *)(base + directory->VirtualAddress);
    high = directory->Size / sizeof *entries;
    while (low < high) {
        DWORD middle = low + (high - low) / 2;

        if (offset < entries[middle].BeginAddress)
            high = middle;
        else if (offset >= entries[middle].EndAddress)
            low = middle + 1;
        else
            return &entries[middle];
    }
    return NULL;
}

static int in_program_code(const char *address);

/* The instructions of an x86_64 epilogue (the forms the unwinder knows). */
#define REX_W_PREFIX 0x48       /* add and lea of RSP: 64-bit operands */
#define REX_PREFIX_MASK 0xf0    /* 0x40-0x4f: a REX prefix, before a pop of r8-r15 */
#define REX_PREFIX_BASE 0x40
#define ADD_IMM32_OPCODE 0x81   /* add $imm32, %rsp: 48 81 c4 imm32 */
#define ADD_IMM8_OPCODE 0x83    /* add $imm8, %rsp: 48 83 c4 imm8 */
#define LEA_OPCODE 0x8d         /* lea disp(reg), %rsp */
#define MODRM_RSP_DESTINATION 0xc4
#define POP_FIRST_OPCODE 0x58   /* pop %rax .. pop %rdi: 58-5f */
#define POP_LAST_OPCODE 0x5f
#define JUMP_REL32_OPCODE 0xe9
#define JUMP_REL8_OPCODE 0xeb
#define JUMP_INDIRECT_OPCODE 0xff /* with ModRM's reg field 4: jmp *... */
#define MODRM_REG_JUMP 4
#define EPILOGUE_POPS_MAX 8

/* Whether code runs from here through an epilogue that ends in a jump (a
 * tail call: "add $n, %rsp; pop ...; jmp f"). Wine 8's RtlVirtualUnwind knows
 * only epilogues that end in ret: it takes such a stop for one in the body,
 * undoes the frame a second time and finds a return slot above the real one,
 * where a stale return address may lie (patching it would lose the request).
 * A thread stopped there is looked at again: it is gone a few instructions
 * later. A plain jump in a body matches too; that costs only another look. */
static int in_tail_call_epilogue(const unsigned char *code)
{
    int pops;

    if (code[0] == REX_W_PREFIX && code[2] == MODRM_RSP_DESTINATION) {
        if (code[1] == ADD_IMM8_OPCODE)
            code += 4;
        else if (code[1] == ADD_IMM32_OPCODE)
            code += 7;
    } else if ((code[0] & REX_PREFIX_MASK) == REX_PREFIX_BASE && code[1] == LEA_OPCODE) {
        int mod = code[2] >> MODRM_MOD_SHIFT;

        if (mod == MODRM_MOD_DISP8)
            code += 4;
        else if (mod == MODRM_MOD_DISP32)
            code += 7;
    }
    for (pops = 0; pops < EPILOGUE_POPS_MAX; pops++) {
        const unsigned char *opcode =
            (code[0] & REX_PREFIX_MASK) == REX_PREFIX_BASE ? code + 1 : code;

        if (*opcode < POP_FIRST_OPCODE || *opcode > POP_LAST_OPCODE)
            break;
        code = opcode + 1;
    }
    if ((code[0] & REX_PREFIX_MASK) == REX_PREFIX_BASE)
        code++;
    return code[0] == JUMP_REL32_OPCODE || code[0] == JUMP_REL8_OPCODE ||
           (code[0] == JUMP_INDIRECT_OPCODE &&
            ((code[1] >> MODRM_REG_SHIFT) & MODRM_FIELD_MASK) == MODRM_REG_JUMP);
}

/* Unwinds a copy of the stopped context to the first frame in the program's
 * code and patches the return address into it. 0 when the stack cannot be
 * followed within the thread's own stack. */
static int patch_return_into_program(struct slim_thread *target, const CONTEXT *stopped)
{
    CONTEXT context = *stopped;
    const char *stack_low = target->stack_low;
    const char *stack_high = stack_low + target->stack_size;
    int frame;

    for (frame = 0; frame < UNWIND_FRAMES_MAX; frame++) {
        const char *address = (const char *)context.Rip;
        const char *base = module_of(address);
        DWORD64 previous_rsp = context.Rsp;
        RUNTIME_FUNCTION *entry;
        void *handler_data;
        DWORD64 establisher;

        if (base == NULL)
            return 0;
        if (frame == 0 && in_tail_call_epilogue((const unsigned char *)address))
            return 0; /* only the stop can be in an epilogue: the rest are calls */
        entry = function_entry(base, address);
        if (entry != NULL) {
            RtlVirtualUnwind(UNW_FLAG_NHANDLER, (DWORD64)(uintptr_t)base, context.Rip, entry,
                             &context, &handler_data, &establisher, NULL);
        } else { /* a leaf function: the return address is on top of the stack */
            context.Rip = *(const DWORD64 *)(uintptr_t)context.Rsp;
            context.Rsp += sizeof(DWORD64);
        }
        /* The return address just popped lies right below the new RSP. */
        if ((const char *)(uintptr_t)context.Rsp <= (const char *)(uintptr_t)previous_rsp ||
            (const char *)(uintptr_t)context.Rsp - sizeof(DWORD64) < stack_low ||
            (const char *)(uintptr_t)context.Rsp > stack_high || context.Rip == 0)
            return 0;
        if (in_program_code((const char *)context.Rip)) {
            DWORD64 *slot = (DWORD64 *)(uintptr_t)(context.Rsp - sizeof(DWORD64));

            if (*slot != context.Rip)
                return 0;
            return patch_slot(target, (uintptr_t *)slot);
        }
    }
    return 0;
}
#else
/* Bytes of the stack looked through for the return into the program. */
#define STACK_SCAN_BYTES_MAX 65536
#define CALL_REL32_OPCODE 0xE8       /* call rel32: 5 bytes */
#define CALL_INDIRECT_OPCODE 0xFF    /* call r/m32: FF /2, 2 to 7 bytes */
#define CALL_INDIRECT_ABSOLUTE 0x15  /* its ModRM for call [abs32]: 6 bytes */
#define JUMP_INDIRECT_OPCODE 0xFF    /* jmp [abs32]: FF 25, an import thunk */
#define JUMP_INDIRECT_ABSOLUTE 0x25
/* How FF /2 (call r/m32) is laid out, as far as its length goes. */
#define MODRM_REG_CALL 2      /* FF /2 is call */
#define MODRM_MOD_MEMORY 0    /* [reg], or [abs32] with RM_DISP32 */
#define MODRM_MOD_REGISTER 3  /* call *%reg */
#define MODRM_RM_SIB 4        /* a SIB byte follows */
#define MODRM_RM_DISP32 5     /* with MOD_MEMORY: an absolute address */
#define SIB_BASE_DISP32 5     /* with MOD_MEMORY: no base register, a disp32 */
#define DISP32_BYTES 4

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

/* Whether a call to target leaves the program's code: into our code, into a
 * DLL, or through an import thunk (jmp [abs32]) of the program's own. */
static int leaves_program(const unsigned char *target)
{
    if (!in_program_code((const char *)target))
        return module_of(target) != NULL;
    return target[0] == JUMP_INDIRECT_OPCODE && target[1] == JUMP_INDIRECT_ABSOLUTE;
}

/* The length of the indirect call (FF /2) that begins at instruction, or 0
 * when it is not one. */
static int indirect_call_length(const unsigned char *instruction)
{
    unsigned modrm = instruction[1];
    unsigned mod = modrm >> MODRM_MOD_SHIFT, rm = modrm & MODRM_FIELD_MASK;
    int length = 2; /* the opcode and the ModRM byte */

    if (instruction[0] != CALL_INDIRECT_OPCODE ||
        ((modrm >> MODRM_REG_SHIFT) & MODRM_FIELD_MASK) != MODRM_REG_CALL)
        return 0;
    if (mod == MODRM_MOD_REGISTER)
        return length;
    if (rm == MODRM_RM_SIB) {
        length++;
        if (mod == MODRM_MOD_MEMORY && (instruction[2] & MODRM_FIELD_MASK) == SIB_BASE_DISP32)
            length += DISP32_BYTES;
    } else if (mod == MODRM_MOD_MEMORY && rm == MODRM_RM_DISP32) {
        length += DISP32_BYTES;
    }
    if (mod == MODRM_MOD_DISP8)
        length++;
    else if (mod == MODRM_MOD_DISP32)
        length += DISP32_BYTES;
    return length;
}

/* Whether the instruction before address is a call out of the program's code:
 * what makes a word on the stack the return address of the outermost such
 * call. A direct call qualifies if its target lies outside the program (or is
 * an import thunk), a call through an import pointer if the pointer leads out.
 * A call through a register or through memory other than an import pointer
 * (GCC keeps an import's address in a register across a loop that calls it)
 * has a target no longer known: it qualifies, and if it called within the
 * program, acting when it returns there is as right. A stale return address of
 * a direct call within the program (its caller's dead frames below ours) does
 * not qualify. */
static int follows_a_call_out(const unsigned char *address)
{
    static const int indirect_lengths[] = {2, 3, 4, 6, 7};
    const unsigned char *call = address - 5;
    size_t i;

    if (call[0] == CALL_REL32_OPCODE) {
        const unsigned char *target;
        int32_t displacement;

        memcpy(&displacement, call + 1, sizeof displacement);
        target = address + displacement;
        if (leaves_program(target))
            return 1;
        if (in_program_code((const char *)target))
            return 0;
        /* No call goes there: the E8 was some other instruction's byte. */
    }
    for (i = 0; i < sizeof indirect_lengths / sizeof indirect_lengths[0]; i++) {
        const unsigned char *indirect = address - indirect_lengths[i];
        const unsigned char *const *pointer;

        if (indirect_call_length(indirect) != indirect_lengths[i])
            continue;
        if (indirect[1] != CALL_INDIRECT_ABSOLUTE)
            return 1;
        memcpy(&pointer, indirect + 2, sizeof pointer);
        if (module_of(pointer) != NULL && leaves_program(*pointer))
            return 1;
    }
    return 0;
}

/* i686 has no unwind tables: every word up the stack that is an address in
 * the program's code right after a call out of it is patched. One of them is
 * the return address of the outermost such call; the others are real return
 * addresses of calls further out (acting when they return is as right) or
 * stale copies in slots their functions have not written yet, which they
 * overwrite before any use, so that patching them changes nothing. */
static int patch_return_into_program(struct slim_thread *target, const CONTEXT *stopped)
{
    const char *stack_high = (const char *)target->stack_low + target->stack_size;
    uintptr_t *word = (uintptr_t *)(uintptr_t)stopped->Esp;
    uintptr_t *last = (uintptr_t *)(uintptr_t)(stopped->Esp + STACK_SCAN_BYTES_MAX);
    int patched = 0;

    if ((const char *)word < (const char *)target->stack_low || (const char *)word >= stack_high)
        return 0;
    if ((const char *)last > stack_high - sizeof *word)
        last = (uintptr_t *)(stack_high - sizeof *word);
    for (; word <= last; word++) {
        const char *address = (const char *)*word;

        if (in_program_code(address) && follows_a_call_out((const unsigned char *)address) &&
            patch_slot(target, word))
            patched++;
    }
    return patched > 0;
}
#endif

/* ---- Looking at a stopped thread ---- */

static const char *instruction_pointer(const CONTEXT *context)
{
#if defined(__x86_64__)
    return (const char *)context->Rip;
#else
    return (const char *)context->Eip;
#endif
}

static int in_span(const struct code_span *span, const char *address)
{
    return address >= span->begin && address < span->end;
}

static int in_program_code(const char *address)
{
    if (!in_span(&places.program_code, address) && !in_span(&places.library_code, address))
        return 0;
    return places.code_table_complete && !inside_our_code(address);
}

#if !defined(__x86_64__)
static int in_delay(const char *address)
{
    return places.delay_stub != NULL && address >= places.delay_stub &&
           address < places.delay_stub + SYSCALL_STUB_BYTES;
}
#endif

/* The target is stopped: what it stored before is visible, and it stores
 * nothing until it is resumed. */
static enum place_verdict judge(struct slim_thread *target, const CONTEXT *context)
{
    const char *address = instruction_pointer(context);

    /* An exiting thread has cancellation disabled (slim_cancel_exiting). */
    if (target->cancel_state != PTHREAD_CANCEL_ENABLE ||
        __atomic_load_n(&target->cancel_type, __ATOMIC_SEQ_CST) != PTHREAD_CANCEL_ASYNCHRONOUS)
        return LEAVE_PENDING;
    if (in_program_code(address))
        return ACT_HERE;
    if (places.code_table_complete && patch_return_into_program(target, context))
        return ACT_ON_RETURN;
#if !defined(__x86_64__)
    if (in_delay(address))
        return ACT_HERE;
#endif
    return LOOK_AGAIN;
}

/* ---- The redirect ---- */

/* Where a redirected thread lands, on a fresh call frame below the one it was
 * stopped in. */
__attribute__((noreturn, noinline, used, force_align_arg_pointer))
static void exit_after_redirect(void)
{
    slim_cancel_act();
}

static void redirect(CONTEXT *context)
{
#if defined(__x86_64__)
    DWORD64 stack = (context->Rsp - REDIRECT_STACK_MARGIN) & ~(DWORD64)(STACK_ALIGNMENT - 1);

    context->Rsp = stack - CALL_SHADOW_SPACE - RETURN_ADDRESS_SIZE;
    context->Rip = (DWORD64)(uintptr_t)exit_after_redirect;
#else
    DWORD stack = (context->Esp - REDIRECT_STACK_MARGIN) & ~(DWORD)(STACK_ALIGNMENT - 1);

    context->Esp = stack - CALL_SHADOW_SPACE - RETURN_ADDRESS_SIZE;
    context->Eip = (DWORD)(uintptr_t)exit_after_redirect;
#endif
    context->EFlags &= ~(DWORD)EFLAGS_DIRECTION;
}

/* One stop: the verdict, and the redirect done if it was ACT_HERE. A thread
 * that cannot be stopped or read is left to its cancellation points. */
static enum place_verdict stop_and_judge(struct slim_thread *target)
{
    CONTEXT context;
    enum place_verdict verdict;

    if (SuspendThread(target->handle) == (DWORD)-1)
        return LEAVE_PENDING;
    memset(&context, 0, sizeof context);
    /* The integer registers too: unwinding restores the saved ones. */
    context.ContextFlags = CONTEXT_CONTROL | CONTEXT_INTEGER;
    if (!GetThreadContext(target->handle, &context)) {
        verdict = LEAVE_PENDING;
    } else {
        verdict = judge(target, &context);
        if (verdict == ACT_HERE) {
            redirect(&context);
            if (!SetThreadContext(target->handle, &context))
                verdict = LEAVE_PENDING;
        }
    }
    /* Cannot fail for a thread we stopped; were it to, the thread would stay
     * stopped whatever we did. */
    ResumeThread(target->handle);
    return verdict;
}

int slim_cancel_async(struct slim_thread *target)
{
    if (target->handle == NULL)
        return 0;
    know_places();
    for (int attempt = 0; attempt < ATTEMPTS_MAX; attempt++) {
        switch (stop_and_judge(target)) {
        case ACT_HERE:
        case ACT_ON_RETURN:
            return 1;
        case LEAVE_PENDING:
            return 0;
        case LOOK_AGAIN:
            break;
        }
        /* Let it run on out of the code it was found in. */
        Sleep(attempt < 4 ? 0 : attempt < ATTEMPT_PAUSE_MAX_MS ? (DWORD)attempt
                                                               : ATTEMPT_PAUSE_MAX_MS);
    }
    return 0;
}
