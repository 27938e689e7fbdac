/*
 * sem_named.c - named POSIX semaphores (sem_open, sem_close, sem_unlink) on
 * Windows kernel semaphores named "Local\\slimpthreads-sem-NAME", so that other
 * processes of the session share them. sem->__named holds the handle; sem.c's
 * sem_* calls hand a named semaphore over to the slim_sem_named_* calls here.
 * Waits travel the wait entry (wait.c: slim_wait over a handle), alertable so that
 * pthread_cancel's APC ends them.
 *
 * sem_unlink really unlinks, across the processes of the session: each name
 * has a small shared state (a named mapping: the generation the name leads
 * to, and whether it leads anywhere) under a named mutex, taken only by
 * sem_open and sem_unlink. Unlinking bumps the generation, and each generation
 * is a kernel semaphore of its own name, so a new O_CREAT makes a distinct
 * semaphore while holders of the old one keep using it (see struct name_state).
 *
 * A process-wide list, under a lock taken only by sem_open, sem_close and
 * sem_unlink, gives one address per (name, generation) and counts the opens.
 * States of an entry: OPEN (opens > 0, found by sem_open); CLOSED (opens 0:
 * every sem_close made, its handle kept, found by sem_open again); UNLINKED
 * (the name no longer leads to it: still usable by its holders, never
 * returned by sem_open again). OPEN -> CLOSED at the last sem_close;
 * OPEN -> UNLINKED at sem_unlink (or when found unlinked by another process),
 * freed at its last sem_close; CLOSED -> freed at sem_unlink of the name, or
 * when this process finds it unlinked. Why CLOSED keeps its handle: Windows
 * frees a kernel semaphore with its last handle, while POSIX keeps the name
 * and the value until sem_unlink. So they last as long as one process that
 * opened the semaphore runs; a semaphore whose every opener has exited is
 * gone (README.md).
 */
#include "sem_calls.h"
#include "cancel_point.h"

#include <stdarg.h>
#include <string.h>
#include <wchar.h>

/* ---- Waiting, posting, reading the count ---- */

int slim_sem_named_wait(sem_t *sem, const struct slim_deadline *deadline, int try_only)
{
    struct slim_deadline no_wait = {CLOCK_MONOTONIC, 0}; /* has always passed */
    const struct slim_wait_target target = {NULL, 0, (HANDLE)sem->__named, NULL};
    int error;

    if (try_only)
        error = slim_wait(&target, &no_wait, SLIM_WAIT_PLAIN);
    else
        error = slim_wait(&target, deadline, SLIM_WAIT_CANCELLABLE);
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
/* The kernel objects of a name. The semaphore of generation 0 keeps the plain
 * name "...sem-NAME" (what other programs open); later generations are
 * "...sem~GEN-NAME": the character after "sem" tells the forms apart, and GEN
 * is digits only, so no two (generation, name) pairs share an object name. */
#define SEMAPHORE_PREFIX L"Local\\slimpthreads-sem"
#define STATE_PREFIX L"Local\\slimpthreads-semname-"
#define LOCK_PREFIX L"Local\\slimpthreads-semlock-"
#define GENERATION_DIGITS_MAX 10 /* a LONG, and its '~' and '-' */
#define KERNEL_NAME_MAX (sizeof STATE_PREFIX / sizeof(WCHAR) + GENERATION_DIGITS_MAX + 2 + \
                         SEM_NAME_MAX + 1)

/* What a name leads to, shared by every process of the session in a small
 * named mapping that each holder of one of the name's semaphores keeps open;
 * read and written only under the name's lock (a named mutex). States:
 * UNLINKED (linked 0: sem_open without O_CREAT fails with ENOENT) and LINKED
 * (the semaphore of `generation` is the one the name leads to). sem_unlink
 * moves LINKED -> UNLINKED and bumps the generation, so the next O_CREAT makes
 * a new semaphore under a new object name while the old one lives on for its
 * holders. A fresh mapping is zero-filled: generation 0, UNLINKED. */
struct name_state {
    LONG generation;
    LONG linked;
};

/* One per (name, generation) open in this process: sem_open returns the same
 * address for it until the last matching sem_close. */
struct named_semaphore {
    sem_t sem; /* first: sem_close finds the entry from the sem_t address */
    struct named_semaphore *next;
    long opens; /* 0: CLOSED, kept for the name's sake */
    LONG generation;
    int unlinked; /* no longer what the name leads to: later sem_opens get a new entry */
    HANDLE state_mapping; /* kept open so that the name's state lives as long as we do */
    struct name_state *state;
    char name[SEM_NAME_MAX + 1];
};

static SRWLOCK named_lock = SRWLOCK_INIT; /* sem_open, sem_close and sem_unlink only */
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

/* A kernel object's name: prefix, then the name in UTF-16. 0 or EINVAL. */
static int kernel_name(const WCHAR *prefix, const char *name, WCHAR *out)
{
    size_t length = wcslen(prefix);

    memcpy(out, prefix, length * sizeof(WCHAR));
    if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, name, -1, out + length,
                            (int)(KERNEL_NAME_MAX - length)) == 0)
        return EINVAL;
    return 0;
}

