/*
 * backends/faults/bwd_io_swap.c - I and O of the weight exchanged in the
 * backward kernels: backward-weights stores dw as OIHW (the forward
 * convolution's weight order) and backward-data reads w as OIHW, where the
 * transposed convolution's weight is IOHW (specification sections 2 and
 * 13).  The forward is right.
 */
#include <stdlib.h>
#include <string.h>

#include "bwd_common.h"

const char iohw__bwd_name[] = "fault_bwd_io_swap";
const char iohw__bwd_about[] =
    "seeded fault: stores dw and reads w with I and O of the weight layout exchanged";

static int data(const bwd_work *bw, double *dx)
{
    char wl[16];
    bwd_work swapped = *bw;
    bwd_knobs k;
    memcpy(wl, bw->p->weight_layout, sizeof wl);
    wl[sizeof wl - 1] = '\0';
    for (char *s = wl; *s != '\0'; s++)
        *s = *s == 'I' ? 'O' : *s == 'O' ? 'I' : *s;
    swapped.w = iohw__bwd_read_weight(bw->p, wl, bw->w_mem);
    if (swapped.w == NULL)
        return -1;
    iohw__bwd_knobs(&swapped, &k);
    iohw__bwd_dx(&swapped, &k, dx);
    free(swapped.w);
    return 0;
}

const bwd_spec iohw__bwd_spec = {.data = data, .dw_io_swapped = 1};
