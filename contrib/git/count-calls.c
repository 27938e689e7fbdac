/*
 * count-calls.c - the counting scaffold of try-git.sh (SLIM_GIT_COUNT=1).
 *
 * Linked into a third git.exe whose drop-in pthread.c is compiled with
 * -finstrument-functions and whose callers see SLIMPTHREADS_NO_INLINE (every
 * pthread call enters the library): GCC then calls __cyg_profile_func_enter
 * at the entry of each of the library's functions, inlined ones included.
 * This file counts those entries per function and, at the exit of each
 * process, appends them to the file named by SLIM_COUNT_FILE: a line
 * "process PID COMMAND LINE", then "fn ADDRESS COUNT" lines, ADDRESS as the
 * linker placed the function (nm prints the same), then "end". One write per
 * process, so that the processes of one step (checkout's workers, repack's
 * pack-objects) can share the file. Compiled without the instrumentation.
 */
#include <windows.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SLOTS 4096 /* functions counted at most: the library has about 600 */
#define REPORT_BYTES (1 << 20)

static void *volatile functions[SLOTS];
static volatile long long counts[SLOTS];
static volatile long uncounted;

/* An open-addressing table, filled lock-free: a slot, once it names a
 * function, names it for good. */
__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *function, void *site)
{
    unsigned long slot = (unsigned long)(((uintptr_t)function >> 4) * 2654435761u) % SLOTS;
    unsigned tries;

    (void)site;
    for (tries = 0; tries < SLOTS; tries++, slot = (slot + 1) % SLOTS) {
        void *seen = functions[slot];

        if (seen == NULL && __sync_bool_compare_and_swap(&functions[slot], NULL, function))
            seen = function;
        else
            seen = functions[slot];
        if (seen == function) {
            __atomic_add_fetch(&counts[slot], 1, __ATOMIC_RELAXED);
            return;
        }
    }
    __atomic_add_fetch(&uncounted, 1, __ATOMIC_RELAXED);
}

__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *function, void *site)
{
    (void)function;
    (void)site;
}

__attribute__((no_instrument_function, destructor)) static void report_counts(void)
{
    char path[MAX_PATH];
    DWORD length = GetEnvironmentVariableA("SLIM_COUNT_FILE", path, sizeof path), written;
    uintptr_t base = (uintptr_t)GetModuleHandleA(NULL);
    const IMAGE_DOS_HEADER *dos = (const IMAGE_DOS_HEADER *)base;
    const IMAGE_NT_HEADERS *nt = (const IMAGE_NT_HEADERS *)(base + (uintptr_t)dos->e_lfanew);
    unsigned long long linked_base = nt->OptionalHeader.ImageBase;
    size_t used = 0;
    char *report;
    HANDLE file;
    unsigned slot;

    if (length == 0 || length >= sizeof path || (report = malloc(REPORT_BYTES)) == NULL)
        return;
    used += snprintf(report + used, REPORT_BYTES - used, "process %lu %.300s\n",
                     GetCurrentProcessId(), GetCommandLineA());
    for (slot = 0; slot < SLOTS && used + 64 < REPORT_BYTES; slot++)
        if (functions[slot] != NULL)
            used += snprintf(report + used, REPORT_BYTES - used, "fn %016llx %lld\n",
                             (unsigned long long)((uintptr_t)functions[slot] - base) + linked_base,
                             counts[slot]);
    used += snprintf(report + used, REPORT_BYTES - used, "uncounted %ld\nend\n", uncounted);
    file = CreateFileA(path, FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                       OPEN_ALWAYS, 0, NULL);
    if (file != INVALID_HANDLE_VALUE) {
        WriteFile(file, report, (DWORD)used, &written, NULL);
        CloseHandle(file);
    }
    free(report);
}
