/*
 * cancel_async_frames.c - i686: where, on a stopped thread's stack, the
 * return address into the program's code lies, known exactly or not at all.
 *
 * i686 has no unwind tables. The frame-pointer chain is followed instead:
 * EBP, then the saved EBP at [EBP], and so on; each frame's return address
 * lies at [EBP+4]. A link counts only if the frame lies on the thread's stack
 * (recorded at its start), above the stack pointer and above the previous
 * frame, and its return address is in an image's code right after a call
 * instruction. The chain alone proves nothing, for two reasons:
 *  - code without frame pointers (the program's, built with
 *    -fomit-frame-pointer as GCC does at -O2, and ours) uses EBP for data, so
 *    a frame pointer may point at a datum;
 *  - a GCC-built function that realigns its stack (every Wine export: their
 *    WINAPI is force_align_arg_pointer) builds its frame around a copy of the
 *    return address; its ret pops the real slot, higher up, whose address it
 *    keeps in ECX and saves below its frame pointer.
 * So the frame whose return goes into the program's code is taken only with
 * the code of the function it belongs to (its owner): the target of the
 * program's call (a direct call, or a call through its import address table,
 * followed through jump thunks), or else the exported function that holds
 * the return address of the frame below, provided the program imports it.
 * Both, when both are known, must agree. The owner's prologue must be one that is
 * understood: push %ebp; mov %esp,%ebp (the slot is [EBP+4]), or the
 * realigning one, lea 4(%esp),%ecx; and $-16,%esp; pushl -4(%ecx);
 * push %ebp; mov %esp,%ebp; up to three pushes; push %ecx (the slot is the
 * saved ECX less 4, which must hold the same address and lie where the
 * alignment puts it). Last, no word between the stack pointer and the slot
 * may look like a return into the program's code (but the owner's own copy):
 * the real return of the call the thread is in lies there, below every datum
 * of the program's frame. Where any of this fails, nothing is written, and
 * the thread is looked at again until it is found in the program's own code.
 */
#include "cancel_async.h"

#include <string.h>

#if defined(__i386__)
/* Frames followed at most before the slot is called unknown. */
#define FRAMES_MAX 64
/* Jump thunks followed at most to reach a function. */
#define THUNK_HOPS_MAX 4
/* Bytes of code read from a function's entry, and before a return address. */
#define PROLOGUE_BYTES_MAX 32
#define CALL_BYTES_MAX 7

#define CALL_REL32_OPCODE 0xE8       /* call rel32: 5 bytes */
#define CALL_REL32_BYTES 5
#define INDIRECT_OPCODE 0xFF         /* call r/m32 (FF /2), jmp r/m32 (FF /4) */
#define MODRM_ABSOLUTE_CALL 0x15     /* call *abs32: FF 15 abs32, 6 bytes */
#define MODRM_ABSOLUTE_JUMP 0x25     /* jmp *abs32: FF 25 abs32, an import thunk */
#define ABSOLUTE_CALL_BYTES 6
#define JUMP_REL32_OPCODE 0xE9       /* jmp rel32: 5 bytes */
#define JUMP_REL32_BYTES 5
#define RET_OPCODE 0xC3
#define RET_POP_OPCODE 0xC2          /* ret $imm16 */
#define LEAVE_OPCODE 0xC9
#define POP_EBP_OPCODE 0x5D
#define PUSH_EDI_OPCODE 0x57
#define PUSH_ESI_OPCODE 0x56
#define PUSH_EBX_OPCODE 0x53
#define PUSH_ECX_OPCODE 0x51
#define CALLEE_SAVED_PUSHES_MAX 3
/* How FF /2 (call r/m32) is laid out, as far as its length goes. */
#define MODRM_MOD_SHIFT 6
#define MODRM_REG_SHIFT 3
#define MODRM_FIELD_MASK 7    /* reg and rm are 3 bits each */
#define MODRM_MOD_MEMORY 0    /* [reg], or [abs32] with RM_DISP32 */
#define MODRM_MOD_DISP8 1     /* [reg + disp8] */
#define MODRM_MOD_DISP32 2    /* [reg + disp32] */
#define MODRM_MOD_REGISTER 3  /* call *%reg */
#define MODRM_REG_CALL 2      /* FF /2 is call */
#define MODRM_RM_SIB 4        /* a SIB byte follows */
#define MODRM_RM_DISP32 5     /* with MOD_MEMORY: an absolute address */
#define SIB_BASE_DISP32 5     /* with MOD_MEMORY: no base register, a disp32 */
#define DISP32_BYTES 4
#define STACK_ALIGNMENT_MASK 15

