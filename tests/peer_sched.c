/*
 * peer_sched.c - what winpthreads' and pthreads4w's <sched.h> give a program,
 * from our <sched.h> alone (tests/peer_headers.sh builds it with
 * -Werror=implicit-function-declaration and runs it). pthreads4w's
 * _sched_affinitycpu* helpers, behind its CPU_* macros, are left out: ours
 * are inline. Its two-argument sched_setscheduler is POSIX's three here.
 */
#include <sched.h>

void peer_check(int ok, const char *what, int line);
int peer_finish(const char *program);
#define CHECK(condition) peer_check((condition) != 0, #condition, __LINE__)
#define STATIC_CHECK(name, condition) typedef char name[(condition) ? 1 : -1]

STATIC_CHECK(policies, SCHED_OTHER != SCHED_FIFO && SCHED_FIFO != SCHED_RR &&
                           SCHED_MIN == SCHED_OTHER && SCHED_MAX == SCHED_RR);
/* pthreads4w's cpu_set_t has a bit per processor a size_t can name. */
STATIC_CHECK(cpu_setsize, CPU_SETSIZE >= 64 && sizeof(cpu_set_t) * 8 >= CPU_SETSIZE);

static void check_cpu_sets(void)
{
    cpu_set_t a, b, both;

    CPU_ZERO(&a);
    CPU_ZERO(&b);
    CHECK(CPU_COUNT(&a) == 0 && CPU_EQUAL(&a, &b));
    CPU_SET(1, &a);
    CPU_SET(3, &a);
    CPU_SET(3, &b);
    CPU_SET(CPU_SETSIZE - 1, &b);
    CHECK(CPU_ISSET(1, &a) && !CPU_ISSET(2, &a) && CPU_COUNT(&a) == 2 && !CPU_EQUAL(&a, &b));
    CPU_AND(&both, &a, &b);
    CHECK(CPU_COUNT(&both) == 1 && CPU_ISSET(3, &both));
    CPU_OR(&both, &a, &b);
    CHECK(CPU_COUNT(&both) == 3 && CPU_ISSET(CPU_SETSIZE - 1, &both));
    CPU_XOR(&both, &a, &b);
    CHECK(CPU_COUNT(&both) == 2 && !CPU_ISSET(3, &both));
    CPU_CLR(1, &a);
    CHECK(CPU_COUNT(&a) == 1 && !CPU_ISSET(1, &a));
    CPU_SET(CPU_SETSIZE, &a); /* past the set: nothing */
    CHECK(CPU_COUNT(&a) == 1 && !CPU_ISSET(CPU_SETSIZE, &a));
}

static void check_scheduling(void)
{
    struct sched_param param = {0};
    struct timespec quantum;
    cpu_set_t cpus;
    pid_t self = 0;

    CHECK(sched_yield() == 0);
    CHECK(sched_get_priority_min(SCHED_FIFO) <= sched_get_priority_max(SCHED_FIFO));
    CHECK(sched_get_priority_min(SCHED_RR) <= sched_get_priority_max(SCHED_RR));
    CHECK(sched_get_priority_min(SCHED_OTHER) <= sched_get_priority_max(SCHED_OTHER));
    CHECK(sched_getscheduler(self) == SCHED_OTHER);
    CHECK(sched_setscheduler(self, SCHED_OTHER, &param) == 0);
    CHECK(sched_getparam(self, &param) == 0 && sched_setparam(self, &param) == 0);
    CHECK(sched_rr_get_interval(self, &quantum) == 0 && quantum.tv_sec >= 0);
    CHECK(sched_getaffinity(self, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) >= 1);
    CHECK(sched_setaffinity(self, sizeof cpus, &cpus) == 0);
    CHECK(sched_getcpu() >= 0);
    CHECK(sched_getscheduler(-1) == -1 && errno == EINVAL); /* errno: pthreads4w's <sched.h> has it */
}

int main(void)
{
    check_cpu_sets();
    check_scheduling();
    return peer_finish("peer_sched");
}
