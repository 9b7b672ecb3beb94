/*
 * generators/suite_qlib.c - quantized rows that the int8 libraries claim
 * (specification section 11.4), planned at the end of quant.h5 so that the
 * ids before them stay the same.
 *
 * The rows of suite_quant.c and suite_qdesign.c mix types, ranks and
 * roundings, and none of their 2-d cases is what XNNPACK's qs8/qu8
 * deconvolution or oneDNN 2.6's int8 deconvolution computes.  These are:
 * rank 2, round=half_even, M in the scales form, and types
 *   qs8    x, w, y s8, zp_w = 0, one M      (XNNPACK qs8, oneDNN)
 *   qu8    x, w, y u8, any zp_w, one M      (XNNPACK qu8)
 *   u8s8   x u8, w s8 (zp_w = 0), y u8, M per channel along O (oneDNN)
 * as a covering array (qrandom data: output scale and zero point fitted,
 * few outputs saturate) of every pair of values of
 *   type      qs8 qu8 u8s8
 *   channels  C_in, C_out, G: 1,1,1  3,17,1  16,8,1  10,14,2  6,6,6  17,3,1
 *             (XNNPACK's vector tails: channel counts 1 to 17 per group)
 *   stride    1  2  3x2       kernel  1  3  2x4      dilation  1  2x1
 *   padding   0  1  1:0x0:2   output padding  0  1 (below the stride)
 *   input     1x7  5x3  3x9 (odd widths)     bias, batch  0/1, 1/2
 *   layouts   NHWC data with HWOI or IOHW weights; NCHW data (u8s8 only)
 *   zp_x      inside the type, its lowest value, its highest value
 * under the rules: NCHW data only for u8s8 (XNNPACK takes NHWC, and
 * --adapt-layout leaves quantized cases as they are), output padding
 * below the stride, and every output side
 * at least the stride (XNNPACK's D3, docs/CONFORMANCE.md, is a finding of
 * its own, kept in cases/regressions/).  smoke takes the array's first
 * SMOKE_ROWS rows, ci and full the whole array.  Then designed rows
 * (fill_qdesign.h) of type qu8, the one type whose designed fills the
 * libraries claim (the designed fills choose a non-zero zp_w for s8
 * weights): ties for half_even, saturation, the I/O exchange trap, zero
 * points at the ends of u8, and unsaturated groups, in NHWC; the first
 * three in smoke (which stays within 300 cases: suite_qdesign.c gives up
 * six rows for these), each with both weight layouts in ci and full.
 *
 * Every case is tagged qlib (and, designed, qdesign with its bug's tag).
 */
#include "generators/suite_internal.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "generators/fill_quant.h"
#include "oracle/problem.h"

enum { F_TYPE, F_CH, F_STRIDE, F_KERNEL, F_DIL, F_PAD, F_OP, F_IN, F_BIAS, F_BATCH,
       F_LAYOUT, F_ZPX, NF };

static const int NVALUES[NF] = {3, 6, 3, 3, 2, 3, 2, 3, 2, 2, 3, 3};

#define SMOKE_ROWS 3      /* and SMOKE_DESIGNED designed rows */
#define SMOKE_DESIGNED 3

static const int CH[6][3] = {{1, 1, 1}, {3, 17, 1}, {16, 8, 1}, {10, 14, 2}, {6, 6, 6},
                             {17, 3, 1}};
static const int STRIDE[3][2] = {{1, 1}, {2, 2}, {3, 2}};
static const int KERNEL[3][2] = {{1, 1}, {3, 3}, {2, 4}};
static const int DIL[2][2] = {{1, 1}, {2, 1}};
static const char *const PAD[3] = {"0", "1", "1:0x0:2"};
static const int PAD_SUM[3][2] = {{0, 0}, {2, 2}, {1, 2}};
static const int IN[3][2] = {{1, 7}, {5, 3}, {3, 9}};
/* NHWC data for the types XNNPACK claims (iohw run --adapt-layout leaves
 * quantized cases in their own layouts); oneDNN's takes any. */
static const char *const LAYOUT[3] = {"xl=NHWC wl=HWOI", "xl=NHWC wl=IOHW",
                                      "xl=NCHW wl=IOHW"};

/* x, w, y types, per channel, and zp_x, zp_w by the zp_x value. */
static const char *const WT[3] = {"s8", "u8", "s8"};
static const char *const YT[3] = {"s8", "u8", "u8"};
static const int PC[3] = {0, 0, 1};
static const int ZPX[3][3] = {{3, -128, 127}, {131, 0, 255}, {120, 0, 255}};
static const int ZPW[3][3] = {{0, 0, 0}, {125, 255, 0}, {0, 0, 0}};

/* The output side of axis a, or INT_MAX while a value it needs is open
 * (an open output padding counts as 1: the predicate stays sound). */
static int out_side(const int *v, int a)
{
    if (v[F_STRIDE] < 0 || v[F_KERNEL] < 0 || v[F_DIL] < 0 || v[F_PAD] < 0 || v[F_IN] < 0)
        return INT_MAX;
    return STRIDE[v[F_STRIDE]][a] * (IN[v[F_IN]][a] - 1) + (v[F_OP] != 0) +
           (KERNEL[v[F_KERNEL]][a] - 1) * DIL[v[F_DIL]][a] + 1 - PAD_SUM[v[F_PAD]][a];
}

