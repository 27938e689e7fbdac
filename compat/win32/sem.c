/*
 * sem.c - unnamed POSIX semaphores: a count in user memory that sleeps with
 * WaitOnAddress and wakes with WakeByAddress. No kernel object, no global lock.
 *
 * One word, sem->__value (a 32-bit long), holds everything sem_post needs:
 *   low 31 bits  TOKENS, 0 .. SEM_VALUE_MAX
 *   top bit      SLEEPERS: somebody may be asleep, so sem_post must wake
 * sem->__waiters counts threads in the sleeping part of a wait: only a hint,
 * read by sem_post to choose between waking one and waking all.
 *
 * Who wakes whom, and why no wakeup is lost:
 * - A waiter that finds no token counts itself in __waiters, sets SLEEPERS
 *   (CAS 0 -> SLEEPERS) and sleeps only while the word is exactly SLEEPERS
 *   (no token, flag set): WaitOnAddress compares and sleeps atomically with
 *   respect to wakes, so a post that adds a token either happens before the
 *   compare (no sleep) or finds the flag and wakes it.
 * - A post that finds SLEEPERS wakes. With more than one waiter counted it
 *   keeps the flag and wakes one: the next post wakes the next. Otherwise it
 *   clears the flag and wakes all, so that a waiter the hint missed (it counted
 *   itself after the post read the count) is woken too.
 * - A woken waiter takes a token like anybody else (no hand-over: semaphores
 *   promise no fairness) and sleeps again if another thread was quicker.
 * sem_post reads __waiters BEFORE its CAS on __value, and afterwards uses the
 * address only as a key for the wake: a waiter that got its token may destroy
 * or free the semaphore at once while sem_post is still running (the shape of
 * glibc bug 12674).
 *
 * Named semaphores (sem_open) are Windows kernel semaphores named
 * "Local\\slimpthreads-sem-NAME", so that other processes of the session share
 * them; sem->__named holds the handle and every sem_* call checks it first (one
 * load on the unnamed path). A process-wide list, under a lock taken only by
 * sem_open and sem_close, gives one address per name and counts the opens.
 * Windows keeps a name as long as a handle is open: sem_unlink cannot free
 * the name early (see sem_unlink).
 */
#include "internal.h"

#include <stdarg.h>
#include <string.h>

SLIM_STATIC_ASSERT(sizeof(long) == 4, "the token count and its flag share one 32-bit word");
SLIM_STATIC_ASSERT(SEM_VALUE_MAX == LONG_MAX, "the tokens are the low 31 bits of the word");

#define TOKENS_MASK SEM_VALUE_MAX
#define SLEEPERS LONG_MIN /* the top bit */

static long tokens_of(long value)
{
    return value & TOKENS_MASK;
}

static int fail(int error)
{
    errno = error;
    return -1;
}

/* One token if there is one: 0, else EAGAIN. Keeps the SLEEPERS flag. */
static int take_token(sem_t *sem)
{
    long value = slim_load_relaxed(&sem->__value);

    while (tokens_of(value) > 0) {
        if (slim_cas(&sem->__value, value, value - 1))
            return 0;
        value = slim_load_relaxed(&sem->__value);
    }
    return EAGAIN;
}

/* Sleeps until a token is ours (0) or the deadline passes (ETIMEDOUT); a
 * cancellable wait also ends with ECANCELED. Takes a token left at the deadline
 * rather than report a timeout next to it. */
int slim_sem_wait(sem_t *sem, const struct slim_deadline *deadline, enum slim_wait_kind kind)
{
    struct slim_spin spin;
    int error = 0;

    if (take_token(sem) == 0)
        return 0;
    slim_spin_begin(&spin);
    while (tokens_of(slim_load_relaxed(&sem->__value)) == 0 && slim_spin_again(&spin))
        continue;
    for (;;) {
        if (take_token(sem) == 0)
            return 0;
        if (error == ETIMEDOUT || error == ECANCELED)
            return error;
        slim_increment(&sem->__waiters);
        slim_cas(&sem->__value, 0, SLEEPERS);
        if (kind == SLIM_WAIT_CANCELLABLE)
            error = slim_wait_on_cancellable(&sem->__value, SLEEPERS, deadline);
        else
            error = slim_wait_on(&sem->__value, SLEEPERS, deadline);
        slim_decrement(&sem->__waiters);
    }
}

int slim_sem_post(sem_t *sem)
{
    long value, desired, waiters;

    do {
        /* Read before the CAS: after it, this semaphore may be gone. */
        waiters = slim_load_relaxed(&sem->__waiters);
        value = slim_load_relaxed(&sem->__value);
        if (tokens_of(value) == SEM_VALUE_MAX)
            return EOVERFLOW;
        desired = value + 1;
        if (waiters <= 1)
            desired = tokens_of(desired);
    } while (!slim_cas(&sem->__value, value, desired));
    if (value & SLEEPERS) {
        if (desired & SLEEPERS)
            slim_wake_one(&sem->__value);
        else
            slim_wake_all(&sem->__value);
    }
    return 0;
}

/* An unnamed semaphore's blocking wait, as a cancellation point: acts on a
 * cancellation request (which never takes a token) or returns 0 / -1 + errno. */
static int unnamed_wait(sem_t *sem, const struct slim_deadline *deadline)
{
    int error = slim_sem_wait(sem, deadline, SLIM_WAIT_CANCELLABLE);

    if (error == ECANCELED)
        slim_cancel_act();
    return error == 0 ? 0 : fail(error);
}