#define EXECUTABLE_PROTECTIONS \
    (PAGE_EXECUTE | PAGE_EXECUTE_READ | PAGE_EXECUTE_READWRITE | PAGE_EXECUTE_WRITECOPY)
#define READABLE_PROTECTIONS \
    (PAGE_READONLY | PAGE_READWRITE | PAGE_WRITECOPY | EXECUTABLE_PROTECTIONS)

/* Prologues: MSVC's hot-patch point; Wine's, a no-op before the real
 * prologue; a plain frame (GCC's and MSVC's encodings); the realigning one. */
static const unsigned char hot_patch[] = {0x8b, 0xff}; /* mov %edi,%edi */
/* mov %edi,%edi; push %ebp; mov %esp,%ebp; pop %ebp */
static const unsigned char hot_patch_no_op[] = {0x8b, 0xff, 0x55, 0x8b, 0xec, 0x5d};
/* push %ebp; mov %esp,%ebp */
static const unsigned char plain_frame_gcc[] = {0x55, 0x89, 0xe5};
static const unsigned char plain_frame_msvc[] = {0x55, 0x8b, 0xec};
static const unsigned char realigned_frame[] = {
    0x8d, 0x4c, 0x24, 0x04, /* lea 4(%esp),%ecx: the arguments, above the return address */
    0x83, 0xe4, 0xf0,       /* and $-16,%esp */
    0xff, 0x71, 0xfc,       /* pushl -4(%ecx): a copy of the return address */
    0x55, 0x89, 0xe5,       /* push %ebp; mov %esp,%ebp */
};
/* Its epilogue's last step before the ret: lea -4(%ecx),%esp. */
static const unsigned char realigned_frame_end[] = {0x8d, 0x61, 0xfc};

enum frame_kind { FRAME_UNKNOWN, FRAME_PLAIN, FRAME_REALIGNED };

struct frame_layout {
    enum frame_kind kind;
    size_t prologue_bytes;      /* where the frame is complete */
    size_t saved_pointer_below; /* FRAME_REALIGNED: where ECX is saved, below the frame */
};

/* What a frame pointer points at. */
struct frame_link {
    uintptr_t saved_frame;
    uintptr_t return_address;
};

/* ---- Memory that may be read ---- */

/* Whether bytes from address on are committed memory of an image, with the
 * given protections. */
static int image_memory(const void *address, size_t bytes, DWORD protections)
{
    MEMORY_BASIC_INFORMATION region;

    return VirtualQuery(address, &region, sizeof region) == sizeof region &&
           region.Type == MEM_IMAGE && region.State == MEM_COMMIT &&
           (region.Protect & protections) != 0 && (region.Protect & PAGE_GUARD) == 0 &&
           (const char *)address + bytes <= (const char *)region.BaseAddress + region.RegionSize;
}

static int image_code(const void *address, size_t bytes)
{
    return image_memory(address, bytes, EXECUTABLE_PROTECTIONS);
}

/* The pointer stored at address in an image (an import, a thunk's operand),
 * or NULL. */
static const unsigned char *image_pointer(const unsigned char *address)
{
    const unsigned char *pointer;

    if (!image_memory(address, sizeof pointer, READABLE_PROTECTIONS))
        return NULL;
    memcpy(&pointer, address, sizeof pointer);
    return pointer;
}

/* ---- Calls and functions ---- */

/* The length of the indirect call (FF /2) that begins at instruction, or 0
 * when it is not one. */
