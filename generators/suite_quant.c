/*
 * generators/suite_quant.c - the quantized category of the suites
 * (specification sections 9 and 11.4): quant.h5.
 *
 * Sixteen rows with random data (fill=qrandom) cover x s8 and u8, w s8 and
 * u8, y s8, u8 and s32, M per tensor and per channel, both forms of M,
 * every rounding (gemmlowp in the fixed form only), groups, depthwise,
 * strides, dilation, padding and output padding, in every rank.  smoke
 * takes each row once; ci and full take it in five variants: the row, then
 * channels-last data with O,spatial,I weights, then M per channel flipped,
 * then w's type flipped, then the form of M flipped (gemmlowp stays
 * fixed); each with its own seed.
 *
 * qrandom fits zp_y and s_y (or the multipliers) to the data, so each
 * planned descriptor is fitted here, with its seed, so that the manifest
 * holds the descriptor the case file will (iohw__quant_fit_desc).
 *
 * Designed data (ties, extreme zero points, traps) belong in functions of
 * their own beside iohw__plan_quant_random.
 */
#include "generators/suite_internal.h"

#include <stdio.h>
#include <string.h>

#include "generators/fill_quant.h"
#include "oracle/problem.h"

typedef struct qrow {
    const char *shape;     /* ci co g in k s d pad op bias */
    const char *x, *w, *y; /* types */
    const char *zp;        /* X,W (Y: fitted, or 0 for s32) */
    const char *round;     /* NULL for an s32 y */
    const char *m;
    int pc;
} qrow;

static const qrow ROWS[] = {
    {"ci=3 co=4 in=7 k=3 s=2 bias=1", "s8", "s8", "s8", "0,0", "half_even", "scales", 0},
    {"ci=4 co=6 g=2 in=6 k=3 s=3 pad=1", "u8", "u8", "u8", "128,131", "half_away", "scales", 1},
    {"ci=2 co=3 in=9 k=4 s=2 op=1 bias=1", "s8", "s8", "s32", "-3,2", NULL, NULL, 0},
    {"ci=4 co=4 g=4 in=8 k=3 s=2", "u8", "s8", "u8", "100,0", "gemmlowp", "fixed", 1},
    {"ci=3 co=2 in=4x5 k=3x2 s=2x1 pad=1x0 bias=1", "s8", "s8", "s8", "5,-1", "half_up", "fixed", 0},
    {"n=2 ci=4 co=6 g=2 in=3x4 k=2x3 s=2", "u8", "u8", "s8", "0,127", "half_even", "fixed", 1},
    {"ci=2 co=4 in=5x3 k=3x3 d=2x1 pad=2x1", "s8", "u8", "u8", "-128,128", "half_away", "scales", 0},
    {"ci=6 co=3 g=3 in=4x4 k=2x2 s=2 bias=1", "u8", "s8", "s32", "255,-128", NULL, NULL, 0},
    {"ci=4 co=8 g=2 in=3x3 k=3x3 s=2x2 op=1x0 bias=1", "s8", "s8", "s8", "0,0", "gemmlowp", "fixed", 1},
    {"ci=3 co=3 in=5x5 k=2x4 s=1x2", "u8", "u8", "u8", "64,200", "half_up", "scales", 1},
    {"ci=2 co=4 g=2 in=2x3x3 k=2x2x2 s=2x1x2 bias=1", "s8", "s8", "u8", "1,1", "half_even", "scales", 1},
    {"ci=3 co=2 in=3x2x3 k=2x2x1 s=1x2x2", "u8", "u8", "s8", "128,128", "gemmlowp", "fixed", 0},
    {"ci=2 co=2 in=2x2x3 k=2x1x2 s=2 pad=0x0x1", "s8", "u8", "s32", "-1,0", NULL, NULL, 0},
    {"ci=5 co=5 g=5 in=6 k=2 s=2 bias=1", "s8", "s8", "u8", "0,3", "half_up", "fixed", 1},
    {"ci=4 co=6 g=2 in=4x3 k=3x1 s=3x1 d=1x2", "u8", "s8", "s8", "10,-5", "half_away", "fixed", 1},
    {"ci=8 co=3 in=12 k=5 s=4 op=2 bias=1", "u8", "u8", "u8", "0,255", "half_even", "scales", 0},
};
#define NROWS (sizeof ROWS / sizeof ROWS[0])

