/*
 * backends/faults/unwritten.c - leaves the last position of the W axis
 * unwritten (an off-by-one loop bound), on every problem; every other
 * element of y is correct.
 */
#include <string.h>

#include "fault_common.h"
#include "oracle/layout.h"

const char iohw__fault_name[] = "fault_unwritten";
const char iohw__fault_about[] =
    "seeded misbehaviour: never writes the last W position of y";

static void store(const iohw_problem *p, const void *result, void *y,
                  const void *x)
{
    const size_t size = iohw__fault_elem_size(p);
    const int64_t count = iohw__fault_y_count(p);
    iohw_layout_map m;
    (void)x;
    if (iohw_layout_data_map(p, 1, &m, NULL) != 0) {
        memcpy(y, result, (size_t)count * size);
        return;
    }
    /* In a dense layout the W coordinate of element e is
     * (e / stride_W) % O_W; W is the last canonical axis. */
    const int64_t stride = m.canon_stride[m.ncanon - 1];
    const int64_t extent = m.canon_shape[m.ncanon - 1];
    for (int64_t e = 0; e < count; e++)
        if ((e / stride) % extent != extent - 1)
            memcpy((unsigned char *)y + (size_t)e * size,
                   (const unsigned char *)result + (size_t)e * size, size);
}

const fault_spec iohw__fault_spec = {.store = store};
