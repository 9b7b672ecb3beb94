/*
 * backends/exec/exec_class.c - the class of a problem: what a program's
 * support usually depends on, so that the exec backend asks the program
 * once per class (docs/EXEC_PROTOCOL.md, "What the backend makes of it").
 *
 * A class is the rank, dtype, layouts and has_bias; whether groups > 1;
 * per spatial axis whether the stride is > 1, the dilation is > 1, there
 * is padding, the padding is asymmetric, there is output_padding, it is at
 * least the stride and at least max(stride, dilation); the stated
 * convention (specification section 12); and for a quantized problem
 * (section 11) w's and y's types, the rounding, the form of M, per-channel
 * M and which zero points are not 0.  Problems that differ only in sizes
 * and values share it.
 */
#include "backends/exec/exec.h"

#include <string.h>

#include "oracle/quant_problem.h"

/* Bits of the flags per spatial axis. */
#define AXIS_BITS 7

/* The quantized parameters a program may refuse, packed; 0 for a float
 * problem. */
static uint32_t quant_bits(const iohw_problem *p)
{
    if (!iohw_problem_is_quant(p))
        return 0;
    return (uint32_t)iohw_problem_w_dtype(p) |
           (uint32_t)iohw_problem_y_dtype(p) << 4 |
           (uint32_t)(p->rounding & 7) << 8 |
           (uint32_t)(p->m_form & 3) << 11 |
           (uint32_t)(p->per_channel != 0) << 13 |
           (uint32_t)(p->zp_x != 0) << 14 |
           (uint32_t)(p->zp_w != 0) << 15 |
           (uint32_t)(p->zp_y != 0) << 16;
}

void iohw__exec_class_of(const iohw_problem *p, exec_class *k)
{
    memset(k, 0, sizeof *k);
    k->rank = p->rank;
    k->dtype = p->dtype;
    k->has_bias = p->has_bias;
    memcpy(k->data_layout, p->data_layout, sizeof k->data_layout);
    memcpy(k->weight_layout, p->weight_layout, sizeof k->weight_layout);
    k->flags = p->groups > 1;
    for (int a = 0; a < (int)p->rank; a++) {
        const int64_t s = p->stride[a], d = p->dilation[a];
        const int64_t op = p->output_padding[a], lim = s > d ? s : d;
        const uint32_t bits =
            (uint32_t)(s > 1) |
            (uint32_t)(d > 1) << 1 |
            (uint32_t)(p->pad_begin[a] > 0 || p->pad_end[a] > 0) << 2 |
            (uint32_t)(p->pad_begin[a] != p->pad_end[a]) << 3 |
            (uint32_t)(op > 0) << 4 |
            (uint32_t)(op >= lim) << 5 |
            (uint32_t)(op >= s) << 6;
        k->flags |= bits << (1 + AXIS_BITS * a);
    }
    /* The stated convention (specification section 12): a program that
     * passes it through may answer differently for it. */
    k->flags |= (uint32_t)(p->auto_pad & 3) << 22 | (uint32_t)(p->convention & 7) << 24 |
                (uint32_t)(p->out_shape[0] > 0) << 27;
    k->quant = quant_bits(p);
    k->direction = p->direction;
}

int iohw__exec_same_class(const exec_class *a, const exec_class *b)
{
    return a->rank == b->rank && a->dtype == b->dtype &&
           a->has_bias == b->has_bias && a->flags == b->flags &&
           a->quant == b->quant && a->direction == b->direction &&
           strcmp(a->data_layout, b->data_layout) == 0 &&
           strcmp(a->weight_layout, b->weight_layout) == 0;
}
