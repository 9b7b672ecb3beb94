/*
 * tests/bwd/bwd_backend.c - a test backend for the backward directions
 * (test_run_bwd.c; specification section 13), written apart from the
 * oracle: its own plain loops over f32, groups 1, default layouts (NCW or
 * NCHW data, IOW or IOHW weights).  It claims backward problems only.
 *
 * The environment variable IOHW_BWD_KNOB makes it wrong on purpose:
 *   wrong_dx  dx[0] (n=0, c=0, first position) is off by 1
 *   oob       run_bwd_weights writes one float past the end of dw+db
 *   no_data   no run_bwd_data in the table, and supports() aborts on a
 *             BWD_D problem (so a host that asks it is caught)
 *   crash_w   run_bwd_weights raises SIGSEGV
 *   hang_w    run_bwd_weights never returns (the run's time limit ends it)
 * Unset: correct answers.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iohw/backend.h"

static char last[256];

static const char *knob(void)
{
    const char *k = getenv("IOHW_BWD_KNOB");
    return k != NULL ? k : "";
}

static const char *b_last_error(void *ctx)
{
    (void)ctx;
    return last;
}

static int refuse(const char *why)
{
    strncpy(last, why, sizeof last - 1);
    return IOHW_UNSUPPORTED;
}

static int b_supports(void *ctx, const iohw_problem *p)
{
    (void)ctx;
    if (p->struct_size < IOHW_PROBLEM_SIZE_DIR || p->direction == IOHW_DIR_FWD)
        return refuse("bwd: backward problems only");
    if (p->direction == IOHW_DIR_BWD_D && strcmp(knob(), "no_data") == 0)
        abort();   /* the host must not ask: the table has no run_bwd_data */
    if (p->dtype != IOHW_F32 || p->groups != 1 || p->rank > 2)
        return refuse("bwd: f32, groups 1, rank 1 or 2 only");
    const char *dl = p->rank == 1 ? "NCW" : "NCHW";
    const char *wl = p->rank == 1 ? "IOW" : "IOHW";
    if (strcmp(p->data_layout, dl) != 0 || strcmp(p->weight_layout, wl) != 0)
        return refuse("bwd: default layouts only");
    last[0] = '\0';
    return IOHW_OK;
}

static int b_run(void *ctx, const iohw_problem *p, const void *x,
                 const void *w, const void *bias, void *y)
{
    (void)ctx, (void)p, (void)x, (void)w, (void)bias, (void)y;
    strncpy(last, "bwd: no forward", sizeof last - 1);
    return IOHW_INVALID_PROBLEM;
}

/* Extents as two spatial axes (rank 1: a height of 1). */
typedef struct shape {
    int64_t N, CI, CO, LH, LW, OH, OW, KH, KW, SH, SW, DH, DW, PH, PW;
} shape;

static shape shape_of(const iohw_problem *p)
{
    const int r = (int)p->rank, h = r - 2, w = r - 1;
    shape s = {p->batch, p->in_channels, p->out_channels,
               r == 2 ? p->in_size[h] : 1, p->in_size[w],
               r == 2 ? p->out_size[h] : 1, p->out_size[w],
               r == 2 ? p->kernel[h] : 1, p->kernel[w],
               r == 2 ? p->stride[h] : 1, p->stride[w],
               r == 2 ? p->dilation[h] : 1, p->dilation[w],
               r == 2 ? p->pad_begin[h] : 0, p->pad_begin[w]};
    return s;
}

