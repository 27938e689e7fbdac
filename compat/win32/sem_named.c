/*
 * sem_named.c - named POSIX semaphores (sem_open, sem_close, sem_unlink) on
 * Windows kernel semaphores named "Local\\slimpthreads-sem-NAME", so that other
 * processes of the session share them. sem->__named holds the handle; sem.c's
 * sem_* calls hand a named semaphore over to the slim_sem_named_* calls here.
 * Waits travel the wait entry (wait.c: slim_wait_on_handle), alertable so that
 * pthread_cancel's APC ends them.
 *
 * A process-wide list, under a lock taken only by sem_open, sem_close and
 * sem_unlink, gives one address per name and counts the opens. States of an
 * entry: OPEN (found by sem_open), UNLINKED (sem_unlink was called: still
 * usable by its holders, never returned by sem_open again), freed at its last
 * sem_close. Windows keeps a name as long as a handle is open: sem_unlink
 * cannot free the name early (see sem_unlink).
 */
#include "internal.h"

#include <stdarg.h>
#include <string.h>

static int fail(int error)
{
    errno = error;
    return -1;
}

/* ---- Waiting, posting, reading the count ---- */

int slim_sem_named_wait(sem_t *sem, const struct slim_deadline *deadline, int try_only)
{
    struct slim_deadline no_wait = {CLOCK_MONOTONIC, 0}; /* has always passed */
    int error;

    if (try_only)
        error = slim_wait_on_handle((HANDLE)sem->__named, &no_wait, SLIM_WAIT_PLAIN);
    else
        error = slim_wait_on_handle((HANDLE)sem->__named, deadline, SLIM_WAIT_CANCELLABLE);
    if (error == ECANCELED)
        slim_cancel_act();
    if (try_only && error == ETIMEDOUT)
        return EAGAIN;
    return error;
}

int slim_sem_named_post(sem_t *sem)
{
    if (ReleaseSemaphore((HANDLE)sem->__named, 1, NULL))
        return 0;
    return GetLastError() == ERROR_TOO_MANY_POSTS ? EOVERFLOW : EINVAL;
}

/* Windows has no documented call for a semaphore's count; ntdll's
 * NtQuerySemaphore (SemaphoreBasicInformation) gives it. */
struct semaphore_basic_information {
    ULONG current_count;
    ULONG maximum_count;
};
typedef LONG(NTAPI *query_semaphore_fn)(HANDLE, int, void *, ULONG, ULONG *);
#define SEMAPHORE_BASIC_INFORMATION_CLASS 0

int slim_sem_named_getvalue(sem_t *sem, int *value)
{
    static query_semaphore_fn query; /* racing first callers store the same value */
    struct semaphore_basic_information information;

    if (query == NULL)
        query = (query_semaphore_fn)(void (*)(void))GetProcAddress(
            GetModuleHandleW(L"ntdll.dll"), "NtQuerySemaphore");
    if (query == NULL)
        return ENOSYS;
    if (query((HANDLE)sem->__named, SEMAPHORE_BASIC_INFORMATION_CLASS, &information,
              sizeof information, NULL) < 0)
        return EINVAL;
    *value = (int)information.current_count;
    return 0;
}

/* ---- sem_open, sem_close, sem_unlink ---- */

#define SEM_NAME_MAX 255 /* NAME_MAX, as on Linux; MinGW hides it */
#define KERNEL_NAME_PREFIX L"Local\\slimpthreads-sem-"
#define KERNEL_NAME_MAX (sizeof KERNEL_NAME_PREFIX / sizeof(WCHAR) + SEM_NAME_MAX + 1)

/* One per name open in this process: sem_open returns the same address for
 * the same name until the last matching sem_close (or a sem_unlink). */
struct named_semaphore {
    sem_t sem; /* first: sem_close finds the entry from the sem_t address */
    struct named_semaphore *next;
    long opens;
    int unlinked; /* sem_unlink was called: later sem_opens get a new entry */
    char name[SEM_NAME_MAX + 1];
};

static SRWLOCK named_lock = SRWLOCK_INIT; /* sem_open and sem_close only */
static struct named_semaphore *named_list;

/* POSIX names: leading slashes, then a nonempty name without slashes.
 * Stores the part after the slashes; 0 or the errno. */
static int parse_name(const char *name, char *out)
{
    size_t length;

    if (name == NULL)
        return EINVAL;
    while (*name == '/')
        name++;
    length = strlen(name);
    if (length == 0 || strchr(name, '/') != NULL || strchr(name, '\\') != NULL ||
        strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return EINVAL;
    if (length > SEM_NAME_MAX)
        return ENAMETOOLONG;
    memcpy(out, name, length + 1);
    return 0;
}

/* The kernel object's name: a fixed prefix and the name in UTF-16. */
static int kernel_name(const char *name, WCHAR *out)
{
    size_t prefix = sizeof KERNEL_NAME_PREFIX / sizeof(WCHAR) - 1;

    memcpy(out, KERNEL_NAME_PREFIX, prefix * sizeof(WCHAR));
    if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, name, -1, out + prefix,
                            (int)(KERNEL_NAME_MAX - prefix)) == 0)
        return EINVAL;
    return 0;
}

