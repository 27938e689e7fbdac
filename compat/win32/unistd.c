/*
 * unistd.c - sleep, usleep and pause: the <unistd.h> cancellation points.
 *
 * MinGW-w64's libmingwex has sleep and usleep over Win32 Sleep, which is no
 * cancellation point: a deferred request to a thread looping in sleep(1) would
 * never land. Ours sleep through nanosleep, the one road for sleeps, which is a
 * cancellation point (a request wakes it at once). Each of libmingwex's
 * definitions sits alone in its archive member, so the linker takes ours and
 * never pulls those in. Windows delivers no signal that interrupts a sleep: no
 * sleep here ends early, sleep never returns unslept seconds, usleep never
 * fails with EINTR, and pause blocks until the thread is cancelled or the
 * process ends. usleep takes any useconds_t, as glibc does (POSIX.1-2001 let
 * it refuse a million or more with EINVAL).
 */
#include "internal.h"

#include <unistd.h>

#ifndef SLIMPTHREADS_NO_SLEEP_FUNCTIONS /* the drop-in leaves them to the project */

/* pause sleeps in pieces this long, forever: each one is a cancellation point. */
#define PAUSE_PIECE_SECONDS (24 * 60 * 60)

unsigned int sleep(unsigned int seconds)
{
    struct timespec interval = {(time_t)seconds, 0};

    nanosleep(&interval, NULL);
    return 0;
}

int usleep(useconds_t microseconds)
{
    struct timespec interval = {
        (time_t)(microseconds / SLIM_MICROSECONDS_PER_SECOND),
        (long)(microseconds % SLIM_MICROSECONDS_PER_SECOND) * SLIM_NANOSECONDS_PER_MICROSECOND,
    };

    nanosleep(&interval, NULL);
    return 0;
}

int pause(void)
{
    struct timespec piece = {PAUSE_PIECE_SECONDS, 0};

    for (;;)
        nanosleep(&piece, NULL);
}

#endif /* SLIMPTHREADS_NO_SLEEP_FUNCTIONS */

#include "code_end.h"
