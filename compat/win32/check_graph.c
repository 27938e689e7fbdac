/*
 * check_graph.c - the checked build's lock-order graph.
 *
 * A node per lock (keyed by its address), an edge A -> B once some thread
 * took B while it held A. The graph is kept acyclic in a topological order
 * (each node's `order`), maintained incrementally after Pearce and Kelly
 * ("A dynamic topological sort algorithm for directed acyclic graphs", 2006),
 * as Rust's tracing-mutex does: an edge that agrees with the order costs
 * nothing more; one that goes against it searches only the nodes between
 * the two orders, forward from B for A (found: the edge closes a cycle) and
 * backward from A, and renumbers just those. The edge that would close a
 * cycle is reported and kept out of the order (marked, so that it is found
 * again and not reported twice), so the graph stays a DAG.
 *
 * Fixed tables (check_impl.h): SLIM_CHECK_LOCKS_MAX nodes in a chained hash,
 * SLIM_CHECK_ORDERS_MAX edges in a chained hash on (from, to), each also in
 * its two nodes' lists so that forgetting a lock (destroy, or init of the
 * same memory) drops its edges. Indices start at 1; 0 is "none". A node that
 * only remembers an init site is given up when the table is full.
 *
 * One SRWLOCK of the checker's own guards it all: shared for the common case
 * (every order of this acquisition is known already), exclusive to change.
 */
#include "check_impl.h"

#if defined(SLIMPTHREADS_CHECKED)

#define NODE_BUCKETS (2 * SLIM_CHECK_LOCKS_MAX)  /* a power of two */
#define EDGE_BUCKETS (2 * SLIM_CHECK_ORDERS_MAX) /* a power of two */
#define EVICTION_LOOKS 64 /* nodes looked at for one to give up when the table is full */
#define HASH_MULTIPLIER 0x9e3779b97f4a7c15ULL /* Fibonacci hashing */

/* Every edge is on two lists: the edges out of its `from` node and the edges
 * into its `to` node, each doubly linked through the edges. */
enum direction { OUTGOING, INCOMING, DIRECTIONS };

struct node {
    const void *lock;
    void *init_site;
    unsigned long long order; /* topological: every edge goes from a lower to a higher */
    unsigned long long mark;  /* the search that last visited it */
    unsigned next;            /* the bucket's chain, or the free list */
    unsigned first[DIRECTIONS]; /* first edge from / to it */
    unsigned parent;          /* the edge a forward search came by */
    unsigned edges;           /* edges from or to it */
    int kind;
};

struct edge {
    unsigned from, to;
    unsigned next_of[DIRECTIONS], prev_of[DIRECTIONS]; /* on the lists of its from / to node */
    unsigned next; /* the bucket's chain, or the free list */
    int closes_cycle; /* reported; not part of the order */
    int from_kind, to_kind;
    void *held_site, *site;
    unsigned long thread_id;
};

static SRWLOCK graph_lock = SRWLOCK_INIT;
static struct node nodes[SLIM_CHECK_LOCKS_MAX + 1];
static struct edge edges[SLIM_CHECK_ORDERS_MAX + 1];
static unsigned node_buckets[NODE_BUCKETS], edge_buckets[EDGE_BUCKETS];
static unsigned nodes_used, free_nodes, edges_used, free_edges, eviction_cursor;
static unsigned long long next_order, search_mark;
static int nodes_full_said, edges_full_said;

/* The searches' scratch, under the exclusive lock: each node is pushed at
 * most once per search, so each array fits every node. */
static unsigned stack[SLIM_CHECK_LOCKS_MAX], forward[SLIM_CHECK_LOCKS_MAX],
    backward[SLIM_CHECK_LOCKS_MAX];
static unsigned long long orders[SLIM_CHECK_LOCKS_MAX];

static unsigned hash_pointer(const void *pointer, unsigned buckets)
{
    return (unsigned)(((uint64_t)(uintptr_t)pointer * HASH_MULTIPLIER) >> 32) & (buckets - 1);
}

static unsigned hash_pair(unsigned from, unsigned to)
{
    uint64_t key = ((uint64_t)from << 32) | to;

    return (unsigned)((key * HASH_MULTIPLIER) >> 40) & (EDGE_BUCKETS - 1);
}

/* ---- Nodes ---- */

