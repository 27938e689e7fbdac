/*
 * thread_table.c - the table of thread records: type-stable memory, named by
 * index and generation.
 *
 * A pthread_t may be presented after its thread was joined or, detached, ended
 * (pthread_kill(t, 0) to ask whether it still runs, a late pthread_cancel). So
 * a record's memory is never returned to the heap while the module is loaded:
 * records sit in chunks that are only ever added (chunk k holds
 * FIRST_CHUNK_RECORDS << k records, so an index finds its chunk with one bit
 * scan), and a record whose life ended goes to a free list for the next
 * pthread_create or adoption. Each life of a record has a new generation, kept
 * in the record's lifecycle word and in its pthread_t, so a stale id is told
 * apart from the record's later life by one comparison, without a lock.
 *
 * States of a slot: never used (zero: generation 0 matches no id) -> a life
 * (lifecycle = generation | join state, see thread.c) -> FREE, generation
 * kept, on the free list -> the next life with generation + 1 -> ...
 *
 * The free list is a lock-free stack whose head holds the top index and a count
 * of changes: a pop that read the head, then lost the record to other pops and
 * pushes (the ABA problem), sees the count moved and tries again. Reading the
 * next link of a record another thread just popped is harmless, since the
 * memory stays a record. Taking a never-used index is one CAS on a counter; a
 * new chunk is published by a CAS, and the loser of that race frees its copy.
 * No path here takes a lock, so create, join and exit never queue on each other.
 *
 * At the unload of a DLL that links the library statically (thread.c), the
 * whole table goes back to the heap: nothing outside the module can present an
 * id of this copy of the library once its code is gone.
 */
#include "thread_record.h"

#include <string.h>

#define FIRST_CHUNK_RECORDS 64UL
#if UINTPTR_MAX > 0xffffffffUL
#define CHUNKS_MAX 16 /* 64 * (2^16 - 1) records: about four million threads */
#else
#define CHUNKS_MAX 10 /* 64 * 1023 records: below the 2^16 an i686 id can index */
#endif
#define RECORDS_MAX (FIRST_CHUNK_RECORDS * ((1UL << CHUNKS_MAX) - 1))

SLIM_STATIC_ASSERT(RECORDS_MAX - 1 <= SLIM_ID_INDEX_MASK, "every index fits in a pthread_t");
SLIM_STATIC_ASSERT(SLIM_ID_GENERATION_BITS + SLIM_JOIN_STATE_BITS < 32,
                   "a generation and a join state fit in a positive 32-bit long");

/* The free list's head: the count of changes in the high half, the index + 1 of
 * the top record (0: empty) in the low half. */
#define HEAD_INDEX_MASK 0xffffffffULL
#define HEAD_COUNT_ONE (HEAD_INDEX_MASK + 1)

static struct slim_thread *volatile chunks[CHUNKS_MAX];
static volatile long indexes_handed_out; /* never-used indexes start here */
static volatile int64_t free_head __attribute__((aligned(8)));

static unsigned chunk_of(unsigned long index, unsigned long *offset)
{
    unsigned long chunk_number = index / FIRST_CHUNK_RECORDS + 1;
    unsigned chunk = (unsigned)(sizeof(unsigned long) * CHAR_BIT - 1) -
                     (unsigned)__builtin_clzl(chunk_number);

    *offset = index - FIRST_CHUNK_RECORDS * ((1UL << chunk) - 1);
    return chunk;
}

/* The record at index, or NULL when its chunk does not exist (yet). */
static struct slim_thread *record_at(unsigned long index)
{
    unsigned long offset;
    unsigned chunk = chunk_of(index, &offset);
    struct slim_thread *records = slim_pointer_load_acquire((void *volatile *)&chunks[chunk]);

    return records != NULL ? &records[offset] : NULL;
}

static struct slim_thread *pop_free(void)
{
    int64_t head = slim_word64_load_acquire(&free_head), next;
    struct slim_thread *record;

    for (;;) {
        if ((head & HEAD_INDEX_MASK) == 0)
            return NULL;
        record = record_at((unsigned long)(head & HEAD_INDEX_MASK) - 1);
        next = (head & ~HEAD_INDEX_MASK) + HEAD_COUNT_ONE +
               (unsigned long)slim_load_relaxed((volatile long *)&record->next_free);
        if (slim_word64_cas_acq_rel_seen(&free_head, &head, next))
            return record;
    }
}

