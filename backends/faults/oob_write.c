/*
 * backends/faults/oob_write.c - writes one element past the end of y
 * (an off-by-one loop bound), on every problem; the values inside y are
 * correct.
 */
#include <string.h>

#include "fault_common.h"

const char iohw__fault_name[] = "fault_oob_write";
const char iohw__fault_about[] =
    "seeded misbehaviour: writes one element past the end of y";

static void store(const iohw_problem *p, const void *result, void *y,
                  const void *x)
{
    const size_t size = iohw__fault_elem_size(p);
    const size_t bytes = (size_t)iohw__fault_y_count(p) * size;
    (void)x;
    memcpy(y, result, bytes);
    /* y[count] = y[count - 1] */
    memcpy((unsigned char *)y + bytes, (const unsigned char *)result + bytes - size,
           size);
}

const fault_spec iohw__fault_spec = {.store = store};
