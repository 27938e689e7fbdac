/*
 * check_report.c - the checked build's reports: settings, text, output.
 *
 * A report is formatted into a buffer on the reporting thread's stack by the
 * small formatter below (no printf: the C runtime's may take its locale or
 * stream locks, which the program may hold) and written with one WriteFile
 * to stderr or to the file SLIMPTHREADS_CHECK_FILE names. Only the checker's
 * own SRWLOCK is taken, around the write, so that two reports do not
 * interleave; nothing else is held while a report is written. With
 * SLIMPTHREADS_CHECK=abort the first report ends the process with abort().
 *
 * Call sites are printed as module+offset of the call instruction (the return
 * address less one) and as the address addr2line takes for that module (its
 * preferred image base + offset): `addr2line -f -e module 0x...` names the
 * function and line when the module has debug information.
 */
#include "check_impl.h"
#include "atomic.h"

#if defined(SLIMPTHREADS_CHECKED)

#define CHECK_PREFIX "slimpthreads-check: "
#define MODULE_NAME_MAX 520

typedef BOOLEAN(WINAPI *shutdown_query)(void);

static HANDLE output = INVALID_HANDLE_VALUE;
static int abort_after_report;
static volatile long aborting; /* the first report in abort mode: nothing more is said */
static shutdown_query shutdown_in_progress;
static SRWLOCK write_lock = SRWLOCK_INIT;
static INIT_ONCE settings_once = INIT_ONCE_STATIC_INIT;

