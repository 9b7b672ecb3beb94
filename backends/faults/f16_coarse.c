/*
 * backends/faults/f16_coarse.c - f16 and bf16 accumulated in the 16-bit
 * type.
 *
 * The buggy code multiplies in the 16-bit type and adds every product into
 * a 16-bit accumulator (bias first, then input channel c, then kernel tap
 * k in row-major order), rounding at each step.  Products that underflow
 * the 16-bit range are lost, partial sums may overflow, and long sums lose
 * their small terms.  f32 and f64 problems are computed correctly.
 *
 * The products come from the oracle's core, one (c, k) slice at a time: a
 * sub-problem with the c-th input channel of every group and a one-tap
 * kernel holding tap k, uncropped, gives for every output position the one
 * product x[n, g*Cg + c, i] * w[g*Cg + c, m, k] that reaches it through
 * (c, k), exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "fault_common.h"
#include "oracle/dtype.h"

const char iohw__fault_name[] = "fault_f16_coarse";
const char iohw__fault_about[] =
    "seeded fault: accumulates f16 and bf16 in the 16-bit type";

/* The slice (c, tap) of the work's inputs: sub-problem s, x and w. */
static void slice(const fault_work *fw, int64_t c, const int64_t tap[3],
                  iohw_problem *s, double *xs, double *ws)
{
    const iohw_problem *p = fw->p;
    const int64_t G = p->groups, N = p->batch;
    const int64_t Cg = p->in_channels / G, Mg = p->out_channels / G;
    const int64_t taps = iohw__fault_taps(p);
    int64_t plane = 1, t = 0;

    *s = fw->q;
    s->in_channels = G;
    for (uint32_t a = 0; a < p->rank; a++) {
        plane *= p->in_size[a];
        t = t * p->kernel[a] + tap[a];
        s->kernel[a] = 1;
        s->dilation[a] = 1;
        s->out_size[a] = (p->in_size[a] - 1) * p->stride[a] + 1;
    }
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++)
            memcpy(xs + (n * G + g) * plane,
                   fw->x + (n * p->in_channels + g * Cg + c) * plane,
                   (size_t)plane * sizeof *xs);
    for (int64_t g = 0; g < G; g++)
        for (int64_t m = 0; m < Mg; m++)
            ws[g * Mg + m] = fw->w[((g * Cg + c) * Mg + m) * taps + t];
}

/* acc[n, co, o] = round(acc + round(sub[n, co, o + P - tap*D])) where the
 * sub-problem reaches that position. */
static void accumulate(const iohw_problem *p, const iohw_problem *s,
                       const int64_t tap[3], const double *sub, double *acc)
{
    const int rank = (int)p->rank;
    int64_t O[3], F[3], off[3];
    for (int j = 0; j < 3; j++) {
        const int a = j - (3 - rank);
        O[j] = a < 0 ? 1 : p->out_size[a];
        F[j] = a < 0 ? 1 : s->out_size[a];
        off[j] = a < 0 ? 0 : p->pad_begin[a] - tap[a] * p->dilation[a];
    }
    const int64_t planes = p->batch * p->out_channels;
    const int64_t fplane = F[0] * F[1] * F[2];
    int64_t at = 0;
    for (int64_t pl = 0; pl < planes; pl++)
        for (int64_t o0 = 0; o0 < O[0]; o0++)
            for (int64_t o1 = 0; o1 < O[1]; o1++)
                for (int64_t o2 = 0; o2 < O[2]; o2++, at++) {
                    const int64_t f0 = o0 + off[0], f1 = o1 + off[1];
                    const int64_t f2 = o2 + off[2];
                    if (f0 < 0 || f0 >= F[0] || f1 < 0 || f1 >= F[1] ||
                        f2 < 0 || f2 >= F[2])
                        continue;
                    const double term = iohw_dtype_round(
                        p->dtype, sub[pl * fplane + (f0 * F[1] + f1) * F[2] + f2]);
                    acc[at] = iohw_dtype_round(p->dtype, acc[at] + term);
                }
}

static int compute(const iohw_problem *p, const void *x, const void *w,
                   const void *bias, void *y, iohw_error *err)
{
    fault_work fw;
    double *acc = NULL, *xs = NULL, *ws = NULL;
    int rc = -1;

    if (iohw__fault_work_init(&fw, p, x, w, bias, err) != 0)
        return -1;
    if (p->dtype != IOHW_F16 && p->dtype != IOHW_BF16) {
        /* Wide types: the correct computation. */
        if (iohw__fault_model(&fw, &acc, err) == 0)
            rc = iohw__fault_store_canonical(p, acc, y, err);
        goto done;
    }

    /* Bias first. */
    const int64_t ny = iohw__fault_y_count(p);
    const int64_t per_channel = ny / (p->batch * p->out_channels);
    int64_t plane = 1;
    for (uint32_t a = 0; a < p->rank; a++)
        plane *= p->in_size[a];
    acc = malloc((size_t)ny * sizeof *acc);
    xs = malloc((size_t)(p->batch * p->groups * plane) * sizeof *xs);
    ws = malloc((size_t)p->out_channels * sizeof *ws);
    if (acc == NULL || xs == NULL || ws == NULL) {
        iohw_error_set(err, "f16_coarse: out of memory");
        goto done;
    }
    for (int64_t i = 0; i < ny; i++)
        acc[i] = fw.bias != NULL ? fw.bias[(i / per_channel) % p->out_channels]
                                 : 0.0;

    /* Then every (c, tap) slice. */
    const int64_t taps = iohw__fault_taps(p);
    for (int64_t c = 0; c < p->in_channels / p->groups; c++) {
        for (int64_t t = 0; t < taps; t++) {
            int64_t tap[3] = {0, 0, 0}, rest = t;
            for (int a = (int)p->rank - 1; a >= 0; a--) {
                tap[a] = rest % p->kernel[a];
                rest /= p->kernel[a];
            }
            iohw_problem s;
            double *sub = NULL;
            slice(&fw, c, tap, &s, xs, ws);
            if (iohw__fault_full(&s, xs, ws, &sub, err) != 0)
                goto done;
            accumulate(p, &s, tap, sub, acc);
            free(sub);
        }
    }
    rc = iohw__fault_store_canonical(p, acc, y, err);
done:
    free(acc);
    free(xs);
    free(ws);
    iohw__fault_work_free(&fw);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute = compute};
