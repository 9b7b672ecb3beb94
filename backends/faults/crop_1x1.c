/*
 * backends/faults/crop_1x1.c - a 1x1 fast path that forgets the crop.
 *
 * With a kernel of one tap on every axis and stride 1, the transposed
 * convolution is a GEMM over the input positions: the uncropped output
 * (F_a = L_a positions per axis) is x times w.  The buggy code takes that
 * path also when the problem has padding (out = in - pad_begin - pad_end,
 * specification section 1) and stores the GEMM's result from its first
 * position: output position o shows full position o instead of
 * o + pad_begin, so the pad_end side keeps positions that belong to the
 * crop and the pad_begin side loses its own.  OpenCV's DNN module (4.6)
 * has this path (is1x1() ignores the pads) and writes past the output
 * buffer besides; this fault stays inside it.  Every other problem is
 * computed correctly.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_crop_1x1";
const char iohw__fault_about[] =
    "seeded fault: a 1x1 stride-1 fast path that ignores pad_begin";

/* 1 when the fast path applies: one tap and stride 1 on every axis. */
static int is_1x1(const iohw_problem *p)
{
    for (uint32_t a = 0; a < p->rank; a++)
        if (p->kernel[a] != 1 || p->stride[a] != 1)
            return 0;
    return 1;
}

static int perturb(fault_work *fw, iohw_error *err)
{
    const iohw_problem *p = fw->p;
    (void)err;
    if (!is_1x1(p))
        return 0;
    for (uint32_t a = 0; a < p->rank; a++)
        for (int64_t o = 0; o < p->out_size[a]; o++)
            fw->map[a][o] = o < fw->q.out_size[a] ? o : -1;
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