static void push_free(struct slim_thread *record)
{
    int64_t head = slim_word64_load_relaxed(&free_head), next;

    do {
        slim_store_relaxed((volatile long *)&record->next_free, (long)(head & HEAD_INDEX_MASK));
        next = (head & ~HEAD_INDEX_MASK) + HEAD_COUNT_ONE + record->table_index + 1;
    } while (!slim_word64_cas_acq_rel_push_seen(&free_head, &head, next));
}

/* The chunk holding index, made if it does not exist yet; NULL without memory. */
static struct slim_thread *chunk_for(unsigned long index)
{
    unsigned long offset;
    unsigned chunk = chunk_of(index, &offset);
    struct slim_thread *records = slim_pointer_load_acquire((void *volatile *)&chunks[chunk]);
    void *expected;

    if (records != NULL)
        return records;
    records = calloc(FIRST_CHUNK_RECORDS << chunk, sizeof *records);
    if (records == NULL)
        return NULL;
    expected = NULL;
    if (!slim_pointer_cas_acq_rel_seen((void *volatile *)&chunks[chunk], &expected, records)) {
        free(records);
        return expected;
    }
    return records;
}

/* A record never used before. Without memory for its chunk the index is lost
 * for good: one index per failed allocation, out of millions. */
static struct slim_thread *fresh_record(void)
{
    long index = slim_load_relaxed(&indexes_handed_out);
    unsigned long offset;
    struct slim_thread *records;

    do {
        if ((unsigned long)index >= RECORDS_MAX)
            return NULL;
    } while (!slim_cas_seen(&indexes_handed_out, &index, index + 1));
    records = chunk_for((unsigned long)index);
    if (records == NULL)
        return NULL;
    chunk_of((unsigned long)index, &offset);
    records[offset].table_index = (unsigned long)index;
    return &records[offset];
}

static unsigned long generation_of(long lifecycle)
{
    return (unsigned long)lifecycle >> SLIM_JOIN_STATE_BITS;
}

struct slim_thread *slim_record_acquire(long join_state)
{
    struct slim_thread *record = pop_free();
    unsigned long generation;

    if (record == NULL)
        record = fresh_record();
    if (record == NULL)
        return NULL;
    generation = generation_of(record->lifecycle) + 1;
    if (generation > SLIM_ID_GENERATION_MAX)
        generation = 1;
    memset(&record->pthread_id, 0,
           sizeof *record - offsetof(struct slim_thread, pthread_id));
    record->pthread_id = (pthread_t)generation << SLIM_ID_INDEX_BITS | record->table_index;
    slim_store_release(&record->lifecycle, slim_lifecycle(record->pthread_id, join_state));
    return record;
}

void slim_record_release(struct slim_thread *record)
{
    slim_store_release(&record->lifecycle,
                       slim_lifecycle(record->pthread_id, SLIM_THREAD_FREE));
    push_free(record);
}

struct slim_thread *slim_thread_checked(pthread_t thread)
{
    uintptr_t index = thread & SLIM_ID_INDEX_MASK;
    struct slim_thread *record;
    long lifecycle, state;

    if (index >= RECORDS_MAX || thread >> SLIM_ID_INDEX_BITS > SLIM_ID_GENERATION_MAX ||
        (record = record_at((unsigned long)index)) == NULL)
        return NULL;
    lifecycle = slim_load_acquire(&record->lifecycle);
    state = lifecycle & SLIM_JOIN_STATE_MASK;
    if (lifecycle != slim_lifecycle(thread, state) || state == SLIM_THREAD_FREE ||
        state == SLIM_THREAD_REAPED)
        return NULL;
    return record;
}

/* Sequentially consistent, as the taking of an index is: the bias revocation
 * (rwlock_bias.c) reads it after its clear of the bias and must count every
 * record whose thread could have seen the bias before that clear. */
unsigned long slim_records_handed_out(void)
{
    return (unsigned long)slim_load_seq_cst(&indexes_handed_out);
}

void slim_records_release_all(void (*release)(struct slim_thread *record))
{
    unsigned long index, handed_out = (unsigned long)slim_load_acquire(&indexes_handed_out);
    unsigned chunk;
    struct slim_thread *record;

    for (index = 0; index < handed_out; index++) {
        record = record_at(index);
        if (record != NULL && slim_join_state(record) != SLIM_THREAD_FREE)
            release(record);
    }
    for (chunk = 0; chunk < CHUNKS_MAX; chunk++) {
        free(chunks[chunk]);
        chunks[chunk] = NULL;
    }
    indexes_handed_out = 0;
    free_head = 0;
}

#include "code_end.h"
