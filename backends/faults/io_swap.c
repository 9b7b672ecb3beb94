/*
 * backends/faults/io_swap.c - the weight's I and O axes exchanged.
 *
 * The buggy code reads the weight memory as if its layout string had I and
 * O exchanged (IOHW read as OIHW, GOIHW as GIOHW, ...), with the same
 * extents: w'[i][o][k] is the element the other layout would keep at
 * (i, o, k).  Invisible only when the two readings coincide (one I and one
 * O channel, or data symmetric under the exchange).
 */
#include <stdlib.h>
#include <string.h>

#include "fault_common.h"
#include "oracle/layout.h"

const char iohw__fault_name[] = "fault_io_swap";
const char iohw__fault_about[] =
    "seeded fault: reads the weight with I and O exchanged";

static int perturb(fault_work *fw, iohw_error *err)
{
    char other[16];
    iohw_layout_map right, wrong;

    /* The layout string with I and O exchanged. */
    memcpy(other, fw->p->weight_layout, sizeof other);
    other[sizeof other - 1] = '\0';
    char *i = strchr(other, 'I');
    char *o = strchr(other, 'O');
    if (i == NULL || o == NULL)
        return iohw_error_set(err, "io_swap: weight layout '%s' lacks I or O",
                              other);
    *i = 'O';
    *o = 'I';

    /* Back to memory through the real layout, read through the other. */
    if (iohw_layout_weight_map(fw->p, &right, err) != 0 ||
        iohw_layout_weight_map_as(fw->p, other, &wrong, err) != 0)
        return -1;
    double *mem = malloc((size_t)right.count * sizeof *mem);
    if (mem == NULL)
        return iohw_error_set(err, "io_swap: out of memory");
    iohw_layout_from_canonical(&right, sizeof(double), fw->w, mem);
    iohw_layout_to_canonical(&wrong, sizeof(double), mem, fw->w);
    free(mem);
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
