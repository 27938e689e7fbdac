/*
 * cancel_async_unwind.c - x86_64 and aarch64: where, on a stopped thread's
 * stack, the return address into the program's code lies, from the images'
 * unwind data.
 *
 * The images' own unwind tables (looked up here, with no loader call, and
 * RtlVirtualUnwind, which only computes) unwind a copy of the stopped context
 * frame by frame up to the first frame in the program's code. The slot that
 * unwind popped the return address from is known exactly: what
 * cancel_async_return.c may replace. Where the stack cannot be followed
 * (generated code without unwind data, a stop in a tail call's epilogue), the
 * slot is unknown, and the thread is looked at again.
 */
#include "cancel_async.h"

#include <string.h>

#if defined(__x86_64__) || defined(__aarch64__)
/* Frames unwound at most before giving up on a stop. */
#define UNWIND_FRAMES_MAX 64

static const char *image_base_of(const void *address)
{
    MEMORY_BASIC_INFORMATION region;

    if (VirtualQuery(address, &region, sizeof region) != sizeof region ||
        region.Type != MEM_IMAGE)
        return NULL;
    return region.AllocationBase;
}

/* The image's exception directory (.pdata): its entries, sorted by address,
 * and how many; NULL when it has none. */
static RUNTIME_FUNCTION *function_entries(const char *base, DWORD *count)
{
    const IMAGE_DOS_HEADER *dos = (const IMAGE_DOS_HEADER *)base;
    const IMAGE_NT_HEADERS64 *nt;
    const IMAGE_DATA_DIRECTORY *directory;

    if (dos->e_magic != IMAGE_DOS_SIGNATURE)
        return NULL;
    nt = (const IMAGE_NT_HEADERS64 *)(base + dos->e_lfanew);
    if (nt->Signature != IMAGE_NT_SIGNATURE ||
        nt->OptionalHeader.Magic != IMAGE_NT_OPTIONAL_HDR64_MAGIC ||
        nt->OptionalHeader.NumberOfRvaAndSizes <= IMAGE_DIRECTORY_ENTRY_EXCEPTION)
        return NULL;
    directory = &nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXCEPTION];
    *count = directory->Size / sizeof(RUNTIME_FUNCTION);
    return *count == 0 ? NULL : (RUNTIME_FUNCTION *)(base + directory->VirtualAddress);
}

#if defined(__x86_64__)
static DWORD function_end(const char *base, const RUNTIME_FUNCTION *entry)
{
    (void)base;
    return entry->EndAddress;
}
#else
/* aarch64 entries hold no end: a packed entry (Flag nonzero) holds the
 * function's length, else its .xdata record's first word does; both count
 * instructions of 4 bytes. */
#define ARM64_INSTRUCTION_BYTES 4
#define XDATA_LENGTH_MASK 0x3ffff /* FunctionLength: bits 0-17 of the first word */

static DWORD function_end(const char *base, const RUNTIME_FUNCTION *entry)
{
    DWORD length = entry->Flag != 0
                       ? entry->FunctionLength
                       : *(const DWORD *)(base + entry->UnwindData) & XDATA_LENGTH_MASK;

    return entry->BeginAddress + length * ARM64_INSTRUCTION_BYTES;
}
#endif

/* The unwind entry for address in the image at base, from the image's own
 * exception directory: a binary search, no loader call, no lock. */
static RUNTIME_FUNCTION *function_entry(const char *base, const char *address)
{
    DWORD offset = (DWORD)(address - base), low = 0, high;
    RUNTIME_FUNCTION *entries = function_entries(base, &high);

    if (entries == NULL)
        return NULL;
    while (low < high) {
        DWORD middle = low + (high - low) / 2;

        if (offset < entries[middle].BeginAddress)
            high = middle;
        else if (offset >= function_end(base, &entries[middle]))
            low = middle + 1;
        else
            return &entries[middle];
    }
    return NULL;
}

#if defined(__x86_64__)
/* The fields of a ModRM byte (the operand after an opcode). */
#define MODRM_MOD_SHIFT 6
#define MODRM_REG_SHIFT 3
#define MODRM_FIELD_MASK 7 /* reg and rm are 3 bits each */
#define MODRM_MOD_DISP8 1  /* [reg + disp8] */
#define MODRM_MOD_DISP32 2 /* [reg + disp32] */

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
 * code: the slot the return address into it was popped from, or NULL when the
 * stack cannot be followed within the thread's own stack. */