/* dx[n][i][l] = sum over o, k of dy[n][o][l*S - P + k*D] * w[i][o][k]. */
static int b_bwd_data(void *ctx, const iohw_problem *p, const void *dyv,
                      const void *wv, void *dxv)
{
    (void)ctx;
    const shape s = shape_of(p);
    const float *dy = dyv, *w = wv;
    float *dx = dxv;
    for (int64_t n = 0; n < s.N; n++)
    for (int64_t i = 0; i < s.CI; i++)
    for (int64_t lh = 0; lh < s.LH; lh++)
    for (int64_t lw = 0; lw < s.LW; lw++) {
        double acc = 0;
        for (int64_t o = 0; o < s.CO; o++)
        for (int64_t kh = 0; kh < s.KH; kh++)
        for (int64_t kw = 0; kw < s.KW; kw++) {
            int64_t oh = lh * s.SH - s.PH + kh * s.DH;
            int64_t ow = lw * s.SW - s.PW + kw * s.DW;
            if (oh < 0 || oh >= s.OH || ow < 0 || ow >= s.OW)
                continue;
            acc += (double)dy[((n * s.CO + o) * s.OH + oh) * s.OW + ow] *
                   w[((i * s.CO + o) * s.KH + kh) * s.KW + kw];
        }
        dx[((n * s.CI + i) * s.LH + lh) * s.LW + lw] = (float)acc;
    }
    if (strcmp(knob(), "wrong_dx") == 0)
        dx[0] += 1.0f;
    return IOHW_OK;
}

/* dw[i][o][k] = sum over n, l of x[n][i][l] * dy[n][o][l*S - P + k*D];
 * db[o] = sum over n and the output positions of dy[n][o][...]. */
static int b_bwd_weights(void *ctx, const iohw_problem *p, const void *xv,
                         const void *dyv, void *dwv, void *dbv)
{
    (void)ctx;
    const shape s = shape_of(p);
    const float *x = xv, *dy = dyv;
    float *dw = dwv, *db = dbv;
    if (strcmp(knob(), "crash_w") == 0)
        raise(SIGSEGV);
    while (strcmp(knob(), "hang_w") == 0)
        pause();
    for (int64_t i = 0; i < s.CI; i++)
    for (int64_t o = 0; o < s.CO; o++)
    for (int64_t kh = 0; kh < s.KH; kh++)
    for (int64_t kw = 0; kw < s.KW; kw++) {
        double acc = 0;
        for (int64_t n = 0; n < s.N; n++)
        for (int64_t lh = 0; lh < s.LH; lh++)
        for (int64_t lw = 0; lw < s.LW; lw++) {
            int64_t oh = lh * s.SH - s.PH + kh * s.DH;
            int64_t ow = lw * s.SW - s.PW + kw * s.DW;
            if (oh < 0 || oh >= s.OH || ow < 0 || ow >= s.OW)
                continue;
            acc += (double)x[((n * s.CI + i) * s.LH + lh) * s.LW + lw] *
                   dy[((n * s.CO + o) * s.OH + oh) * s.OW + ow];
        }
        dw[((i * s.CO + o) * s.KH + kh) * s.KW + kw] = (float)acc;
    }
    float *end = dw + s.CI * s.CO * s.KH * s.KW;
    if (p->has_bias) {
        for (int64_t o = 0; o < s.CO; o++) {
            double acc = 0;
            for (int64_t n = 0; n < s.N; n++)
                for (int64_t k = 0; k < s.OH * s.OW; k++)
                    acc += dy[(n * s.CO + o) * s.OH * s.OW + k];
            db[o] = (float)acc;
        }
        end = db + s.CO;
    }
    if (strcmp(knob(), "oob") == 0)
        *(volatile float *)end = 0.0f;
    return IOHW_OK;
}

static const iohw_backend table = {
    .abi_version = IOHW_ABI_VERSION,
    .struct_size = sizeof(iohw_backend),
    .name = "bwd",
    .version = "test 1",
    .supports = b_supports,
    .run = b_run,
    .last_error = b_last_error,
    .run_bwd_data = b_bwd_data,
    .run_bwd_weights = b_bwd_weights,
};

static iohw_backend no_data;

IOHW_EXPORT const iohw_backend *iohw_backend_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    if (strcmp(knob(), "no_data") != 0)
        return &table;
    no_data = table;
    no_data.run_bwd_data = NULL;
    return &no_data;
}
