/*
 * key.c - thread-specific data: a global table of keys, values in each thread's record.
 *
 * The table holds a sequence number and a destructor per key. The sequence is
 * odd while the key exists and is bumped by create and by delete; each value
 * remembers the sequence it was stored under, so a value from an earlier life
 * of the key no longer matches and reads as NULL in every thread (POSIX), with
 * no visit to the other threads. A lock guards create and delete only;
 * getspecific is the record's TLS slot, a bounds check, a sequence check and a
 * load. Destructors run from the thread-exit hook, in rounds, for every thread
 * that stored a value, whoever created it.
 */
#include "thread_record.h"

#include <string.h>

/* A key whose sequence got this far is never handed out again, so that a stale
 * value can never meet a wrapped sequence. */
#define SEQUENCE_EXHAUSTED (LONG_MAX - 1)
#define FIRST_VALUES_CAPACITY 16

struct key_entry {
    volatile long sequence; /* odd: the key exists */
    void (*destructor)(void *);
};

static struct key_entry keys[PTHREAD_KEYS_MAX];
static SRWLOCK keys_lock = SRWLOCK_INIT;

static int key_exists(long sequence)
{
    return (sequence & 1) != 0;
}

int pthread_key_create(pthread_key_t *key, void (*destructor)(void *))
{
    unsigned index;
    long sequence;

    if (key == NULL)
        return EINVAL;
    AcquireSRWLockExclusive(&keys_lock);
    for (index = 0; index < PTHREAD_KEYS_MAX; index++) {
        sequence = keys[index].sequence;
        if (!key_exists(sequence) && sequence < SEQUENCE_EXHAUSTED) {
            keys[index].destructor = destructor;
            slim_store_release(&keys[index].sequence, sequence + 1);
            ReleaseSRWLockExclusive(&keys_lock);
            *key = index;
            return 0;
        }
    }
    ReleaseSRWLockExclusive(&keys_lock);
    return EAGAIN;
}

/* No destructor runs (POSIX); the values die with the sequence. */
int pthread_key_delete(pthread_key_t key)
{
    long sequence;

    if (key >= PTHREAD_KEYS_MAX)
        return EINVAL;
    AcquireSRWLockExclusive(&keys_lock);
    sequence = keys[key].sequence;
    if (key_exists(sequence))
        slim_store_release(&keys[key].sequence, sequence + 1);
    ReleaseSRWLockExclusive(&keys_lock);
    return key_exists(sequence) ? 0 : EINVAL;
}

void *pthread_getspecific(pthread_key_t key)
{
    struct slim_thread *self = slim_self_if_known();
    const struct slim_key_value *slot;

    if (self == NULL || key >= self->key_capacity)
        return NULL;
    slot = &self->key_values[key];
    if (slot->sequence != (unsigned long)slim_load_relaxed(&keys[key].sequence))
        return NULL;
    return slot->value;
}

/* Room for key in self's values; the new slots match no key. Never inlined:
 * rare, and its registers would make every setspecific save them. */
static int __attribute__((noinline)) grow_values(struct slim_thread *self, pthread_key_t key)
{
    unsigned capacity = self->key_capacity * 2;
    struct slim_key_value *values;

    if (capacity < FIRST_VALUES_CAPACITY)
        capacity = FIRST_VALUES_CAPACITY;
    if (capacity <= key)
        capacity = key + 1;
    if (capacity > PTHREAD_KEYS_MAX)
        capacity = PTHREAD_KEYS_MAX;
    values = realloc(self->key_values, capacity * sizeof *values);
    if (values == NULL)
        return ENOMEM;
    memset(values + self->key_capacity, 0,
           (capacity - self->key_capacity) * sizeof *values);
    self->key_values = values;
    self->key_capacity = capacity;
    return 0;
}

int pthread_setspecific(pthread_key_t key, const void *value)
{
    struct slim_thread *self;
    long sequence;

    if (key >= PTHREAD_KEYS_MAX)
        return EINVAL;
    sequence = slim_load_acquire(&keys[key].sequence);
    if (!key_exists(sequence))
        return EINVAL;
    self = value != NULL ? slim_self() : slim_self_if_known();
    if (self == NULL)
        return 0; /* NULL is what a thread without values reads anyway */
    if (key >= self->key_capacity) {
        if (value == NULL)
            return 0;
        if (grow_values(self, key) != 0)
            return ENOMEM;
    }
    self->key_values[key].value = (void *)value;
    self->key_values[key].sequence = (unsigned long)sequence;
    return 0;
}

/* One round over self's values: each live value with a destructor is cleared
 * and handed to it. Nonzero if any destructor ran (it may have stored more). */
static int run_destructor_round(struct slim_thread *self)
{
    pthread_key_t key;
    void *value;
    long sequence;
    void (*destructor)(void *);
    int ran = 0;

    /* Index afresh each time: a destructor may grow (move) the values. */
    for (key = 0; key < self->key_capacity; key++) {
        value = self->key_values[key].value;
        if (value == NULL)
            continue;
        sequence = slim_load_acquire(&keys[key].sequence);
        destructor = keys[key].destructor;
        if (self->key_values[key].sequence != (unsigned long)sequence || destructor == NULL)
            continue;
        self->key_values[key].value = NULL;
        destructor(value);
        ran = 1;
    }
    return ran;
}

void slim_keys_run_destructors(struct slim_thread *self)
{
    int round;

    for (round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; round++) {
        if (!run_destructor_round(self))
            break;
    }
    free(self->key_values);
    self->key_values = NULL;
    self->key_capacity = 0;
}

#include "code_end.h"
