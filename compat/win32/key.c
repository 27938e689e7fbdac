/* key.c - not yet written. */
#include "internal.h"

void slim_keys_run_destructors(struct slim_thread *self)
{
    (void)self;
}
