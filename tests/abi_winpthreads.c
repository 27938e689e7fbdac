/*
 * abi_winpthreads.c - a translation unit compiled against MinGW-w64's own
 * <pthread.h> (winpthreads), linked into abi_prog next to slimpthreads: its
 * plain pthread_* names bind to winpthreads, never to slimpthreads, so both
 * libraries serve one program, each on its own objects (tests/abi.sh).
 */
#include <pthread.h>

#ifndef WINPTHREAD_API
#error "abi_winpthreads.c must be compiled against winpthreads' <pthread.h>"
#endif

static pthread_mutex_t counter_mutex = PTHREAD_MUTEX_INITIALIZER;
static int counter;
static int rounds_per_thread;

static void *add_rounds(void *argument)
{
    for (int round = 0; round < rounds_per_thread; round++) {
        pthread_mutex_lock(&counter_mutex);
        counter++;
        pthread_mutex_unlock(&counter_mutex);
    }
    return argument;
}

int abi_winpthreads_run(int threads, int rounds)
{
    pthread_t thread[16];
    rounds_per_thread = rounds;
    if (threads > 16)
        return -1;
    for (int i = 0; i < threads; i++)
        if (pthread_create(&thread[i], NULL, add_rounds, NULL) != 0)
            return -1;
    for (int i = 0; i < threads; i++)
        pthread_join(thread[i], NULL);
    return counter;
}
