/* cond.c - not yet written. */
#include "internal.h"