static int indirect_call_length(const unsigned char *instruction)
{
    unsigned modrm = instruction[1];
    unsigned mod = modrm >> MODRM_MOD_SHIFT, rm = modrm & MODRM_FIELD_MASK;
    int length = 2; /* the opcode and the ModRM byte */

    if (instruction[0] != INDIRECT_OPCODE ||
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

/* The target of the direct call (E8 rel32) that ends at address, or NULL. */
static const unsigned char *direct_call_target(const unsigned char *address)
{
    int32_t displacement;

    if (address[-CALL_REL32_BYTES] != CALL_REL32_OPCODE)
        return NULL;
    memcpy(&displacement, address - DISP32_BYTES, sizeof displacement);
    return address + displacement;
}

/* Whether the code before address (an image's, CALL_BYTES_MAX bytes of it
 * readable) reads as a call: a direct one into an image's code, or any
 * indirect one. */
static int follows_a_call(const unsigned char *address)
{
    static const int indirect_lengths[] = {2, 3, 4, 6, 7};
    const unsigned char *target = direct_call_target(address);
    size_t i;

    if (target != NULL && image_code(target, 1))
        return 1;
    for (i = 0; i < sizeof indirect_lengths / sizeof indirect_lengths[0]; i++)
        if (indirect_call_length(address - indirect_lengths[i]) == indirect_lengths[i])
            return 1;
    return 0;
}

/* Whether word is an address in the program's code right after a call. */
static int program_return(uintptr_t word)
{
    const unsigned char *address = (const unsigned char *)word;

    return slim_async_in_program_code((const char *)address) &&
           image_code(address - CALL_BYTES_MAX, CALL_BYTES_MAX) && follows_a_call(address);
}

/* The function that code leads to through jump thunks (jmp *abs32, jmp rel32,
 * Wine's forwarders: its no-op hot-patch prologue, then jmp *abs32), or NULL. */
static const unsigned char *through_thunks(const unsigned char *code)
{
    for (int hop = 0; hop <= THUNK_HOPS_MAX; hop++) {
        const unsigned char *at = code;
        int32_t displacement;

        if (code == NULL || !image_code(code, PROLOGUE_BYTES_MAX))
            return NULL;
        if (memcmp(at, hot_patch_no_op, sizeof hot_patch_no_op) == 0)
            at += sizeof hot_patch_no_op;
        if (at[0] == INDIRECT_OPCODE && at[1] == MODRM_ABSOLUTE_JUMP) {
            code = image_pointer(image_pointer(at + 2));
        } else if (at[0] == JUMP_REL32_OPCODE) {
            memcpy(&displacement, at + 1, sizeof displacement);
            code = at + JUMP_REL32_BYTES + displacement;
        } else {
            return code;
        }
    }
    return NULL;
}

/* The headers of the image that holds address, or NULL. */
static const IMAGE_NT_HEADERS *image_headers(const void *address, const unsigned char **base)
{
    MEMORY_BASIC_INFORMATION region;
    const IMAGE_DOS_HEADER *dos;
    const IMAGE_NT_HEADERS *nt;

    if (VirtualQuery(address, &region, sizeof region) != sizeof region || region.Type != MEM_IMAGE)
        return NULL;
    *base = region.AllocationBase;
    dos = region.AllocationBase;
    if (dos->e_magic != IMAGE_DOS_SIGNATURE)
        return NULL;
    nt = (const IMAGE_NT_HEADERS *)(*base + dos->e_lfanew);
    return nt->Signature == IMAGE_NT_SIGNATURE ? nt : NULL;
}

/* The directory entry index of an image, or NULL if it has none. */
static const IMAGE_DATA_DIRECTORY *image_directory(const IMAGE_NT_HEADERS *nt, unsigned index)
{
    const IMAGE_DATA_DIRECTORY *directory;

    if (nt == NULL || nt->OptionalHeader.NumberOfRvaAndSizes <= index)
        return NULL;
    directory = &nt->OptionalHeader.DataDirectory[index];
    return directory->Size != 0 ? directory : NULL;
}

/* Whether slot is an entry of its image's import address table, which only
 * the loader writes: unlike another function pointer, it still names the
 * function a call through it went to. */
static int import_slot(const unsigned char *slot)
{
    const unsigned char *base;
    const IMAGE_DATA_DIRECTORY *table =
        image_directory(image_headers(slot, &base), IMAGE_DIRECTORY_ENTRY_IAT);

    return table != NULL && (DWORD)(slot - base) - table->VirtualAddress < table->Size;
}

/* The function the call that ends at back went to, when the call names it:
 * a direct call, or a call through an import (call *abs32 on the import
 * address table). */
static const unsigned char *called_function(const unsigned char *back)
{
    const unsigned char *target = direct_call_target(back);

    if (target == NULL && back[-ABSOLUTE_CALL_BYTES] == INDIRECT_OPCODE &&
        back[-ABSOLUTE_CALL_BYTES + 1] == MODRM_ABSOLUTE_CALL) {
        const unsigned char *slot = image_pointer(back - DISP32_BYTES);

        if (slot != NULL && import_slot(slot))
            target = image_pointer(slot);
    }
    return through_thunks(target);
}

/* The exported function of its image that holds address: the export with the
 * highest address at or below it, or NULL. */
static const unsigned char *exported_function_holding(const unsigned char *address)
{
    const unsigned char *base;
    const IMAGE_DATA_DIRECTORY *directory =
        image_directory(image_headers(address, &base), IMAGE_DIRECTORY_ENTRY_EXPORT);
    const IMAGE_EXPORT_DIRECTORY *exports;
    const DWORD *functions;
    DWORD offset, best = 0, i;

    if (directory == NULL)
        return NULL;
    exports = (const IMAGE_EXPORT_DIRECTORY *)(base + directory->VirtualAddress);
    functions = (const DWORD *)(base + exports->AddressOfFunctions);
    offset = (DWORD)(address - base);
    for (i = 0; i < exports->NumberOfFunctions; i++) {
        DWORD rva = functions[i];

        /* A forwarder's entry names another DLL's function, inside the directory. */
        if (rva - directory->VirtualAddress < directory->Size)
            continue;
        if (rva <= offset && rva > best)
            best = rva;
    }
    return best != 0 ? base + best : NULL;
}

/* Whether the image imports function (through its import address table,
 * followed through thunks). */
static int imports(const unsigned char *image, const unsigned char *function)
{
    const unsigned char *base;
    const IMAGE_DATA_DIRECTORY *directory;
    const IMAGE_IMPORT_DESCRIPTOR *descriptor;

    if (image == NULL)
        return 0;
    directory = image_directory(image_headers(image, &base), IMAGE_DIRECTORY_ENTRY_IMPORT);
    if (directory == NULL)
        return 0;
    for (descriptor = (const IMAGE_IMPORT_DESCRIPTOR *)(base + directory->VirtualAddress);
         descriptor->Name != 0; descriptor++) {
        const unsigned char *const *entry =
            (const unsigned char *const *)(base + descriptor->FirstThunk);

        for (; *entry != NULL; entry++)
            if (*entry == function || through_thunks(*entry) == function)
                return 1;
    }
    return 0;
}

static int program_imports(const unsigned char *function)
{
    const void *executable, *library;

    slim_async_program_images(&executable, &library);
    return imports(executable, function) ||
           (library != executable && imports(library, function));
}

/* The frame function's prologue builds, from its first bytes. */
static struct frame_layout layout_of(const unsigned char *function)
{
    struct frame_layout layout = {FRAME_UNKNOWN, 0, 0};
    const unsigned char *at = function;
    size_t pushes = 0;

    if (function == NULL || !image_code(function, PROLOGUE_BYTES_MAX))
        return layout;
    if (memcmp(at, hot_patch_no_op, sizeof hot_patch_no_op) == 0)
        at += sizeof hot_patch_no_op;
    else if (memcmp(at, hot_patch, sizeof hot_patch) == 0)
        at += sizeof hot_patch;
    if (memcmp(at, plain_frame_gcc, sizeof plain_frame_gcc) == 0 ||
        memcmp(at, plain_frame_msvc, sizeof plain_frame_msvc) == 0) {
        layout.kind = FRAME_PLAIN;
        layout.prologue_bytes = (size_t)(at - function) + sizeof plain_frame_gcc;
        return layout;
    }
    if (memcmp(at, realigned_frame, sizeof realigned_frame) != 0)
        return layout;
    at += sizeof realigned_frame;
    while (pushes < CALLEE_SAVED_PUSHES_MAX && (at[pushes] == PUSH_EDI_OPCODE ||
                                                at[pushes] == PUSH_ESI_OPCODE ||
                                                at[pushes] == PUSH_EBX_OPCODE))
        pushes++;
    if (at[pushes] != PUSH_ECX_OPCODE)
        return layout;
    layout.kind = FRAME_REALIGNED;
    layout.prologue_bytes = (size_t)(at - function) + pushes + 1;
    layout.saved_pointer_below = (pushes + 1) * sizeof(uintptr_t);
    return layout;
}

/* ---- The frame into the program ---- */

/* The function that built the frame whose return, back, goes into the
 * program's code; inside is an address within that function (the stop, or the
 * return address of the frame below), NULL if unknown. */
static const unsigned char *frame_owner(const unsigned char *back, const unsigned char *inside)
{
    const unsigned char *called = called_function(back);
    const unsigned char *holding = inside != NULL ? exported_function_holding(inside) : NULL;

    if (called != NULL)
        return holding == NULL || holding == called ? called : NULL;
    return holding != NULL && program_imports(holding) ? holding : NULL;
}

/* Whether a word from first up to (not including) end looks like a return
 * into the program's code, but the one at allowed. */
static int program_return_among(const uintptr_t *first, const uintptr_t *end,
                                const uintptr_t *allowed)
{
    for (; first < end; first++)
        if (first != allowed && program_return(*first))
            return 1;
    return 0;
}

/* The slot the owner of the frame at link will return through, or NULL. */
static uintptr_t *slot_of_frame(const CONTEXT *stopped, uintptr_t stack_high,
                                struct frame_link *link, const unsigned char *inside,
                                int inside_is_the_stop)
{
    const unsigned char *back = (const unsigned char *)link->return_address;
    const unsigned char *owner = frame_owner(back, inside);
    struct frame_layout layout = layout_of(owner);
    uintptr_t *slot = &link->return_address;
    uintptr_t arguments, below;

    if (layout.kind == FRAME_UNKNOWN)
        return NULL;
    /* Stopped in the owner's prologue, the frame is not the owner's yet. */
    if (inside_is_the_stop && (inside < owner || inside < owner + layout.prologue_bytes))
        return NULL;
    if (layout.kind == FRAME_REALIGNED) {
        below = (uintptr_t)link - layout.saved_pointer_below;
        if (below < stopped->Esp)
            return NULL;
        arguments = *(const uintptr_t *)below;
        slot = (uintptr_t *)(arguments - sizeof(uintptr_t));
        if (arguments % sizeof(uintptr_t) != 0 || arguments > stack_high ||
            ((uintptr_t)slot & ~(uintptr_t)STACK_ALIGNMENT_MASK) !=
                (uintptr_t)link + sizeof *link ||
            *slot != link->return_address)
            return NULL;
    }
    if (program_return_among((const uintptr_t *)stopped->Esp, slot, &link->return_address))
        return NULL;
    return slot;
}

/* An address inside the function that owns the first frame: the return
 * address a ret at the stop pops, or the stop itself. NULL at the instructions
 * of an epilogue that take the frame down (EBP may no longer be the owner's). */
static const unsigned char *inside_first_frame(const CONTEXT *stopped, int *is_the_stop)
{
    const unsigned char *at = (const unsigned char *)stopped->Eip;

    *is_the_stop = 0;
    if (!image_code(at, 1))
        return NULL;
    if (at[0] == RET_OPCODE || at[0] == RET_POP_OPCODE)
        return (const unsigned char *)*(const uintptr_t *)stopped->Esp;
    if (at[0] == LEAVE_OPCODE || at[0] == POP_EBP_OPCODE ||
        (image_code(at, sizeof realigned_frame_end) &&
         memcmp(at, realigned_frame_end, sizeof realigned_frame_end) == 0))
        return NULL;
    *is_the_stop = 1;
    return at;
}

uintptr_t *slim_async_return_slot(const struct slim_thread *target, const CONTEXT *stopped,
                                  const char **stack_at_return)
{
    const uintptr_t stack_low = (uintptr_t)target->stack_low;
    const uintptr_t stack_high = stack_low + target->stack_size;
    uintptr_t lowest = stopped->Esp; /* where the next frame may begin */
    uintptr_t frame = stopped->Ebp;
    const unsigned char *inside;
    int inside_is_the_stop;

    *stack_at_return = NULL; /* a stdcall callee pops its arguments: unknown here */
    if (lowest < stack_low || lowest + sizeof(uintptr_t) > stack_high)
        return NULL;
    inside = inside_first_frame(stopped, &inside_is_the_stop);
    for (int links = 0; links < FRAMES_MAX; links++) {
        struct frame_link *link = (struct frame_link *)frame;
        const unsigned char *back;

        if (frame < lowest || frame % sizeof(uintptr_t) != 0 ||
            frame > stack_high - sizeof *link)
            return NULL;
        back = (const unsigned char *)link->return_address;
        if (program_return(link->return_address))
            return slot_of_frame(stopped, stack_high, link, inside, inside_is_the_stop);
        if (!image_code(back - CALL_BYTES_MAX, CALL_BYTES_MAX) || !follows_a_call(back))
            return NULL;
        inside = back;
        inside_is_the_stop = 0;
        lowest = frame + sizeof *link;
        frame = link->saved_frame;
    }
    return NULL;
}
#endif

#include "code_end.h"