uintptr_t *slim_async_return_slot(const struct slim_thread *target, const CONTEXT *stopped,
                                  const char **stack_at_return)
{
    CONTEXT context = *stopped;
    const char *stack_low = target->stack_low;
    const char *stack_high = stack_low + target->stack_size;
    int frame;

    for (frame = 0; frame < UNWIND_FRAMES_MAX; frame++) {
        const char *address = (const char *)context.Rip;
        const char *base = image_base_of(address);
        DWORD64 previous_rsp = context.Rsp;
        RUNTIME_FUNCTION *entry;
        void *handler_data;
        DWORD64 establisher;

        if (base == NULL)
            return NULL;
        if (frame == 0 && in_tail_call_epilogue((const unsigned char *)address))
            return NULL; /* only the stop can be in an epilogue: the rest are calls */
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
            return NULL;
        if (slim_async_in_program_code((const char *)context.Rip)) {
            uintptr_t *slot = (uintptr_t *)(uintptr_t)(context.Rsp - sizeof(DWORD64));

            *stack_at_return = (const char *)(uintptr_t)context.Rsp;
            return *slot == context.Rip ? slot : NULL;
        }
    }
    return NULL;
}
#else /* aarch64 */
/* Where a frame's return address into the program's code lies, from one
 * unwind step: the slot the frame's unwind data says Lr was saved in (as
 * RtlVirtualUnwind reports it), which must still hold it and lie on the
 * thread's stack at or above the stop; NULL when Lr came from no slot (a leaf,
 * or a stop in a prologue before Lr was saved): it is then only in a register,
 * and the thread is looked at again. */
static uintptr_t *saved_return_slot(const struct slim_thread *target, const CONTEXT *stopped,
                                    const CONTEXT *unwound, PDWORD64 saved_lr)
{
    const char *stack_low = target->stack_low;
    const char *stack_high = stack_low + target->stack_size;
    const char *slot = (const char *)saved_lr;

    if (slot == NULL || slot < (const char *)(uintptr_t)stopped->Sp || slot < stack_low ||
        slot + sizeof(DWORD64) > stack_high)
        return NULL;
    return *saved_lr == unwound->Pc ? (uintptr_t *)(uintptr_t)slot : NULL;
}

/* Unwinds a copy of the stopped context to the first frame in the program's
 * code: the slot the return address into it was loaded from, or NULL.
 * *stack_at_return gets SP as that return will leave it (the program frame's
 * own). Only the stop can be in a function without unwind data (a leaf, which
 * returns through Lr as it is); a frame above it without any cannot be
 * followed. */
uintptr_t *slim_async_return_slot(const struct slim_thread *target, const CONTEXT *stopped,
                                  const char **stack_at_return)
{
    CONTEXT context = *stopped;
    int frame;

    for (frame = 0; frame < UNWIND_FRAMES_MAX; frame++) {
        const char *base = image_base_of((const char *)context.Pc);
        KNONVOLATILE_CONTEXT_POINTERS saved;
        RUNTIME_FUNCTION *entry;
        void *handler_data;
        DWORD64 establisher, previous_sp = context.Sp;

        if (base == NULL)
            return NULL;
        memset(&saved, 0, sizeof saved);
        entry = function_entry(base, (const char *)context.Pc);
        if (entry != NULL)
            RtlVirtualUnwind(UNW_FLAG_NHANDLER, (DWORD64)(uintptr_t)base, context.Pc, entry,
                             &context, &handler_data, &establisher, &saved);
        else if (frame == 0)
            context.Pc = context.Lr;
        else
            return NULL;
        if (context.Sp < previous_sp || context.Pc == 0)
            return NULL;
        if (slim_async_in_program_code((const char *)context.Pc)) {
            /* The function stopped in returns into the program and Lr still
             * holds that return: it may be in its epilogue, Lr reloaded from
             * the slot, about to return through the register (an unwinder
             * that misreads the epilogue would offer the slot all the same,
             * as Wine 8's does on x86_64): looked at again. */
            if (frame == 0 && stopped->Lr == context.Pc)
                return NULL;
            *stack_at_return = (const char *)(uintptr_t)context.Sp;
            return saved_return_slot(target, stopped, &context, saved.Lr);
        }
    }
    return NULL;
}
#endif
#endif

#include "code_end.h"
