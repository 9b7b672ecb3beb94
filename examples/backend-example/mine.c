/* mine.c - a minimal iohw backend: f32, rank 2, NCHW data, IOHW weight. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "iohw/backend.h"

/* Per-load state: only the text last_error() returns. */
typedef struct mine_ctx {
    const char *why;
} mine_ctx;

static int mine_init(void **ctx)
{
    mine_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        return IOHW_OUT_OF_MEMORY;
    c->why = "";
    *ctx = c;
    return IOHW_OK;
}

static void mine_fini(void *ctx)
{
    free(ctx);
}

static const char *mine_last_error(void *ctx)
{
    const mine_ctx *c = ctx;
    return c != NULL ? c->why : "";
}

static int mine_supports(void *ctx, const iohw_problem *p)
{
    mine_ctx *c = ctx;
    c->why = "";
    if (p->struct_size < IOHW_PROBLEM_SIZE_V1)
        c->why = "problem struct shorter than version 1's";
    else if (p->rank != 2)
        c->why = "only 2-d problems";
    else if (p->dtype != IOHW_F32)
        c->why = "only f32";
    else if (strcmp(p->data_layout, "NCHW") != 0)
        c->why = "only NCHW data";
    else if (strcmp(p->weight_layout, "IOHW") != 0)
        c->why = "only IOHW weights";
    return c->why[0] == '\0' ? IOHW_OK : IOHW_UNSUPPORTED;
}

static int mine_run(void *ctx, const iohw_problem *p, const void *xv,
                    const void *wv, const void *bv, void *yv)
{
    const float *x = xv, *w = wv, *bias = bv; /* bias is NULL without bias */
    float *y = yv;
    const int64_t N = p->batch, G = p->groups;
    const int64_t C_in = p->in_channels, C_out = p->out_channels;
    const int64_t Cg = C_in / G, Mg = C_out / G;
    const int64_t H = p->in_size[0], W = p->in_size[1];
    const int64_t KH = p->kernel[0], KW = p->kernel[1];
    const int64_t SH = p->stride[0], SW = p->stride[1];
    const int64_t DH = p->dilation[0], DW = p->dilation[1];
    const int64_t PH = p->pad_begin[0], PW = p->pad_begin[1];
    const int64_t OH = p->out_size[0], OW = p->out_size[1];
    (void)ctx;

    /* Start every output element at its bias (or 0). */
    for (int64_t n = 0; n < N; n++)
        for (int64_t co = 0; co < C_out; co++)
            for (int64_t i = 0; i < OH * OW; i++)
                y[(n * C_out + co) * OH * OW + i] = bias ? bias[co] : 0.0f;

    /* Scatter every product x[n, g*Cg + c, ih, iw] * w[g*Cg + c, m, kh, kw]
     * to y[n, g*Mg + m, ih*SH + kh*DH - PH, iw*SW + kw*DW - PW]. */
    for (int64_t n = 0; n < N; n++)
    for (int64_t g = 0; g < G; g++)
    for (int64_t c = 0; c < Cg; c++)
    for (int64_t m = 0; m < Mg; m++)
    for (int64_t ih = 0; ih < H; ih++)
    for (int64_t iw = 0; iw < W; iw++)
    for (int64_t kh = 0; kh < KH; kh++)
    for (int64_t kw = 0; kw < KW; kw++) {
        const int64_t oh = ih * SH + kh * DH - PH;
        const int64_t ow = iw * SW + kw * DW - PW;
        if (oh < 0 || oh >= OH || ow < 0 || ow >= OW)
            continue; /* cropped away by the padding */
        const int64_t ci = g * Cg + c, co = g * Mg + m;
        y[((n * C_out + co) * OH + oh) * OW + ow] +=
            x[((n * C_in + ci) * H + ih) * W + iw] *
            w[((ci * Mg + m) * KH + kh) * KW + kw];
    }
    return IOHW_OK;
}

static const iohw_backend mine = {
    .abi_version = IOHW_ABI_VERSION,
    .struct_size = sizeof(iohw_backend),
    .name = "mine",
    .version = "0.1",
    .init = mine_init,
    .fini = mine_fini,
    .supports = mine_supports,
    .run = mine_run,
    .last_error = mine_last_error,
};

IOHW_EXPORT const iohw_backend *iohw_backend_entry(uint32_t host_abi_version)
{
    return host_abi_version >= 1 ? &mine : NULL;
}
