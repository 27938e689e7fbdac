/*
 * pthreads4w-shim.c - linked into the pthreads4w benchmark program only
 * (contrib/peers/build-pthreads4w.sh), so that bench/bench_posix.c builds
 * against pthreads4w 3.0.x as a static library unchanged but for one guarded line.
 *
 * 1. Initialisation. As a DLL, pthreads4w sets itself up in DllMain. As a
 *    static library (__PTW32_STATIC_LIB) its dll.c puts
 *    pthread_win32_process_attach_np() into .ctors instead. That entry sits in
 *    pthread.o, which every call pulls in, so it runs; this constructor only
 *    makes sure it did (it runs after it: .ctors runs backwards, the library is
 *    linked last), and attaches the process itself if not.
 * 2. nanosleep. pthreads4w has none (MinGW-w64's <time.h> declares the
 *    winpthreads one, which must not be linked here); its own sleep is
 *    pthread_delay_np(), a cancellable wait of whole milliseconds, rounded up.
 *    Case i of the benchmark then measures that.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

/* pthreads4w's own flag (global.c), set by __ptw32_processInitialize(). */
extern int __ptw32_processInitialized;

__attribute__((constructor)) static void bench_pthreads4w_attach(void)
{
    if (!__ptw32_processInitialized)
        pthread_win32_process_attach_np();
}

int nanosleep(const struct timespec *request, struct timespec *remain)
{
    struct timespec interval;
    int rc;

    if (request == NULL || request->tv_sec < 0 || request->tv_nsec < 0 ||
        request->tv_nsec >= 1000000000L) {
        errno = EINVAL;
        return -1;
    }
    interval = *request;
    rc = pthread_delay_np(&interval);
    if (remain != NULL)
        remain->tv_sec = remain->tv_nsec = 0;
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return 0;
}