static unsigned node_find(const void *lock)
{
    unsigned n = node_buckets[hash_pointer(lock, NODE_BUCKETS)];

    while (n != 0 && nodes[n].lock != lock)
        n = nodes[n].next;
    return n;
}

static void edge_remove(unsigned e);

static void node_free(unsigned n)
{
    unsigned *link = &node_buckets[hash_pointer(nodes[n].lock, NODE_BUCKETS)];

    while (nodes[n].first[OUTGOING] != 0)
        edge_remove(nodes[n].first[OUTGOING]);
    while (nodes[n].first[INCOMING] != 0)
        edge_remove(nodes[n].first[INCOMING]);
    while (*link != n)
        link = &nodes[*link].next;
    *link = nodes[n].next;
    nodes[n].lock = NULL;
    nodes[n].next = free_nodes;
    free_nodes = n;
}

/* A node that only remembers where its lock was initialized, given up for a
 * lock that has orders to keep. */
static int evict_one(unsigned keep)
{
    for (unsigned looked = 0; looked < EVICTION_LOOKS; looked++) {
        unsigned n = eviction_cursor % SLIM_CHECK_LOCKS_MAX + 1;

        eviction_cursor++;
        if (n != keep && nodes[n].lock != NULL && nodes[n].edges == 0) {
            node_free(n);
            return 1;
        }
    }
    return 0;
}

/* `keep`: a node the caller is using, never the one given up. */
static unsigned node_new(const void *lock, int kind, unsigned keep)
{
    unsigned n, bucket = hash_pointer(lock, NODE_BUCKETS);

    if (free_nodes == 0 && nodes_used == SLIM_CHECK_LOCKS_MAX && !evict_one(keep)) {
        if (!nodes_full_said) {
            nodes_full_said = 1;
            slim_check_notice("lock table full (32768 locks): new locks are not ordered");
        }
        return 0;
    }
    if (free_nodes != 0) {
        n = free_nodes;
        free_nodes = nodes[n].next;
    } else {
        n = ++nodes_used;
    }
    nodes[n].lock = lock;
    nodes[n].init_site = NULL;
    nodes[n].kind = kind;
    nodes[n].order = ++next_order;
    nodes[n].mark = 0;
    nodes[n].first[OUTGOING] = nodes[n].first[INCOMING] = 0;
    nodes[n].parent = nodes[n].edges = 0;
    nodes[n].next = node_buckets[bucket];
    node_buckets[bucket] = n;
    return n;
}

static unsigned node_get(const void *lock, int kind, unsigned keep)
{
    unsigned n = node_find(lock);

    if (n == 0)
        return node_new(lock, kind, keep);
    nodes[n].kind = kind;
    return n;
}

/* ---- Edges ---- */

static unsigned edge_find(unsigned from, unsigned to)
{
    unsigned e = edge_buckets[hash_pair(from, to)];

    while (e != 0 && (edges[e].from != from || edges[e].to != to))
        e = edges[e].next;
    return e;
}

/* The node whose list of `direction` the edge is on. */
static unsigned node_of(const struct edge *edge, enum direction direction)
{
    return direction == OUTGOING ? edge->from : edge->to;
}

static void list_push(unsigned e, enum direction direction)
{
    struct edge *edge = &edges[e];
    unsigned *first = &nodes[node_of(edge, direction)].first[direction];

    edge->prev_of[direction] = 0;
    edge->next_of[direction] = *first;
    if (*first != 0)
        edges[*first].prev_of[direction] = e;
    *first = e;
}

static void list_remove(unsigned e, enum direction direction)
{
    struct edge *edge = &edges[e];
    unsigned prev = edge->prev_of[direction], next = edge->next_of[direction];

    if (prev != 0)
        edges[prev].next_of[direction] = next;
    else
        nodes[node_of(edge, direction)].first[direction] = next;
    if (next != 0)
        edges[next].prev_of[direction] = prev;
}

static void edge_remove(unsigned e)
{
    struct edge *edge = &edges[e];
    unsigned *link = &edge_buckets[hash_pair(edge->from, edge->to)];

    list_remove(e, OUTGOING);
    list_remove(e, INCOMING);
    nodes[edge->from].edges--;
    nodes[edge->to].edges--;
    while (*link != e)
        link = &edges[*link].next;
    *link = edge->next;
    edge->next = free_edges;
    free_edges = e;
}