static int semaphore_name(const char *name, LONG generation, WCHAR *out)
{
    WCHAR prefix[sizeof SEMAPHORE_PREFIX / sizeof(WCHAR) + GENERATION_DIGITS_MAX + 2];

    if (generation == 0)
        swprintf(prefix, sizeof prefix / sizeof prefix[0], L"%ls-", SEMAPHORE_PREFIX);
    else
        swprintf(prefix, sizeof prefix / sizeof prefix[0], L"%ls~%ld-", SEMAPHORE_PREFIX,
                 (long)generation);
    return kernel_name(prefix, name, out);
}

/* ---- The name's lock and state, shared between processes ---- */

/* The name's mutex, held: its handle, or NULL with *error set. A holder that
 * died leaves it abandoned, which still hands it over. */
static HANDLE lock_name(const char *name, int *error)
{
    WCHAR lock_name_text[KERNEL_NAME_MAX];
    HANDLE lock;

    *error = kernel_name(LOCK_PREFIX, name, lock_name_text);
    if (*error != 0)
        return NULL;
    lock = CreateMutexW(NULL, FALSE, lock_name_text);
    if (lock == NULL) {
        *error = slim_errno_from_win32(GetLastError());
        return NULL;
    }
    *error = slim_wait(&(const struct slim_wait_target){NULL, 0, lock, NULL}, NULL, SLIM_WAIT_PLAIN);
    if (*error != 0) {
        CloseHandle(lock);
        return NULL;
    }
    return lock;
}

static void unlock_name(HANDLE lock)
{
    ReleaseMutex(lock);
    CloseHandle(lock);
}

/* Maps the name's state, creating it (zero-filled) if create, else only if it
 * exists: the view, or NULL with *error set (ENOENT: no such name). */
static struct name_state *map_state(const char *name, int create, HANDLE *mapping, int *error)
{
    WCHAR state_name[KERNEL_NAME_MAX];
    struct name_state *state;

    *error = kernel_name(STATE_PREFIX, name, state_name);
    if (*error != 0)
        return NULL;
    if (create)
        *mapping = CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0,
                                      sizeof(struct name_state), state_name);
    else
        *mapping = OpenFileMappingW(FILE_MAP_READ | FILE_MAP_WRITE, FALSE, state_name);
    if (*mapping == NULL) {
        *error = slim_errno_from_win32(GetLastError());
        return NULL;
    }
    state = MapViewOfFile(*mapping, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, sizeof *state);
    if (state == NULL) {
        *error = slim_errno_from_win32(GetLastError());
        CloseHandle(*mapping);
    }
    return state;
}

static void unmap_state(HANDLE mapping, struct name_state *state)
{
    UnmapViewOfFile(state);
    CloseHandle(mapping);
}

/* Takes *link out of the list and frees it, its handles with it. */
static void forget(struct named_semaphore **link)
{
    struct named_semaphore *entry = *link;

    *link = entry->next;
    CloseHandle((HANDLE)entry->sem.__named);
    unmap_state(entry->state_mapping, entry->state);
    free(entry);
}

/* Marks the entries of name unlinked, those of every generation or (state not
 * NULL) of the generations the name no longer leads to; CLOSED ones among
 * them are freed, as nobody can reach them any more. */
static void unlink_entries(const char *name, const struct name_state *state)
{
    struct named_semaphore **link = &named_list;

    while (*link != NULL) {
        struct named_semaphore *entry = *link;

        if (strcmp(entry->name, name) != 0 ||
            (state != NULL && state->linked && entry->generation == state->generation)) {
            link = &entry->next;
            continue;
        }
        entry->unlinked = 1;
        if (entry->opens == 0)
            forget(link);
        else
            link = &entry->next;
    }
}

/* The entry for what the name leads to now, if this process has it, OPEN or
 * CLOSED; entries of older generations (another process unlinked the name)
 * are unlinked on the way. */
static struct named_semaphore *find_open(const char *name, const struct name_state *state)
{
    struct named_semaphore *entry;

    unlink_entries(name, state);
    for (entry = named_list; entry != NULL; entry = entry->next)
        if (!entry->unlinked && strcmp(entry->name, name) == 0)
            return entry;
    return NULL;
}

/* Opens the semaphore the LINKED name leads to, or (O_CREAT) creates the
 * name's semaphore: its handle, or NULL with *error set. */
