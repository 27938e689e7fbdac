/*
 * signal.c - signal sets and per-thread signal masks.
 *
 * Windows has no POSIX signals between threads: the C runtime raises a handful
 * (SIGINT, SIGTERM, SIGABRT, ...) in the thread that caused them. What programs
 * need from us is that blocking signals around thread creation (xz, many
 * servers) is a real, honest operation: each thread keeps the mask it set and
 * pthread_sigmask reports it back. The mask cannot hold back what the C runtime
 * delivers; README.md says so.
 *
 * pthread_kill with signal 0 reports whether the thread still exists (ESRCH once
 * it has been joined); any other signal is raised through the C runtime in the
 * calling thread, where its handler runs: Windows cannot run a handler in another
 * thread, and a default action ends the whole process either way.
 *
 * A sigset_t is MinGW-w64's _sigset_t: one bit per signal number, bit n-1 for n.
 */
#include "thread_record.h"

#define SIGNAL_SET_BITS ((int)(sizeof(sigset_t) * CHAR_BIT))

static int signal_number_valid(int signal_number)
{
    return signal_number > 0 && signal_number < NSIG && signal_number <= SIGNAL_SET_BITS;
}

static sigset_t signal_bit(int signal_number)
{
    return (sigset_t)1 << (signal_number - 1);
}

int sigemptyset(sigset_t *set)
{
    if (set == NULL)
        return slim_fail(EINVAL);
    *set = 0;
    return 0;
}

int sigfillset(sigset_t *set)
{
    if (set == NULL)
        return slim_fail(EINVAL);
    *set = ~(sigset_t)0;
    return 0;
}

int sigaddset(sigset_t *set, int signal_number)
{
    if (set == NULL || !signal_number_valid(signal_number))
        return slim_fail(EINVAL);
    *set |= signal_bit(signal_number);
    return 0;
}

int sigdelset(sigset_t *set, int signal_number)
{
    if (set == NULL || !signal_number_valid(signal_number))
        return slim_fail(EINVAL);
    *set &= ~signal_bit(signal_number);
    return 0;
}

int sigismember(const sigset_t *set, int signal_number)
{
    if (set == NULL || !signal_number_valid(signal_number))
        return slim_fail(EINVAL);
    return (*set & signal_bit(signal_number)) != 0;
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old_set)
{
    struct slim_thread *self = slim_self();
    sigset_t mask = self->signal_mask;

    if (set != NULL) {
        switch (how) {
        case SIG_BLOCK:
            mask |= *set;
            break;
        case SIG_UNBLOCK:
            mask &= ~*set;
            break;
        case SIG_SETMASK:
            mask = *set;
            break;
        default:
            return EINVAL;
        }
    }
    if (old_set != NULL)
        *old_set = self->signal_mask;
    self->signal_mask = mask;
    return 0;
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old_set)
{
    int error = pthread_sigmask(how, set, old_set);

    return error == 0 ? 0 : slim_fail(error);
}

int pthread_kill(pthread_t thread, int signal_number)
{
    if (slim_thread_checked(thread) == NULL)
        return ESRCH;
    if (signal_number == 0)
        return 0;
    if (!signal_number_valid(signal_number))
        return EINVAL;
    return raise(signal_number) == 0 ? 0 : EINVAL;
}

#include "code_end.h"