static unsigned edge_add(unsigned from, unsigned to)
{
    unsigned e, bucket = hash_pair(from, to);

    if (free_edges != 0) {
        e = free_edges;
        free_edges = edges[e].next;
    } else if (edges_used < SLIM_CHECK_ORDERS_MAX) {
        e = ++edges_used;
    } else {
        if (!edges_full_said) {
            edges_full_said = 1;
            slim_check_notice("order table full (131072 orders): new orders are not recorded");
        }
        return 0;
    }
    edges[e].from = from;
    edges[e].to = to;
    edges[e].closes_cycle = 0;
    list_push(e, OUTGOING);
    list_push(e, INCOMING);
    nodes[from].edges++;
    nodes[to].edges++;
    edges[e].next = edge_buckets[bucket];
    edge_buckets[bucket] = e;
    return e;
}

/* ---- Pearce-Kelly ---- */

/* Forward from `start` through nodes ordered below `target`'s: 1 when it
 * reaches `target` (a cycle; nodes' parents then lead back to `start`).
 * Otherwise the nodes visited are forward[0..*count). */
static int search_forward(unsigned start, unsigned target, unsigned *count)
{
    unsigned long long upper = nodes[target].order;
    unsigned depth = 0;

    *count = 0;
    nodes[start].mark = search_mark;
    stack[depth++] = start;
    while (depth > 0) {
        unsigned n = stack[--depth];

        forward[(*count)++] = n;
        for (unsigned e = nodes[n].first[OUTGOING]; e != 0; e = edges[e].next_of[OUTGOING]) {
            unsigned w = edges[e].to;

            if (edges[e].closes_cycle || nodes[w].mark == search_mark)
                continue;
            if (w == target) {
                nodes[w].parent = e;
                return 1;
            }
            if (nodes[w].order < upper) {
                nodes[w].mark = search_mark;
                nodes[w].parent = e;
                stack[depth++] = w;
            }
        }
    }
    return 0;
}

/* Backward from `start` through nodes ordered above `lower`. */
static unsigned search_backward(unsigned start, unsigned long long lower)
{
    unsigned depth = 0, count = 0;

    nodes[start].mark = search_mark;
    stack[depth++] = start;
    while (depth > 0) {
        unsigned n = stack[--depth];

        backward[count++] = n;
        for (unsigned e = nodes[n].first[INCOMING]; e != 0; e = edges[e].next_of[INCOMING]) {
            unsigned w = edges[e].from;

            if (edges[e].closes_cycle || nodes[w].mark == search_mark)
                continue;
            if (nodes[w].order > lower) {
                nodes[w].mark = search_mark;
                stack[depth++] = w;
            }
        }
    }
    return count;
}

static int by_node_order(const void *a, const void *b)
{
    unsigned long long x = nodes[*(const unsigned *)a].order, y = nodes[*(const unsigned *)b].order;

    return x < y ? -1 : x > y;
}

static int by_value(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

    return x < y ? -1 : x > y;
}

/* The nodes that reach `from` go before those `to` reaches, in the orders
 * the two sets held between them. */
static void reorder(unsigned backward_count, unsigned forward_count)
{
    unsigned total = 0;

    qsort(backward, backward_count, sizeof backward[0], by_node_order);
    qsort(forward, forward_count, sizeof forward[0], by_node_order);
    for (unsigned i = 0; i < backward_count; i++)
        orders[total++] = nodes[backward[i]].order;
    for (unsigned i = 0; i < forward_count; i++)
        orders[total++] = nodes[forward[i]].order;
    qsort(orders, total, sizeof orders[0], by_value);
    total = 0;
    for (unsigned i = 0; i < backward_count; i++)
        nodes[backward[i]].order = orders[total++];
    for (unsigned i = 0; i < forward_count; i++)
        nodes[forward[i]].order = orders[total++];
}

/* 1 when from -> to would close a cycle (parents lead from `from` back to `to`). */
static int pearce_kelly(unsigned from, unsigned to)
{
    unsigned forward_count, backward_count;

    if (nodes[from].order < nodes[to].order)
        return 0;
    search_mark++;
    if (search_forward(to, from, &forward_count))
        return 1;
    backward_count = search_backward(from, nodes[to].order);
    reorder(backward_count, forward_count);
    return 0;
}

/* ---- The graph's calls ---- */

