/*
 * backends/faults/bwd_io_swap.c - dw returned with I and O exchanged: the
 * backward-weights kernel stores dw as OIHW (the forward convolution's
 * weight order) where the transposed convolution's weight is IOHW
 * (specification sections 2 and 13).  dx and the forward are right.
 */
#include "bwd_common.h"

const char iohw__bwd_name[] = "fault_bwd_io_swap";
const char iohw__bwd_about[] =
    "seeded fault: stores dw with I and O of the weight layout exchanged";

const bwd_spec iohw__bwd_spec = {.dw_io_swapped = 1};
