/* A lock-order inversion the checked build must report: run.sh builds it
 * against the installed libslimpthreads-checked (pkg-config
 * slimpthreads-checked) and runs it with SLIMPTHREADS_CHECK_FILE set, as it
 * runs the checked xz and zstd. Their empty report files mean something only
 * if this one is not empty. One thread takes the two mutexes in both orders,
 * one after the other: it never blocks, and the second order closes a cycle. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t first = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t second = PTHREAD_MUTEX_INITIALIZER;

static void lock_both(pthread_mutex_t *outer, pthread_mutex_t *inner)
{
    pthread_mutex_lock(outer);
    pthread_mutex_lock(inner);
    pthread_mutex_unlock(inner);
    pthread_mutex_unlock(outer);
}

int main(void)
{
    lock_both(&first, &second);
    lock_both(&second, &first);
    puts("canary: took two mutexes in both orders");
    return 0;
}
