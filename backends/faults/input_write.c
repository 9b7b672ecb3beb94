/*
 * backends/faults/input_write.c - writes into its input x (uses it as
 * scratch space), on every problem; y itself is correct.  The harness maps
 * inputs read-only, so this shows up as a crash there.
 */
#include <string.h>

#include "fault_common.h"

const char iohw__fault_name[] = "fault_input_write";
const char iohw__fault_about[] =
    "seeded misbehaviour: overwrites the first element of its input x";

static void store(const iohw_problem *p, const void *result, void *y,
                  const void *x)
{
    const size_t size = iohw__fault_elem_size(p);
    memcpy(y, result, (size_t)iohw__fault_y_count(p) * size);
    /* Flip every bit of x[0]: a changed value whatever it held. */
    unsigned char *scratch = (unsigned char *)(uintptr_t)x;
    for (size_t b = 0; b < size; b++)
        scratch[b] = (unsigned char)~scratch[b];
}

const fault_spec iohw__fault_spec = {.store = store};
