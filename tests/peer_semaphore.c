/*
 * peer_semaphore.c - what winpthreads' and pthreads4w's <semaphore.h> give a
 * program, from our <semaphore.h> alone (tests/peer_headers.sh builds it with
 * -Werror=implicit-function-declaration and runs it), and SEM_NSEMS_MAX
 * (the peers' <pthread.h> has it; ours has it in both): that many named
 * semaphores open at once.
 */
#include <semaphore.h>

void peer_check(int ok, const char *what, int line);
int peer_finish(const char *program);
#define CHECK(condition) peer_check((condition) != 0, #condition, __LINE__)
#define STATIC_CHECK(name, condition) typedef char name[(condition) ? 1 : -1]

STATIC_CHECK(posix_semaphores, _POSIX_SEMAPHORES > 0);
STATIC_CHECK(value_max, SEM_VALUE_MAX >= 32767 && SEM_NSEMS_MAX >= 256);

static const struct timespec long_ago = {0, 0};

static int fails_with(int result, int error)
{
    return result == -1 && errno == error;
}

static void check_unnamed(void)
{
    sem_t sem, full;
    int value = -1;

    CHECK(sem_init(&sem, 0, 1) == 0);
    CHECK(sem_trywait(&sem) == 0);
    CHECK(fails_with(sem_trywait(&sem), EAGAIN));
    CHECK(fails_with(sem_timedwait(&sem, &long_ago), ETIMEDOUT));
    CHECK(sem_post(&sem) == 0 && sem_wait(&sem) == 0);
    CHECK(sem_post_multiple(&sem, 3) == 0 && sem_getvalue(&sem, &value) == 0 && value == 3);
    CHECK(fails_with(sem_post_multiple(&sem, 0), EINVAL));
    CHECK(sem_destroy(&sem) == 0);
    CHECK(sem_init(&full, 0, SEM_VALUE_MAX) == 0);
    CHECK(fails_with(sem_post_multiple(&full, 1), ERANGE));
    CHECK(fails_with(sem_post(&full), EOVERFLOW));
    CHECK(sem_destroy(&full) == 0);
    CHECK(fails_with(sem_init(&sem, 1, 0), ENOSYS)); /* sem_open shares between processes */
}

/* "/peer-sem-" and a number: no <stdio.h> here. */
static void make_name(char *name, int number)
{
    const char prefix[] = "/peer-sem-";
    int at = 0, digits = 1;

    for (; prefix[at] != '\0'; at++)
        name[at] = prefix[at];
    for (int rest = number; rest >= 10; rest /= 10)
        digits++;
    name[at + digits] = '\0';
    for (; digits > 0; number /= 10)
        name[at + --digits] = (char)('0' + number % 10);
}

static void check_named(void)
{
    char name[32];
    sem_t *sem;
    int value = -1;

    make_name(name, 0);
    sem_unlink(name); /* a leftover of a run that failed */
    sem = sem_open(name, O_CREAT | O_EXCL, (mode_t)0600, 2);
    CHECK(sem != SEM_FAILED);
    if (sem == SEM_FAILED)
        return;
    CHECK(sem_open(name, O_CREAT | O_EXCL, (mode_t)0600, 2) == SEM_FAILED && errno == EEXIST);
    CHECK(sem_wait(sem) == 0 && sem_getvalue(sem, &value) == 0 && value == 1);
    CHECK(sem_post(sem) == 0);
    CHECK(sem_unlink(name) == 0 && sem_close(sem) == 0); /* unlinked before its last close (README.md) */
    CHECK(sem_open(name, 0) == SEM_FAILED && errno == ENOENT);
}

/* SEM_NSEMS_MAX semaphores at once, each a kernel object of its own. */
static void check_nsems_max(void)
{
    static sem_t *open[SEM_NSEMS_MAX];
    char name[32];
    int opened = 0, closed = 0;

    for (; opened < SEM_NSEMS_MAX; opened++) {
        make_name(name, opened);
        sem_unlink(name);
        open[opened] = sem_open(name, O_CREAT | O_EXCL, (mode_t)0600, 0);
        if (open[opened] == SEM_FAILED)
            break;
    }
    CHECK(opened == SEM_NSEMS_MAX);
    for (int at = 0; at < opened; at++) {
        make_name(name, at);
        closed += sem_post(open[at]) == 0 && sem_trywait(open[at]) == 0 && sem_unlink(name) == 0 &&
                  sem_close(open[at]) == 0;
    }
    CHECK(closed == opened);
}

int main(void)
{
    check_unnamed();
    check_named();
    check_nsems_max();
    return peer_finish("peer_semaphore");
}