/* ---- Named semaphores: the kernel semaphore in sem->__named ---- */

/* A deadline that has always passed: sem_trywait on a named semaphore. */
static const struct slim_deadline no_wait = {0, CLOCK_MONOTONIC, {0, 0}};

/* sem_wait (deadline NULL), sem_trywait (&no_wait: EAGAIN) and the timed waits. */
static int named_wait(sem_t *sem, const struct slim_deadline *deadline)
{
    int blocking = deadline != &no_wait;

    for (;;) {
        DWORD timeout_ms = blocking ? slim_deadline_remaining_ms(deadline) : 0;
        DWORD result;

        /* A cancellation point: pthread_cancel's APC ends the alertable wait. */
        if (blocking)
            pthread_testcancel();
        result = WaitForSingleObjectEx((HANDLE)sem->__named, timeout_ms, blocking);
        if (result == WAIT_OBJECT_0)
            return 0;
        if (result == WAIT_IO_COMPLETION)
            continue;
        if (result != WAIT_TIMEOUT)
            return fail(EINVAL);
        if (deadline == &no_wait)
            return fail(EAGAIN);
        /* The tick may end a wait short of a deadline on another clock. */
        if (slim_deadline_passed(deadline))
            return fail(ETIMEDOUT);
    }
}

static int named_post(sem_t *sem)
{
    if (ReleaseSemaphore((HANDLE)sem->__named, 1, NULL))
        return 0;
    return fail(GetLastError() == ERROR_TOO_MANY_POSTS ? EOVERFLOW : EINVAL);
}

/* Windows has no documented call for a semaphore's count; ntdll's
 * NtQuerySemaphore (SemaphoreBasicInformation) gives it. */
struct semaphore_basic_information {
    ULONG current_count;
    ULONG maximum_count;
};
typedef LONG(NTAPI *query_semaphore_fn)(HANDLE, int, void *, ULONG, ULONG *);
#define SEMAPHORE_BASIC_INFORMATION_CLASS 0

static int named_getvalue(sem_t *sem, int *value)
{
    static query_semaphore_fn query; /* racing first callers store the same value */
    struct semaphore_basic_information information;

    if (query == NULL)
        query = (query_semaphore_fn)(void (*)(void))GetProcAddress(
            GetModuleHandleW(L"ntdll.dll"), "NtQuerySemaphore");
    if (query == NULL)
        return fail(ENOSYS);
    if (query((HANDLE)sem->__named, SEMAPHORE_BASIC_INFORMATION_CLASS, &information,
              sizeof information, NULL) < 0)
        return fail(EINVAL);
    *value = (int)information.current_count;
    return 0;
}

/* ---- Unnamed semaphores ---- */

int sem_init(sem_t *sem, int pshared, unsigned int value)
{
    if (sem == NULL || value > (unsigned int)SEM_VALUE_MAX)
        return fail(EINVAL);
    /* The word lives in this process's memory and WaitOnAddress does not cross
     * processes: POSIX's answer for "no process-shared semaphores". */
    if (pshared != 0)
        return fail(ENOSYS);
    sem->__value = (long)value;
    sem->__waiters = 0;
    sem->__named = NULL;
    return 0;
}

int sem_destroy(sem_t *sem)
{
    if (sem == NULL || sem->__named != NULL) /* a named one ends with sem_close */
        return fail(EINVAL);
    /* Threads still inside a sleeping wait: POSIX leaves this undefined; say so. */
    if (slim_load_acquire(&sem->__waiters) != 0)
        return fail(EBUSY);
    return 0;
}

int sem_trywait(sem_t *sem)
{
    if (sem == NULL)
        return fail(EINVAL);
    if (sem->__named != NULL)
        return named_wait(sem, &no_wait);
    return take_token(sem) == 0 ? 0 : fail(EAGAIN);
}

int sem_wait(sem_t *sem)
{
    if (sem == NULL)
        return fail(EINVAL);
    if (sem->__named != NULL)
        return named_wait(sem, NULL);
    if (take_token(sem) == 0)
        return 0;
    return unnamed_wait(sem, NULL);
}

int sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *abstime)
{
    struct slim_deadline deadline;
    int error;

    if (sem == NULL || (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC))
        return fail(EINVAL);
    /* POSIX: abstime need not be checked when the wait would not block. */
    if (sem->__named != NULL ? named_wait(sem, &no_wait) == 0 : take_token(sem) == 0)
        return 0;
    error = slim_deadline_absolute(&deadline, clock, abstime);
    if (error != 0)
        return fail(error);
    if (sem->__named != NULL)
        return named_wait(sem, &deadline);
    return unnamed_wait(sem, &deadline);
}

int sem_timedwait(sem_t *sem, const struct timespec *abstime)
{
    return sem_clockwait(sem, CLOCK_REALTIME, abstime);
}

int sem_post(sem_t *sem)
{
    int error;

    if (sem == NULL)
        return fail(EINVAL);
    if (sem->__named != NULL)
        return named_post(sem);
    error = slim_sem_post(sem);
    return error == 0 ? 0 : fail(error);
}

int sem_getvalue(sem_t *sem, int *value)
{
    if (sem == NULL || value == NULL)
        return fail(EINVAL);
    if (sem->__named != NULL)
        return named_getvalue(sem, value);
    /* Like glibc: 0, never a negative count, while threads wait. */
    *value = (int)tokens_of(slim_load_relaxed(&sem->__value));
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
