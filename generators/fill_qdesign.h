/*
 * generators/fill_qdesign.h - designed data for quantized problems
 * (specification section 11): the parameters (zero points, scales or
 * multiplier and shift) and the integer tensors, chosen together so that a
 * case tests one thing.  Internal to generators/ (and its tests).
 *
 * Every fill works on the canonical tensors of the oracle (oracle/quant.h):
 * x_q[N][C_in][L...], w_q[C_in][Mg][K...], bias_q[C_out].  M is always
 * m * 2^-k with a small odd m, in the scales form (s_x, s_y powers of two,
 * s_w[oc] = m * 2^e) or the fixed form (TFLite's multiplier in [2^30, 2^31)
 * and a shift), so a binary32 requantization is exact on these cases
 * (specification section 11.2's bound: |acc| * m < 2^24).
 *
 *   qunsat     zero points drawn inside the types; s_y and zp_y chosen
 *              from the accumulator's range (as XNNPACK's tester does):
 *              the outputs span the output type and almost none saturates;
 *   qsaturate  the same with M four times larger: the smallest and the
 *              largest accumulators saturate, at both ends;
 *   qzp-extremezero points at the ends of their types (0 or 255 for u8,
 *              -128 or 127 for s8, chosen by the seed); with a bias, the
 *              bias moves the accumulators to the side zp_y leaves room on;
 *   qchannels  per-channel M (along O): the weights of output channel oc
 *              are scaled down by 2^d(oc), d spread over 0..5, and M[oc]
 *              taken from the channel's own range, so the scales spread
 *              over powers of two and every channel spans its output;
 *   qties      M = m/2 (m = 1 or 3) with x - zp_x in {-2, -1, 1, 2},
 *              w - zp_w = +-2^(k-1) and M scaled by 2^-(k-1) (k = 1..3),
 *              the bias a multiple of 2^(k-1): about half the outputs are
 *              exact ties k + 1/2 of both signs and both parities; for
 *              gemmlowp M = 1/4 (multiplier 2^30, shift -1), where exact
 *              ties and quarter points (double rounding) both occur;
 *   qio-trap   qunsat on a problem with C_in != C_out/G (an error
 *              otherwise): reading the weight with I and O exchanged
 *              changes its shape;
 *   qgroup-trap
 *              qchannels on a problem with G > 1 (an error otherwise).
 *
 * The fills of the scales and sizes people deploy (generators/
 * fill_qdeploy.c) leave that bound on purpose:
 *   qdeploy    calibrated-looking binary32 scales (s_x 1/255, 1/127 or a
 *              calibrated value, s_y calibrated, s_w[oc] found so that the
 *              exact M is just below 1/2 while M computed in binary32 is
 *              1/2 exactly; fixed form: multiplier just below 2^30, shift
 *              0) and x - zp_x, w - zp_w in [-3, 3]: every odd accumulator
 *              is a near-tie that the exact definition rounds toward zero
 *              and a binary32 requantization sees as an exact tie;
 *   qwide      long reductions (C_in * taps >= 2^16 terms), x at the far
 *              end of its type from zp_x, w at either end around a centred
 *              zp_w (one end per output channel): the accumulators spread
 *              from about 2^27 past 2^31 of both signs (scales form or
 *              fixed form without gemmlowp, which refuses them);
 *   qshift     the fixed form with a left shift (shift 1..7, M in [1/2,
 *              2^7)) on small accumulators fitted to the output type.
 */
#ifndef IOHW_FILL_QDESIGN_H
#define IOHW_FILL_QDESIGN_H

#include <stdint.h>

#include "iohw/backend.h"
#include "oracle/error.h"
#include "oracle/quant.h"

enum {
    IOHW__QFILL_UNSAT = 0,
    IOHW__QFILL_SATURATE,
    IOHW__QFILL_ZP_EXTREME,
    IOHW__QFILL_CHANNELS,
    IOHW__QFILL_TIES,
    IOHW__QFILL_IO_TRAP,
    IOHW__QFILL_GROUP_TRAP,
    IOHW__QFILL_DEPLOY,     /* generators/fill_qdeploy.c */
    IOHW__QFILL_WIDE,
    IOHW__QFILL_SHIFT,
    IOHW__QFILL_COUNT
};

/* What the case asks for; the fill chooses the rest.  per_channel is
 * forced to 1 by channels and group-trap; gemmlowp forces the fixed
 * form. */
typedef struct iohw__qwant {
    int32_t x_dtype, w_dtype, y_dtype;  /* IOHW_S8 / IOHW_U8 (y: or S32) */
    int32_t rounding;                   /* IOHW_ROUND_* */
    int32_t m_form;                     /* IOHW_QM_* */
    int32_t per_channel;
} iohw__qwant;

/* A filled quantized problem: q's arrays point into s_w (scales form) or
 * multiplier and shift (fixed form), n = per_channel ? C_out : 1 values. */
typedef struct iohw__qdata {
    iohw_quant q;
    float *s_w;
    int32_t *multiplier, *shift;
    void *x, *w;          /* canonical, q.x_dtype and q.w_dtype */
    int32_t *bias;        /* C_out values when p->has_bias, else NULL */
} iohw__qdata;

/* The fill's name ("qunsat", ...) and its kind from a name; -1 when
 * unknown. */
const char *iohw__qfill_name(int kind);
int iohw__qfill_kind(const char *name);

/* Fills d for problem p (its dtype and layouts are not used) and the
 * fill `kind`, from seed.  0, or -1 with the reason (a trap fill on a
 * problem without its trap, out of memory).  Free with
 * iohw__qdata_free. */
int iohw__qfill(const iohw_problem *p, int kind, const iohw__qwant *want,
                uint64_t seed, iohw__qdata *d, iohw_error *err);
void iohw__qdata_free(iohw__qdata *d);

/* The designed fills' small helpers (fill_qdesign.c, fill_qdeploy.c): the
 * range of an 8-bit type (or int32 for another code), v clamped to
 * [lo, hi], and v stored as element i of an s8 or u8 tensor. */
void iohw__qrange(int32_t t, int64_t *lo, int64_t *hi);
int64_t iohw__qclamp(int64_t v, int64_t lo, int64_t hi);
void iohw__qstore8(void *t, int32_t dt, int64_t i, int64_t v);

/* iohw__qfill for qdeploy, qwide and qshift (generators/fill_qdeploy.c);
 * p float-coded. */
int iohw__qfill_deploy(const iohw_problem *p, int kind, const iohw__qwant *want,
                       uint64_t seed, iohw__qdata *d, iohw_error *err);

/* A quantized case's inputs by the designed fill `fill` (one of the names
 * above), for the ABI's quantized problem p (dtype s8 or u8, its
 * w_dtype, y_dtype, rounding, m_form, per_channel as the case asks): x in
 * p's data layout, w in its weight layout, bias[C_out] when p->has_bias,
 * and the requant tensor (float s_w[n], or int32 multiplier[n] then
 * shift[n]; nothing for an s32 y).  Sets p's zp_x, zp_w, zp_y and, in the
 * scales form, s_x and s_y.  qchannels and qgroup-trap need per_channel.
 * 0, or -1 with the reason (generators/make_qdesign.c). */
int iohw__fill_qdesign(iohw_problem *p, const char *fill, uint64_t seed, void *x,
                       void *w, int32_t *bias, void *requant, iohw_error *err);

#endif
