/*
 * shared.h - what process-shared objects add to the road (shared.c): the id
 * that names an object in every process that maps it, and the doorbells its
 * sleepers wait on. Private to the library.
 *
 * A process-shared object keeps all of its state in itself, as every object
 * does, but WaitOnAddress wakes only threads of the process that calls it. So
 * a shared object's sleepers wait on a doorbell instead: a named kernel
 * semaphore, Local\slimpthreads-1-bell-<id>-<generation>, made by the first
 * sleeper that needs it and gone with the last handle. Nobody keeps a handle
 * between waits: a sleeper opens (or makes) the doorbell before its first look
 * at the word, so that a wake either finds the doorbell and leaves a token in
 * it, or came before the look and shows in the word; a waker opens it only when
 * the object's word says someone sleeps, and closes it at once. A process keeps
 * nothing per shared object, so none of them can leak.
 *
 * A doorbell is a hint, never the truth: the truth is the object's word, which
 * each sleeper looks at again after every token (wait.c). A token taken by a
 * sleeper that arrived later is harmless where every release wakes again (locks,
 * semaphores); where one wake must reach every sleeper of a round (a barrier,
 * a cond's broadcast) the round is the doorbell's generation, so a later
 * round's sleepers never take an earlier round's tokens.
 */
#ifndef SLIMPTHREADS_SHARED_H
#define SLIMPTHREADS_SHARED_H

#include "internal.h"

/* One of a shared object's doorbells. */
struct slim_doorbell {
    unsigned long object_id;  /* slim_shared_id_new's, stored in the object */
    unsigned long generation; /* 0, or the round its sleepers wait in */
};

/* A new object id: unique among the ids given out in this logon session while
 * any process of it keeps the library's id counter (a named mapping, one per
 * process, mapped on first use) and, when the counter is made anew, started at
 * a value of the clock, so that an object left in a file by processes that
 * have all ended is unlikely to meet a new one. 0, or the errno of a failure
 * to make or map the counter (ENOMEM, EPERM, EAGAIN). */
int slim_shared_id_new(unsigned long *id);

/* The doorbell, opened or made for a sleeper (SYNCHRONIZE), or NULL when the
 * system refuses (out of handles or memory): the sleeper then naps and looks
 * again (wait.c). The caller closes it (CloseHandle) when its wait ends. */
HANDLE slim_doorbell_open(const struct slim_doorbell *doorbell);

/* Leaves wakes tokens (at least 1) in the doorbell if a sleeper has it open;
 * else nothing: no sleeper has passed its first look. */
void slim_doorbell_ring(const struct slim_doorbell *doorbell, long wakes);

/* 1 while some process has the doorbell open, that is, while a sleeper of that
 * object and generation is inside its wait; else 0. The name exists only then,
 * so memory that merely reads like a shared object never answers 1. */
int slim_doorbell_is_open(const struct slim_doorbell *doorbell);

#endif /* SLIMPTHREADS_SHARED_H */
