/*
 * thread_name.c - pthread_setname_np / pthread_getname_np on SetThreadDescription.
 *
 * A thread's name lives with Windows, as its description, where debuggers and
 * profilers read it; we keep no copy. Never the 0x406D1388 debugger exception
 * that winpthreads raises (it stops programs under a debugger). Names are
 * UTF-8 of at most 15 bytes, as glibc's; a longer description that Windows code
 * set is cut at a character boundary when read back.
 */
#include "thread_record.h"

#include <string.h>

/* Windows 10 1607 and later; older headers and systems lack them, so they are
 * looked up once. Without them the name calls fail with ENOTSUP. */
typedef HRESULT(WINAPI *set_description_function)(HANDLE thread, PCWSTR description);
typedef HRESULT(WINAPI *get_description_function)(HANDLE thread, PWSTR *description);

static set_description_function set_description;
static get_description_function get_description;
static volatile long descriptions_resolved;

#define NAME_SIZE_MAX 16 /* glibc's: 15 characters and the terminator */

static void (*resolve_function(const char *name))(void)
{
    static const wchar_t *const modules[] = {L"kernel32.dll", L"kernelbase.dll"};
    HMODULE module;
    FARPROC function;
    size_t i;

    for (i = 0; i < sizeof modules / sizeof modules[0]; i++) {
        module = GetModuleHandleW(modules[i]);
        function = module != NULL ? GetProcAddress(module, name) : NULL;
        if (function != NULL)
            return (void (*)(void))function;
    }
    return NULL;
}

/* Racing callers resolve the same addresses: the race is harmless. */
static int resolve_descriptions(void)
{
    if (!slim_load_acquire(&descriptions_resolved)) {
        set_description = (set_description_function)resolve_function("SetThreadDescription");
        get_description = (get_description_function)resolve_function("GetThreadDescription");
        slim_store_release(&descriptions_resolved, 1);
    }
    return set_description != NULL && get_description != NULL;
}

int pthread_setname_np(pthread_t thread, const char *name)
{
    struct slim_thread *target = slim_thread_checked(thread);
    wchar_t wide[NAME_SIZE_MAX];
    HRESULT result;

    if (target == NULL)
        return ESRCH;
    if (name == NULL)
        return EINVAL;
    if (strlen(name) >= NAME_SIZE_MAX)
        return ERANGE;
    if (!resolve_descriptions())
        return ENOTSUP;
    if (MultiByteToWideChar(CP_UTF8, 0, name, -1, wide, NAME_SIZE_MAX) == 0)
        return EINVAL;
    result = set_description(target->handle, wide);
    return FAILED(result) ? slim_errno_from_win32(HRESULT_CODE(result)) : 0;
}

/* Copies the UTF-8 form of wide into name, cut at a character boundary to fit
 * size bytes (names set by Windows code may be longer than POSIX ones). */
static int copy_name(const wchar_t *wide, char *name, size_t size)
{
    int length = WideCharToMultiByte(CP_UTF8, 0, wide, -1, NULL, 0, NULL, NULL);
    char *utf8;
    size_t kept;

    if (length <= 0)
        return EINVAL;
    utf8 = malloc((size_t)length);
    if (utf8 == NULL)
        return ENOMEM;
    WideCharToMultiByte(CP_UTF8, 0, wide, -1, utf8, length, NULL, NULL);
    kept = strlen(utf8);
    if (kept >= size) {
        kept = size - 1;
        while (kept > 0 && ((unsigned char)utf8[kept] & 0xC0) == 0x80) /* a continuation byte */
            kept--;
    }
    memcpy(name, utf8, kept);
    name[kept] = '\0';
    free(utf8);
    return 0;
}

/* Frees the description GetThreadDescription allocated. On aarch64, x18 holds
 * the TEB and Windows preserves it across every call; Debian's arm64 Wine 8 runs
 * LocalFree as Linux code that returns with x18 clobbered, and our next TEB read
 * then faults. Putting the value back costs one move and changes nothing where
 * the callee kept it, as Windows does. */
static void free_description(wchar_t *wide)
{
#if defined(__aarch64__)
    void *teb;

    __asm__ __volatile__("mov %0, x18" : "=r"(teb));
    LocalFree(wide);
    __asm__ __volatile__("mov x18, %0" : : "r"(teb) : "memory");
#else
    LocalFree(wide);
#endif
}

int pthread_getname_np(pthread_t thread, char *name, size_t size)
{
    struct slim_thread *target = slim_thread_checked(thread);
    wchar_t *wide = NULL;
    HRESULT result;
    int error;

    if (target == NULL)
        return ESRCH;
    if (name == NULL)
        return EINVAL;
    if (size < NAME_SIZE_MAX)
        return ERANGE;
    if (!resolve_descriptions())
        return ENOTSUP;
    result = get_description(target->handle, &wide);
    if (FAILED(result))
        return slim_errno_from_win32(HRESULT_CODE(result));
    error = copy_name(wide, name, size);
    free_description(wide);
    return error;
}

#include "code_end.h"