static int valid(const int *v, void *ctx)
{
    (void)ctx;
    if (v[F_OP] == 1 && v[F_STRIDE] == 0)
        return 0; /* output padding below the stride */
    if (v[F_LAYOUT] == 2 && v[F_TYPE] >= 0 && v[F_TYPE] != 2)
        return 0; /* XNNPACK: NHWC data */
    for (int a = 0; a < 2; a++)
        if (out_side(v, a) < STRIDE[v[F_STRIDE] >= 0 ? v[F_STRIDE] : 0][a])
            return 0; /* every output side at least the stride */
    return 1;
}

static int add_case(iohw_plan *plan, const char *text, iohw_dtype dt, const char *fill,
                    const char *tags, iohw_error *err)
{
    iohw_desc d;
    if (iohw__desc_from(text, dt, fill, &d, err) != 0)
        return -1;
    d.seed = iohw__plan_next_seed(plan, IOHW__CAT_QUANT);
    if (iohw__quant_fit_desc(&d, err) != 0) /* the manifest names the case */
        return iohw_error_prefix(err, "suite: '%s'", text);
    return iohw__plan_add(plan, IOHW__CAT_QUANT, &d, tags, 1, err);
}

static int add_row(iohw_plan *plan, const int *v, iohw_error *err)
{
    char text[IOHW_DESC_MAX];
    const int t = v[F_TYPE], *ch = CH[v[F_CH]], *s = STRIDE[v[F_STRIDE]];
    const int *k = KERNEL[v[F_KERNEL]], *d = DIL[v[F_DIL]], *in = IN[v[F_IN]];
    int n = snprintf(text, sizeof text,
                     "n=%d ci=%d co=%d g=%d in=%dx%d k=%dx%d s=%dx%d d=%dx%d pad=%s op=%d "
                     "bias=%d wdt=%s ydt=%s zp=%d,%d,0 round=half_even m=scales pc=%d "
                     "sx=0.5 %s",
                     1 + v[F_BATCH], ch[0], ch[1], ch[2], in[0], in[1], k[0], k[1], s[0],
                     s[1], d[0], d[1], PAD[v[F_PAD]], v[F_OP], v[F_BIAS], WT[t], YT[t],
                     ZPX[t][v[F_ZPX]], ZPW[t][v[F_ZPX]], PC[t],
                     LAYOUT[v[F_LAYOUT]]);
    if (n < 0 || (size_t)n >= sizeof text)
        return iohw_error_set(err, "suite: library quantized row too long");
    return add_case(plan, text, t == 0 ? IOHW_S8 : IOHW_U8, "qrandom", "qlib", err);
}

typedef struct qdesigned {
    const char *shape, *fill, *bug;
} qdesigned;

static const qdesigned DESIGNED[] = {
    {"ci=3 co=17 in=5x7 k=3x3 s=2x2 bias=1", "qties", "bug-quant-rounding,bug-quant-zp-y"},
    {"ci=2 co=5 in=4x9 k=3x3 s=3x2 op=1x1", "qsaturate", "bug-quant-saturation"},
    {"ci=4 co=6 g=2 in=3x5 k=3x2 s=2x1 pad=0:1x1:0 bias=1", "qio-trap",
     "bug-quant-io-swap,bug-quant-bias-scale"}, /* qunsat data, with a bias */
    {"n=2 ci=16 co=9 in=3x5 k=2x3 s=2x1 pad=1:0x0 bias=1", "qzp-extreme",
     "bug-quant-zero-point"},
    {"ci=10 co=14 g=2 in=3x3 k=3x3 d=2x2 pad=1 bias=1", "qunsat",
     "bug-quant-zero-point,bug-quant-bias-scale"},
};
#define NDESIGNED (sizeof DESIGNED / sizeof DESIGNED[0])

static int add_designed(iohw_plan *plan, const qdesigned *r, int layout, iohw_error *err)
{
    char text[IOHW_DESC_MAX], tags[IOHW_PLAN_TAGS_MAX];
    snprintf(text, sizeof text, "%s wdt=u8 ydt=u8 round=half_even m=scales pc=0 %s", r->shape,
             LAYOUT[layout]);
    snprintf(tags, sizeof tags, "qlib,qdesign,%s", r->bug);
    return add_case(plan, text, IOHW_U8, r->fill, tags, err);
}

int iohw__plan_qlib(iohw_plan *plan, const iohw__profile *pr, iohw_error *err)
{
    const int smoke = pr->quant_variants <= 1;
    iohw_pw_spec s;
    memset(&s, 0, sizeof s);
    s.nfactors = NF;
    s.nvalues = NVALUES;
    s.valid = valid;
    s.seed = UINT64_C(0x91ab0);
    s.max_rows = smoke ? SMOKE_ROWS : 0;
    if (iohw__plan_array(plan, &s, add_row, err) != 0)
        return iohw_error_prefix(err, "suite: library quantized array");
    /* smoke: the weight layouts in turn; ci and full: both for each */
    for (size_t i = 0; i < NDESIGNED && (!smoke || i < SMOKE_DESIGNED); i++)
        for (int last = smoke ? (int)i % 2 : 0; last <= (smoke ? (int)i % 2 : 1); last++)
            if (add_designed(plan, &DESIGNED[i], last, err) != 0)
                return -1;
    return 0;
}
