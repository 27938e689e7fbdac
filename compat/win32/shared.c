/*
 * shared.c - process-shared objects' ids and doorbells (shared.h tells why a
 * shared object sleeps on a named kernel semaphore, and who opens it when).
 *
 * Names live in the logon session's Local\ namespace, made with the default
 * security of the maker's token: processes of the same user in the same
 * session can open them (and administrators), no one else; README.md,
 * Process-shared objects, says so to users. Every name
 * begins with slimpthreads-1-, the library and the layout of its objects, so
 * it meets no other program's objects, and no object of an incompatible build.
 */
#include "shared.h"
#include "atomic.h"

#include <string.h>

#define NAME_PREFIX L"Local\\slimpthreads-1-"
/* The prefix, "bell-", two 8-digit hex numbers with a dash between, the NUL. */
#define DOORBELL_NAME_CHARS 64
#define HEX_DIGITS_BITS 32
/* A doorbell counts tokens up to this: far above any number of sleepers. */
#define DOORBELL_MOST_TOKENS LONG_MAX

/* ---- Object ids: one counter per session, mapped once per process ---- */

/* The counter's page: the one mapping a process keeps for shared objects,
 * mapped by the first caller and kept until the process ends, with its handle:
 * a named object's name lives only as long as a handle to it (a view is not
 * one), and the counter must outlive any one process that uses it. */
static volatile long *volatile id_counter;

/* A nonzero start for a counter made anew: the clock and the process, so that
 * counters made at different times start far apart. */
static long fresh_counter_start(void)
{
    LARGE_INTEGER now;
    unsigned long mixed;

    QueryPerformanceCounter(&now);
    mixed = (unsigned long)now.QuadPart ^ (unsigned long)(now.QuadPart >> 32) ^
            (GetCurrentProcessId() << 16);
    return mixed == 0 ? 1 : (long)mixed;
}

static int map_id_counter(volatile long **counter)
{
    HANDLE mapping;
    void *view, *seen;
    int error;

    mapping = CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, sizeof(long),
                                 NAME_PREFIX L"ids");
    if (mapping == NULL)
        return slim_errno_from_win32(GetLastError());
    view = MapViewOfFile(mapping, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, sizeof(long));
    if (view == NULL) {
        error = slim_errno_from_win32(GetLastError());
        CloseHandle(mapping);
        return error;
    }
    seen = NULL;
    if (slim_pointer_cas_acq_rel_seen((void *volatile *)&id_counter, &seen, view)) {
        *counter = view; /* the handle stays open: a view alone does not keep the name */
        return 0;
    }
    UnmapViewOfFile(view); /* a racing thread mapped it first: keep its view */
    CloseHandle(mapping);
    *counter = seen;
    return 0;
}

int slim_shared_id_new(unsigned long *id)
{
    volatile long *counter = slim_pointer_load_acquire((void *volatile *)&id_counter);
    unsigned long value;
    int error;

    if (counter == NULL && (error = map_id_counter(&counter)) != 0)
        return error;
    /* A counter made anew reads 0: the first process to see it starts it. */
    slim_cas(counter, 0, fresh_counter_start());
    do
        value = (unsigned long)slim_increment(counter);
    while (value == 0);
    *id = value;
    return 0;
}

/* ---- Doorbells ---- */

/* Appends value as 8 hex digits: no printf, whose varargs an emulated aarch64
 * Wine does not pass right (the library calls no formatted output). */
static wchar_t *append_hex(wchar_t *out, unsigned long value)
{
    static const wchar_t digits[] = L"0123456789abcdef";
    int shift;

    for (shift = HEX_DIGITS_BITS - 4; shift >= 0; shift -= 4)
        *out++ = digits[(value >> shift) & 0xf];
    return out;
}

static void doorbell_name(const struct slim_doorbell *doorbell, wchar_t *name)
{
    static const wchar_t prefix[] = NAME_PREFIX L"bell-";
    wchar_t *out = name;

    memcpy(out, prefix, sizeof prefix - sizeof(wchar_t));
    out += sizeof prefix / sizeof(wchar_t) - 1;
    out = append_hex(out, doorbell->object_id);
    *out++ = L'-';
    out = append_hex(out, doorbell->generation);
    *out = L'\0';
}

HANDLE slim_doorbell_open(const struct slim_doorbell *doorbell)
{
    wchar_t name[DOORBELL_NAME_CHARS];

    doorbell_name(doorbell, name);
    return CreateSemaphoreExW(NULL, 0, DOORBELL_MOST_TOKENS, name, 0,
                              SYNCHRONIZE | SEMAPHORE_MODIFY_STATE);
}

void slim_doorbell_ring(const struct slim_doorbell *doorbell, long wakes)
{
    wchar_t name[DOORBELL_NAME_CHARS];
    HANDLE bell;

    doorbell_name(doorbell, name);
    bell = OpenSemaphoreW(SEMAPHORE_MODIFY_STATE, FALSE, name);
    if (bell == NULL)
        return; /* nobody has passed a first look: the word tells them */
    /* Fails only at DOORBELL_MOST_TOKENS: the tokens there wake them all. */
    ReleaseSemaphore(bell, wakes > 0 ? wakes : 1, NULL);
    CloseHandle(bell);
}

int slim_doorbell_is_open(const struct slim_doorbell *doorbell)
{
    wchar_t name[DOORBELL_NAME_CHARS];
    HANDLE bell;

    doorbell_name(doorbell, name);
    bell = OpenSemaphoreW(SYNCHRONIZE, FALSE, name);
    if (bell == NULL)
        return 0;
    CloseHandle(bell);
    return 1;
}

#include "code_end.h"