static HANDLE open_kernel_semaphore(const char *name, struct name_state *state, int oflag,
                                    unsigned value, int *error)
{
    WCHAR wide_name[KERNEL_NAME_MAX];
    HANDLE handle = NULL;

    *error = semaphore_name(name, state->generation, wide_name);
    if (*error != 0)
        return NULL;
    if (state->linked) {
        if ((oflag & O_CREAT) && (oflag & O_EXCL)) {
            *error = EEXIST;
            return NULL;
        }
        handle = OpenSemaphoreW(SEMAPHORE_ALL_ACCESS, FALSE, wide_name);
        if (handle != NULL)
            return handle;
        /* Every holder closed it: Windows freed it, and the name leads nowhere. */
        state->linked = 0;
    }
    if (!(oflag & O_CREAT)) {
        *error = ENOENT;
        return NULL;
    }
    if (value > (unsigned)SEM_VALUE_MAX) {
        *error = EINVAL;
        return NULL;
    }
    handle = CreateSemaphoreW(NULL, (LONG)value, SEM_VALUE_MAX, wide_name);
    if (handle == NULL) {
        /* A kernel object of another type holds the name. */
        DWORD win32_error = GetLastError();

        *error = win32_error == ERROR_INVALID_HANDLE ? EEXIST : slim_errno_from_win32(win32_error);
        return NULL;
    }
    state->linked = 1;
    return handle;
}

static sem_t *open_locked(const char *name, int oflag, unsigned value, int *error)
{
    struct named_semaphore *entry;
    struct name_state *state;
    HANDLE mapping, handle;

    state = map_state(name, (oflag & O_CREAT) != 0, &mapping, error);
    if (state == NULL)
        return SEM_FAILED;
    entry = find_open(name, state);
    if (entry != NULL) {
        unmap_state(mapping, state);
        if ((oflag & O_CREAT) && (oflag & O_EXCL)) {
            *error = EEXIST;
            return SEM_FAILED;
        }
        entry->opens++;
        return &entry->sem;
    }
    entry = calloc(1, sizeof *entry);
    if (entry == NULL) {
        unmap_state(mapping, state);
        *error = ENOMEM;
        return SEM_FAILED;
    }
    handle = open_kernel_semaphore(name, state, oflag, value, error);
    if (handle == NULL) {
        free(entry);
        unmap_state(mapping, state);
        return SEM_FAILED;
    }
    entry->sem.__named = handle;
    entry->opens = 1;
    entry->generation = state->generation;
    entry->state_mapping = mapping;
    entry->state = state;
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
    sem_t *sem = SEM_FAILED;
    HANDLE lock;

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
    lock = lock_name(parsed, &error);
    if (lock != NULL) {
        sem = open_locked(parsed, oflag, value, &error);
        unlock_name(lock);
    }
    ReleaseSRWLockExclusive(&named_lock);
    if (sem == SEM_FAILED)
        errno = error;
    return sem;
}

/* Whether the name still leads to entry, as far as this process can tell
 * without the name's lock: another process's sem_unlink bumps the generation
 * in the shared state, which only ever grows. */
static int still_linked(const struct named_semaphore *entry)
{
    return !entry->unlinked &&
           slim_load_acquire(&entry->state->generation) == entry->generation;
}

/* The last close keeps a linked semaphore's handle (CLOSED), so that its name
 * and value last until sem_unlink; an unlinked one is freed. */
int sem_close(sem_t *sem)
{
    struct named_semaphore **link;
    int found = 0;

    AcquireSRWLockExclusive(&named_lock);
    for (link = &named_list; *link != NULL; link = &(*link)->next) {
        if (&(*link)->sem == sem && (*link)->opens > 0) {
            found = 1;
            if (--(*link)->opens == 0 && !still_linked(*link))
                forget(link);
            break;
        }
    }
    ReleaseSRWLockExclusive(&named_lock);
    return found ? 0 : slim_fail(EINVAL); /* not from sem_open, or closed already */
}

/* The name stops leading to the semaphore, in every process of the session:
 * sem_open without O_CREAT fails with ENOENT, with O_CREAT it makes a new one;
 * holders of the old one go on using it until they close it. This process's
 * CLOSED entry of the name goes now: its handle may have been the last. */
static int unlink_locked(const char *name)
{
    struct name_state *state;
    WCHAR wide_name[KERNEL_NAME_MAX];
    HANDLE mapping, handle;
    int error;

    state = map_state(name, 0, &mapping, &error);
    if (state == NULL)
        return error;
    if (state->linked) {
        error = semaphore_name(name, state->generation, wide_name);
        handle = error == 0 ? OpenSemaphoreW(SYNCHRONIZE, FALSE, wide_name) : NULL;
        if (handle != NULL)
            CloseHandle(handle);
        else if (error == 0)
            error = ENOENT; /* every holder closed it: Windows freed it already */
        state->linked = 0;
        state->generation++;
    } else {
        error = ENOENT;
    }
    unlink_entries(name, NULL);
    unmap_state(mapping, state);
    return error;
}

int sem_unlink(const char *name)
{
    char parsed[SEM_NAME_MAX + 1];
    HANDLE lock;
    int error = parse_name(name, parsed);

    if (error != 0)
        return slim_fail(error);
    AcquireSRWLockExclusive(&named_lock);
    lock = lock_name(parsed, &error);
    if (lock != NULL) {
        error = unlink_locked(parsed);
        unlock_name(lock);
    }
    ReleaseSRWLockExclusive(&named_lock);
    return error == 0 ? 0 : slim_fail(error);
}

#include "code_end.h"