static struct named_semaphore *find_open(const char *name)
{
    struct named_semaphore *entry;

    for (entry = named_list; entry != NULL; entry = entry->next)
        if (!entry->unlinked && strcmp(entry->name, name) == 0)
            return entry;
    return NULL;
}

/* Opens or creates the kernel semaphore: its handle, or NULL with *error set. */
static HANDLE open_kernel_semaphore(const WCHAR *name, int oflag, unsigned value, int *error)
{
    HANDLE handle;

    if (!(oflag & O_CREAT)) {
        handle = OpenSemaphoreW(SEMAPHORE_ALL_ACCESS, FALSE, name);
        if (handle == NULL)
            *error = slim_errno_from_win32(GetLastError());
        return handle;
    }
    if (value > (unsigned)SEM_VALUE_MAX) {
        *error = EINVAL;
        return NULL;
    }
    handle = CreateSemaphoreW(NULL, (LONG)value, SEM_VALUE_MAX, name);
    if (handle == NULL) {
        /* A kernel object of another type holds the name. */
        DWORD win32_error = GetLastError();

        *error = win32_error == ERROR_INVALID_HANDLE ? EEXIST : slim_errno_from_win32(win32_error);
    } else if (GetLastError() == ERROR_ALREADY_EXISTS && (oflag & O_EXCL)) {
        CloseHandle(handle);
        handle = NULL;
        *error = EEXIST;
    }
    return handle;
}

static sem_t *open_locked(const char *name, int oflag, unsigned value, int *error)
{
    struct named_semaphore *entry = find_open(name);
    WCHAR wide_name[KERNEL_NAME_MAX];
    HANDLE handle;

    if (entry != NULL) {
        if ((oflag & O_CREAT) && (oflag & O_EXCL)) {
            *error = EEXIST;
            return SEM_FAILED;
        }
        entry->opens++;
        return &entry->sem;
    }
    *error = kernel_name(name, wide_name);
    if (*error != 0)
        return SEM_FAILED;
    handle = open_kernel_semaphore(wide_name, oflag, value, error);
    if (handle == NULL)
        return SEM_FAILED;
    entry = calloc(1, sizeof *entry);
    if (entry == NULL) {
        CloseHandle(handle);
        *error = ENOMEM;
        return SEM_FAILED;
    }
    entry->sem.__named = handle;
    entry->opens = 1;
    strcpy(entry->name, name);
    entry->next = named_list;
    named_list = entry;
    return &entry->sem;
}

/* sem_open(name, oflag) or, with O_CREAT, sem_open(name, oflag, mode, value).
 * The mode is not used: the semaphore is open to the session, like the
 * "Local\" namespace it lives in. */
sem_t *sem_open(const char *name, int oflag, ...)
{
    char parsed[SEM_NAME_MAX + 1];
    unsigned value = 0;
    int error = parse_name(name, parsed);
    sem_t *sem;

    if (oflag & O_CREAT) {
        va_list arguments;

        va_start(arguments, oflag);
        (void)va_arg(arguments, int); /* mode_t, promoted */
        value = va_arg(arguments, unsigned);
        va_end(arguments);
    }
    if (error != 0) {
        errno = error;
        return SEM_FAILED;
    }
    AcquireSRWLockExclusive(&named_lock);
    sem = open_locked(parsed, oflag, value, &error);
    ReleaseSRWLockExclusive(&named_lock);
    if (sem == SEM_FAILED)
        errno = error;
    return sem;
}

int sem_close(sem_t *sem)
{
    struct named_semaphore **link, *entry = NULL;

    AcquireSRWLockExclusive(&named_lock);
    for (link = &named_list; *link != NULL; link = &(*link)->next) {
        if (&(*link)->sem == sem) {
            entry = *link;
            if (--entry->opens == 0)
                *link = entry->next;
            break;
        }
    }
    ReleaseSRWLockExclusive(&named_lock);
    if (entry == NULL)
        return fail(EINVAL); /* not from sem_open, or closed already */
    if (entry->opens == 0) {
        CloseHandle((HANDLE)entry->sem.__named);
        free(entry);
    }
    return 0;
}

/* Windows frees a kernel object's name only with its last handle, so the name
 * stays until every process has closed the semaphore: until then sem_open
 * finds the old semaphore (and O_CREAT|O_EXCL fails with EEXIST). In this
 * process, sem_open stops returning the unlinked semaphore's address. */
int sem_unlink(const char *name)
{
    char parsed[SEM_NAME_MAX + 1];
    WCHAR wide_name[KERNEL_NAME_MAX];
    struct named_semaphore *entry;
    HANDLE handle;
    int error = parse_name(name, parsed);

    if (error == 0)
        error = kernel_name(parsed, wide_name);
    if (error != 0)
        return fail(error);
    AcquireSRWLockExclusive(&named_lock);
    handle = OpenSemaphoreW(SYNCHRONIZE, FALSE, wide_name);
    if (handle == NULL)
        error = slim_errno_from_win32(GetLastError());
    else
        CloseHandle(handle);
    while ((entry = find_open(parsed)) != NULL)
        entry->unlinked = 1;
    ReleaseSRWLockExclusive(&named_lock);
    return error == 0 ? 0 : fail(error);
}