/* Variants of a row (see the top of the file). */
enum { V_ROW, V_CHANNELS_LAST, V_PER_CHANNEL, V_W_TYPE, V_M_FORM, NVARIANTS };

/* The row's descriptor in variant v (rank: the shape's). */
static int row_text(const qrow *r, int v, int rank, char *buf, size_t n)
{
    const char *sp = iohw_spatial_letters(rank);
    const char *w = v == V_W_TYPE ? (strcmp(r->w, "s8") == 0 ? "u8" : "s8") : r->w;
    const char *zpw = v == V_W_TYPE ? "0" : strchr(r->zp, ',') + 1;
    const int xzlen = (int)(strchr(r->zp, ',') - r->zp);
    int len = snprintf(buf, n, "%s dt=%s wdt=%s ydt=%s zp=%.*s,%s,0", r->shape, r->x, w,
                       r->y, xzlen, r->zp, zpw);
    if (len > 0 && (size_t)len < n && r->round != NULL) {
        const int gemmlowp = strcmp(r->round, "gemmlowp") == 0;
        const int fixed = (strcmp(r->m, "fixed") == 0) != (v == V_M_FORM && !gemmlowp);
        len += snprintf(buf + len, n - (size_t)len, " round=%s m=%s pc=%d%s", r->round,
                        fixed ? "fixed" : "scales", r->pc != (v == V_PER_CHANNEL),
                        fixed ? "" : " sx=0.5");
    }
    if (len > 0 && (size_t)len < n && v == V_CHANNELS_LAST)
        len += snprintf(buf + len, n - (size_t)len, " xl=N%sC wl=O%sI", sp, sp);
    return len > 0 && (size_t)len < n ? 0 : -1;
}

/* One planned case: its seed, then the fit of its output parameters. */
static int plan_one(iohw_plan *plan, const char *text, iohw_error *err)
{
    iohw_desc d;
    if (iohw__desc_from(text, 0, "qrandom", &d, err) != 0)
        return -1;
    d.seed = iohw__plan_next_seed(plan, IOHW__CAT_QUANT);
    if (iohw__quant_fit_desc(&d, err) != 0)
        return iohw_error_prefix(err, "suite: '%s'", text);
    return iohw__plan_add(plan, IOHW__CAT_QUANT, &d, NULL, 1, err);
}

/* The random rows: each once (smoke), or in every variant. */
int iohw__plan_quant_random(iohw_plan *plan, const iohw__profile *pr, iohw_error *err)
{
    char text[IOHW_DESC_MAX];
    const int variants = pr->quant_variants;
    for (int v = 0; v < variants; v++) {
        for (size_t i = 0; i < NROWS; i++) {
            iohw_desc shape;
            if (iohw__desc_from(ROWS[i].shape, 0, NULL, &shape, err) != 0)
                return -1;
            if (row_text(&ROWS[i], v % NVARIANTS, (int)shape.p.rank, text, sizeof text) != 0)
                return iohw_error_set(err, "suite: quant row %zu: descriptor too long", i);
            if (plan_one(plan, text, err) != 0)
                return -1;
        }
    }
    return 0;
}

/* The quantized category. */
int iohw__plan_quant(iohw_plan *plan, const iohw__profile *pr, iohw_error *err)
{
    if (iohw__plan_quant_random(plan, pr, err) != 0 || iohw__plan_qdesign(plan, pr, err) != 0)
        return -1;
    if (iohw__plan_qlib(plan, pr, err) != 0)
        return -1;
    return iohw__plan_qzp_y(plan, pr, err);
}
