/*
 * oracle/index.c - the index map of the definitions (index.h).
 */
#include "oracle/index.h"

#include "oracle/problem.h"

/* Product of the first R entries of an extent array. */
static int64_t volume(const int64_t *ext, int R)
{
    int64_t v = 1;
    for (int a = 0; a < R; a++)
        v *= ext[a];
    return v;
}

iohw__extents iohw__extents_of(const iohw_problem *p)
{
    const int R = (int)p->rank;
    iohw__extents e;
    e.N = p->batch;
    e.C_in = p->in_channels;
    e.C_out = p->out_channels;
    e.G = p->groups;
    e.Cg = e.C_in / e.G;
    e.Mg = e.C_out / e.G;
    e.LV = volume(p->in_size, R);
    e.KV = volume(p->kernel, R);
    e.OV = volume(p->out_size, R);
    return e;
}

/* Each product is bounded by the validated output-size formula; their sum
 * may still overflow for a huge pad_end, and then lies far outside y. */
int64_t iohw__out_position(const iohw_problem *p, int64_t k, int64_t i)
{
    int64_t o = 0, place = 1;
    for (int a = (int)p->rank - 1; a >= 0; a--) {
        const int64_t k_a = k % p->kernel[a], i_a = i % p->in_size[a];
        k /= p->kernel[a];
        i /= p->in_size[a];
        int64_t o_a;
        if (__builtin_add_overflow(i_a * p->stride[a] - p->pad_begin[a],
                                   k_a * p->dilation[a], &o_a))
            return -1;
        if (o_a < 0 || o_a >= p->out_size[a])
            return -1;
        o += o_a * place;
        place *= p->out_size[a];
    }
    return o;
}

/* The multiply-adds of p (problem.h): every input element meets the Mg
 * output channels of its group through every kernel tap. */
double iohw_problem_macs(const iohw_problem *p)
{
    double per_input = (double)p->out_channels / (double)p->groups;
    for (uint32_t a = 0; a < p->rank && a < 3; a++)
        per_input *= (double)p->kernel[a];
    return (double)iohw_problem_x_count(p) * per_input;
}