static BOOL CALLBACK read_settings(PINIT_ONCE once, void *parameter, void **context)
{
    char value[MAX_PATH];
    DWORD length;

    (void)once;
    (void)parameter;
    (void)context;
    length = GetEnvironmentVariableA("SLIMPTHREADS_CHECK", value, sizeof value);
    abort_after_report = length > 0 && length < sizeof value && lstrcmpiA(value, "abort") == 0;
    length = GetEnvironmentVariableA("SLIMPTHREADS_CHECK_FILE", value, sizeof value);
    if (length > 0 && length < sizeof value)
        output = CreateFileA(value, FILE_APPEND_DATA,
                             FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                             OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    if (output == INVALID_HANDLE_VALUE)
        output = GetStdHandle(STD_ERROR_HANDLE);
    shutdown_in_progress = (shutdown_query)(void (*)(void))GetProcAddress(
        GetModuleHandleW(L"ntdll.dll"), "RtlDllShutdownInProgress");
    return TRUE;
}

/* Nonzero while the process exits (ExitProcess): threads end holding locks
 * then as a matter of course. */
int slim_check_process_ending(void)
{
    slim_check_settings();
    return shutdown_in_progress != NULL && shutdown_in_progress();
}

void slim_check_settings(void)
{
    InitOnceExecuteOnce(&settings_once, read_settings, NULL, NULL);
}

/* ---- Text: appended in place, cut at the buffer's end ---- */

void slim_check_text_add(struct slim_check_text *out, const char *text)
{
    while (*text != '\0' && out->length < sizeof out->text - 1)
        out->text[out->length++] = *text++;
    out->text[out->length] = '\0';
}

void slim_check_text_hex(struct slim_check_text *out, uintptr_t value)
{
    char digits[2 + 2 * sizeof value + 1], *p = digits + sizeof digits - 1;

    *p = '\0';
    do {
        *--p = "0123456789abcdef"[value % 16];
        value /= 16;
    } while (value != 0);
    *--p = 'x';
    *--p = '0';
    slim_check_text_add(out, p);
}

void slim_check_text_decimal(struct slim_check_text *out, unsigned long value)
{
    char digits[24], *p = digits + sizeof digits - 1;

    *p = '\0';
    do {
        *--p = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    slim_check_text_add(out, p);
}

void slim_check_text_begin(struct slim_check_text *out, const char *title)
{
    out->length = 0;
    out->text[0] = '\0';
    slim_check_text_add(out, CHECK_PREFIX);
    slim_check_text_add(out, title);
    slim_check_text_add(out, "\n");
}

/* The preferred base the linker gave the module, from its PE header: what
 * addr2line counts addresses from. */
static uintptr_t preferred_base(const unsigned char *base)
{
    const IMAGE_DOS_HEADER *dos = (const IMAGE_DOS_HEADER *)base;
    const IMAGE_NT_HEADERS *nt;

    if (dos->e_magic != IMAGE_DOS_SIGNATURE)
        return 0;
    nt = (const IMAGE_NT_HEADERS *)(base + dos->e_lfanew);
    return nt->Signature == IMAGE_NT_SIGNATURE ? (uintptr_t)nt->OptionalHeader.ImageBase : 0;
}

/* The module's file name without its directory. VirtualQuery finds the
 * module's base without the loader lock; GetModuleFileName may take it, so
 * no lock of the checker is held here. */
static const char *module_of(void *address, char *name, uintptr_t *base)
{
    MEMORY_BASIC_INFORMATION region;
    const char *last = name;
    DWORD length;

    if (VirtualQuery(address, &region, sizeof region) == 0 || region.AllocationBase == NULL ||
        region.Type != MEM_IMAGE)
        return NULL;
    *base = (uintptr_t)region.AllocationBase;
    length = GetModuleFileNameA((HMODULE)region.AllocationBase, name, MODULE_NAME_MAX);
    if (length == 0 || length >= MODULE_NAME_MAX)
        return NULL;
    for (const char *p = name; *p != '\0'; p++)
        if (*p == '\\' || *p == '/')
            last = p + 1;
    return last;
}

void slim_check_text_site(struct slim_check_text *out, void *site)
{
    char name[MODULE_NAME_MAX];
    uintptr_t base = 0, call, preferred;
    const char *module;

    if (site == NULL) {
        slim_check_text_add(out, "(unknown)");
        return;
    }
    call = (uintptr_t)site - 1; /* inside the call instruction, as addr2line wants */
    module = module_of(site, name, &base);
    if (module == NULL) {
        slim_check_text_hex(out, call);
        return;
    }
    slim_check_text_add(out, module);
    slim_check_text_add(out, "+");
    slim_check_text_hex(out, call - base);
    preferred = preferred_base((const unsigned char *)base);
    if (preferred != 0) {
        slim_check_text_add(out, " (addr2line -f -e ");
        slim_check_text_add(out, module);
        slim_check_text_add(out, " ");
        slim_check_text_hex(out, preferred + (call - base));
        slim_check_text_add(out, ")");
    }
}

static const char *kind_name(int kind)
{
    static const char *const mutex_kinds[] = {"DEFAULT", "RECURSIVE", "ERRORCHECK", "NORMAL"};

    if (kind & SLIM_CHECK_UNUSABLE)
        return "destroyed, or not initialized";
    switch (kind) {
    case SLIM_CHECK_RWLOCK_READ:
        return "held for reading";
    case SLIM_CHECK_RWLOCK_WRITE:
        return "held for writing";
    default:
        if (kind >= 0 && kind < SLIM_CHECK_ROBUST)
            return mutex_kinds[kind];
        if (kind >= SLIM_CHECK_ROBUST && kind < SLIM_CHECK_ROBUST + 4)
            return mutex_kinds[kind - SLIM_CHECK_ROBUST];
        return NULL;
    }
}

static const char *object_name(int kind)
{
    switch (kind & ~SLIM_CHECK_UNUSABLE) {
    case SLIM_CHECK_RWLOCK_READ:
    case SLIM_CHECK_RWLOCK_WRITE:
    case SLIM_CHECK_RWLOCK:
        return "rwlock ";
    case SLIM_CHECK_COND:
        return "cond ";
    case SLIM_CHECK_BARRIER:
        return "barrier ";
    case SLIM_CHECK_SPINLOCK:
        return "spinlock ";
    case SLIM_CHECK_SEMAPHORE:
        return "semaphore ";
    default:
        return "mutex ";
    }
}

/* Mutexes and rwlocks are in the order graph, which keeps their init sites. */
static int in_graph(int kind)
{
    int object = kind & ~SLIM_CHECK_UNUSABLE;

    return object <= SLIM_CHECK_RWLOCK || object == SLIM_CHECK_KIND_UNKNOWN;
}

void slim_check_text_lock(struct slim_check_text *out, const void *lock, int kind, void *init_site)
{
    const char *name = kind_name(kind);

    slim_check_text_add(out, object_name(kind));
    slim_check_text_hex(out, (uintptr_t)lock);
    if (!in_graph(kind)) { /* their inits are not followed */
        if (name != NULL) {
            slim_check_text_add(out, " (");
            slim_check_text_add(out, name);
            slim_check_text_add(out, ")");
        }
        return;
    }
    slim_check_text_add(out, " (");
    if (kind >= SLIM_CHECK_ROBUST && kind < SLIM_CHECK_ROBUST + 4)
        slim_check_text_add(out, "robust ");
    if (name != NULL) {
        slim_check_text_add(out, name);
        slim_check_text_add(out, ", ");
    }
    if (init_site != NULL) {
        slim_check_text_add(out, "initialized at ");
        slim_check_text_site(out, init_site);
    } else {
        slim_check_text_add(out, "init not seen: static or earlier");
    }
    slim_check_text_add(out, ")");
}

void slim_check_text_thread(struct slim_check_text *out, unsigned long id, void *site)
{
    slim_check_text_add(out, "  thread ");
    slim_check_text_decimal(out, id);
    slim_check_text_add(out, site != NULL ? ", at " : ", at its exit");
    if (site != NULL)
        slim_check_text_site(out, site);
    slim_check_text_add(out, "\n");
}

static void write_out(const char *text, size_t length)
{
    DWORD written;

    slim_check_settings();
    AcquireSRWLockExclusive(&write_lock);
    WriteFile(output, text, (DWORD)length, &written, NULL);
    ReleaseSRWLockExclusive(&write_lock);
}

void slim_check_report(struct slim_check_text *out)
{
    if (slim_load_acquire(&aborting))
        return; /* abort() runs exit paths that would report on */
    if (abort_after_report && slim_swap(&aborting, 1) != 0)
        return;
    write_out(out->text, out->length);
    if (abort_after_report)
        abort();
}

void slim_check_notice(const char *text)
{
    struct slim_check_text out;

    slim_check_text_begin(&out, text);
    write_out(out.text, out.length);
}

#endif /* SLIMPTHREADS_CHECKED */

#include "code_end.h"
