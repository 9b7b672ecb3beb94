/*
 * backends/naive/naive.c - transposed convolution the obvious way.
 *
 * Definition (strict IOHW), with Cg = C_in/G and Mg = C_out/G:
 *
 *   y[n, g*Mg + m, o] = bias[g*Mg + m]
 *       + sum over c < Cg, k, and i with i*S + k*D - P = o (per axis)
 *             x[n, g*Cg + c, i] * w[g*Cg + c, m, k]
 *
 * Each output element is gathered: for every kernel tap k the input
 * position is i = (o + P - k*D) / S, used only when the division is exact
 * and 0 <= i < L.  Three spatial loops always (a missing axis has extent 1).
 * The sum runs in float for f32, f16 and bf16 (their products are exact or
 * rounded once in float) and in double for f64: the accumulators a plain
 * implementation uses.  Layouts, extents and 16-bit conversions are this
 * backend's own (naive_layout.c, naive_half.c); nothing comes from the
 * oracle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/skeleton.h"
#include "naive.h"

typedef struct naive_ctx {
    char msg[512];
} naive_ctx;

/* Element i of a tensor of dtype dt, widened (exactly) to double. */
static double load(iohw_dtype dt, const void *base, int64_t i)
{
    switch (dt) {
    case IOHW_F32: return ((const float *)base)[i];
    case IOHW_F64: return ((const double *)base)[i];
    case IOHW_F16: return iohw__naive_f16_to_float(((const uint16_t *)base)[i]);
    default: return iohw__naive_bf16_to_float(((const uint16_t *)base)[i]);
    }
}

/* Stores an accumulated value; f16 and bf16 round from the float sum. */
static void store(iohw_dtype dt, void *base, int64_t i, float vf, double vd)
{
    switch (dt) {
    case IOHW_F32: ((float *)base)[i] = vf; break;
    case IOHW_F64: ((double *)base)[i] = vd; break;
    case IOHW_F16: ((uint16_t *)base)[i] = iohw__naive_float_to_f16(vf); break;
    default: ((uint16_t *)base)[i] = iohw__naive_float_to_bf16(vf); break;
    }
}

/* Input index along one axis for output o and tap k, or -1 when no input
 * position reaches o through k. */
static int64_t input_index(const naive_geometry *g, int j, int64_t o,
                           int64_t k)
{
    const int64_t t = o + g->pb[j] - k * g->d[j];
    if (t < 0 || t % g->s[j] != 0)
        return -1;
    const int64_t i = t / g->s[j];
    return i < g->in[j] ? i : -1;
}

/* One output element y[n, g*Mg + m, od, oh, ow]. */
static void one_output(const naive_geometry *g, iohw_dtype dt, const void *x,
                       const void *w, const void *bias, void *y, int64_t n,
                       int64_t grp, int64_t m, const int64_t o[3])
{
    const int64_t co = grp * g->mg + m;
    float accf = 0.0f;
    double accd = 0.0;

    if (bias != NULL) {
        accd = load(dt, bias, co);
        accf = (float)accd;
    }
    for (int64_t c = 0; c < g->cg; c++) {
        const int64_t x_base = n * g->x_n + (grp * g->cg + c) * g->x_c;
        const int64_t w_base = grp * g->w_g + c * g->w_i + m * g->w_o;
        for (int64_t kd = 0; kd < g->k[0]; kd++) {
            const int64_t id = input_index(g, 0, o[0], kd);
            if (id < 0)
                continue;
            for (int64_t kh = 0; kh < g->k[1]; kh++) {
                const int64_t ih = input_index(g, 1, o[1], kh);
                if (ih < 0)
                    continue;
                for (int64_t kw = 0; kw < g->k[2]; kw++) {
                    const int64_t iw = input_index(g, 2, o[2], kw);
                    if (iw < 0)
                        continue;
                    const int64_t xi = x_base + id * g->x_sp[0] +
                                       ih * g->x_sp[1] + iw * g->x_sp[2];
                    const int64_t wi = w_base + kd * g->w_k[0] +
                                       kh * g->w_k[1] + kw * g->w_k[2];
                    const double xv = load(dt, x, xi);
                    const double wv = load(dt, w, wi);
                    if (dt == IOHW_F64)
                        accd += xv * wv;
                    else
                        accf += (float)xv * (float)wv;
                }
            }
        }
    }
    const int64_t yi = n * g->y_n + co * g->y_c + o[0] * g->y_sp[0] +
                       o[1] * g->y_sp[1] + o[2] * g->y_sp[2];
    store(dt, y, yi, accf, accd);
}

static int naive_init(void **ctx)
{
    naive_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        return IOHW_OUT_OF_MEMORY;
    *ctx = c;
    return IOHW_OK;
}

static void naive_fini(void *ctx)
{
    free(ctx);
}

static const char *naive_last_error(void *ctx)
{
    naive_ctx *c = ctx;
    return c != NULL ? c->msg : "";
}

static int naive_supports(void *ctx, const iohw_problem *p)
{
    naive_ctx *c = ctx;
    naive_geometry g;
    char why[512];

    if (iohw__naive_geometry(p, &g, why, sizeof why) != 0) {
        if (c != NULL)
            snprintf(c->msg, sizeof c->msg, "%s", why);
        return IOHW_UNSUPPORTED;
    }
    return IOHW_OK;
}

static int naive_run(void *ctx, const iohw_problem *p, const void *x,
                     const void *w, const void *bias, void *y)
{
    naive_ctx *c = ctx;
    naive_geometry g;
    char why[512];

    /* Test the arguments. */
    if (iohw__naive_geometry(p, &g, why, sizeof why) != 0) {
        if (c != NULL)
            snprintf(c->msg, sizeof c->msg, "%s", why);
        return IOHW_INVALID_PROBLEM;
    }
    if (skeleton_null_tensor(p, x, w, bias, y) != NULL) {
        if (c != NULL)
            snprintf(c->msg, sizeof c->msg, "a tensor pointer is NULL");
        return IOHW_INVALID_PROBLEM;
    }

    /* Form y, one element at a time. */
    int64_t o[3];
    for (int64_t n = 0; n < g.n; n++)
        for (int64_t grp = 0; grp < g.groups; grp++)
            for (int64_t m = 0; m < g.mg; m++)
                for (o[0] = 0; o[0] < g.out[0]; o[0]++)
                    for (o[1] = 0; o[1] < g.out[1]; o[1]++)
                        for (o[2] = 0; o[2] < g.out[2]; o[2]++)
                            one_output(&g, p->dtype, x, w,
                                       p->has_bias ? bias : NULL, y, n, grp,
                                       m, o);
    if (c != NULL)
        c->msg[0] = '\0';
    return IOHW_OK;
}

static const iohw_backend naive_table = {
    .abi_version = IOHW_ABI_VERSION,
    .struct_size = sizeof(iohw_backend),
    .name = "naive",
    .version = "1",
    .init = naive_init,
    .fini = naive_fini,
    .supports = naive_supports,
    .run = naive_run,
    .last_error = naive_last_error,
};

SKELETON_ENTRY(naive_table)