static void fill_step(struct slim_check_step *step, unsigned e)
{
    step->from = nodes[edges[e].from].lock;
    step->to = nodes[edges[e].to].lock;
    step->from_kind = edges[e].from_kind;
    step->to_kind = edges[e].to_kind;
    step->from_init = nodes[edges[e].from].init_site;
    step->to_init = nodes[edges[e].to].init_site;
    step->held_site = edges[e].held_site;
    step->site = edges[e].site;
    step->thread_id = edges[e].thread_id;
}

/* The path to -> ... -> from the forward search found, into cycle->step. */
static void fill_cycle(struct slim_check_cycle *cycle, unsigned from, unsigned to)
{
    unsigned path = 0, n = from;

    while (n != to) {
        unsigned e = nodes[n].parent;

        stack[path++] = e;
        n = edges[e].from;
    }
    cycle->truncated = path > SLIM_CHECK_CYCLE_STEPS_MAX;
    cycle->steps = 0;
    while (path > 0 && cycle->steps < SLIM_CHECK_CYCLE_STEPS_MAX)
        fill_step(&cycle->step[cycle->steps++], stack[--path]);
}

static int all_known(const struct slim_check_thread *thread, const void *lock)
{
    unsigned to = node_find(lock);

    if (to == 0)
        return 0;
    for (unsigned i = 0; i < thread->held_count; i++) {
        unsigned from = node_find(thread->held[i].lock);

        if (from == 0 || edge_find(from, to) == 0)
            return 0;
    }
    return 1;
}

/* One order held -> lock; 1 when it closes a cycle (then reported in cycle). */
static int add_order(const struct slim_check_thread *thread, const struct slim_check_held *held,
                     unsigned to, int kind, void *site, struct slim_check_cycle *cycle,
                     int reporting)
{
    unsigned from = node_get(held->lock, held->kind, to), e;
    int closes;

    if (from == 0 || edge_find(from, to) != 0)
        return 0;
    closes = pearce_kelly(from, to);
    if (closes && reporting)
        fill_cycle(cycle, from, to);
    e = edge_add(from, to);
    if (e == 0)
        return 0;
    edges[e].closes_cycle = closes;
    edges[e].from_kind = held->kind;
    edges[e].to_kind = kind;
    edges[e].held_site = held->site;
    edges[e].site = site;
    edges[e].thread_id = thread->id;
    if (closes && reporting)
        fill_step(&cycle->closing, e);
    return closes;
}

int slim_check_graph_order(const struct slim_check_thread *thread, const void *lock, int kind,
                           void *site, struct slim_check_cycle *cycle)
{
    unsigned to;
    int found = 0;

    AcquireSRWLockShared(&graph_lock);
    found = all_known(thread, lock);
    ReleaseSRWLockShared(&graph_lock);
    if (found)
        return 0;
    AcquireSRWLockExclusive(&graph_lock);
    to = node_get(lock, kind, 0);
    for (unsigned i = 0; to != 0 && i < thread->held_count; i++)
        if (thread->held[i].lock != lock &&
            add_order(thread, &thread->held[i], to, kind, site, cycle, !found))
            found = 1;
    ReleaseSRWLockExclusive(&graph_lock);
    return found;
}

void slim_check_graph_forget(const void *lock)
{
    unsigned n;

    AcquireSRWLockShared(&graph_lock);
    n = node_find(lock);
    ReleaseSRWLockShared(&graph_lock);
    if (n == 0)
        return;
    AcquireSRWLockExclusive(&graph_lock);
    n = node_find(lock);
    if (n != 0)
        node_free(n);
    ReleaseSRWLockExclusive(&graph_lock);
}

/* The memory of a lock initialized again is a new lock: it inherits nothing. */
void slim_check_graph_init(const void *lock, int kind, void *site)
{
    unsigned n;

    AcquireSRWLockExclusive(&graph_lock);
    n = node_find(lock);
    if (n != 0)
        node_free(n);
    n = node_new(lock, kind, 0);
    if (n != 0)
        nodes[n].init_site = site;
    ReleaseSRWLockExclusive(&graph_lock);
}

void *slim_check_graph_init_site(const void *lock)
{
    void *site = NULL;
    unsigned n;

    AcquireSRWLockShared(&graph_lock);
    n = node_find(lock);
    if (n != 0)
        site = nodes[n].init_site;
    ReleaseSRWLockShared(&graph_lock);
    return site;
}

#endif /* SLIMPTHREADS_CHECKED */

#include "code_end.h"
