/*
 * judge/diagnose_quant.c - the misreadings of the quantized definition
 * (specification section 11) and the driver that names the ones a failing
 * output matches.
 *
 * A variant changes the definition
 *   acc = bias_q[oc] + sum (x_q - zp_x) * (w_q - zp_w)
 *   y_q = saturate(zp_y + R(M[oc] * acc))
 * in one place:
 *   zp_x, zp_w not subtracted   the accumulator with zp = 0
 *   weight I and O exchanged    w's memory read with I and O swapped in the
 *                               weight layout string
 *   other rounding              R of another mode (the same M; gemmlowp only
 *                               on the fixed form)
 *   zp_y before rounding        R(zp_y + v) instead of zp_y + R(v)
 *   per-channel M along I       v = sum_ci M[ci] * acc_ci + M[oc] * bias,
 *                               acc_ci the terms of input channel ci
 *   no saturation               zp_y + R(v) wrapped to the type
 *   bias after requantization   zp_y + R(M * (acc - bias)) + bias
 *   gemmlowp's own steps        its doubling high multiply without the nudge,
 *                               or its rounding divide as a plain shift
 *                               (diagnose_qfixed.c; gemmlowp asked)
 * Every variant is exact: the accumulators come from the oracle (an s32
 * output), R from iohw_quant_requantize; a tie of R(zp_y + v) is found as
 * the place where rounding half up and half down disagree, and the sum of
 * the along-I variant is an integer times one M' built exactly from the
 * common power of two of the M[j].  y is compared bit for bit.
 */
#include "judge/diagnose_quant_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/diagnose_qcauses.h"
#include "judge/diagnose_qdeploy.h"
#include "judge/diagnose_qfixed.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

typedef int (*qbuild_fn)(const iohw__dgq_case *c, qvariant *v);

typedef struct qentry {
    const char *name;
    qbuild_fn build;    /* 1: applies, 0: not on this case */
    const char *meaning;
} qentry;

/* --- the variants ---------------------------------------------------- */

static int requantized(const iohw__dgq_case *c)
{
    return c->q.y_dtype != IOHW_S32;
}

static int zp_x_kept(const iohw__dgq_case *c, qvariant *v)
{
    v->zp_x_kept = 1;
    return c->q.zp_x != 0;
}

static int zp_w_kept(const iohw__dgq_case *c, qvariant *v)
{
    v->zp_w_kept = 1;
    return c->q.zp_w != 0;
}

static int zp_both_kept(const iohw__dgq_case *c, qvariant *v)
{
    v->zp_x_kept = v->zp_w_kept = 1;
    return c->q.zp_x != 0 && c->q.zp_w != 0;
}

static int io_swapped(const iohw__dgq_case *c, qvariant *v)
{
    (void)c;
    v->io_swapped = 1;
    return 1;
}

static int zp_y_first(const iohw__dgq_case *c, qvariant *v)
{
    v->zp_y_first = 1;
    return requantized(c) && c->q.zp_y != 0 && c->q.rounding != IOHW_ROUND_GEMMLOWP &&
           c->q.rounding != IOHW_ROUND_HALF_UP;
}

static int axis_i(const iohw__dgq_case *c, qvariant *v)
{
    v->axis_i = 1;
    return requantized(c) && c->q.per_channel && c->p.in_channels <= c->p.out_channels &&
           c->q.rounding != IOHW_ROUND_GEMMLOWP;
}

static int wrapped(const iohw__dgq_case *c, qvariant *v)
{
    v->wrap = 1;
    return requantized(c);
}

static int bias_after(const iohw__dgq_case *c, qvariant *v)
{
    v->bias_after = 1;
    return requantized(c) && c->bias != NULL;
}

/* The deployment misreadings (judge/diagnose_qdeploy.c). */
static int f32_requant(const iohw__dgq_case *c, qvariant *v)
{
    v->finish = iohw__dgq_f32_finish;
    return iohw__dgq_f32_distinct(&c->q, c->q.per_channel ? c->p.out_channels : 1);
}

static int acc_wrapped(const iohw__dgq_case *c, qvariant *v)
{
    (void)c;
    v->acc_fn = iohw__dgq_wrap_acc;
    return 1;
}

static int shift_left_ignored(const iohw__dgq_case *c, qvariant *v)
{
    v->finish = iohw__dgq_shift_finish;
    return iohw__dgq_has_left_shift(&c->q, c->q.per_channel ? c->p.out_channels : 1);
}

/* The misreadings of judge/diagnose_qcauses.c (specification section 11.5). */
static int pad_zero(const iohw__dgq_case *c, qvariant *v)
{
    v->acc_fn = iohw__dgq_pad_zero_acc;
    return c->q.zp_x != 0;
}

static int pc_group(const iohw__dgq_case *c, qvariant *v)
{
    v->finish = iohw__dgq_pc_group_finish;
    return requantized(c) && c->q.per_channel && c->p.groups > 1;
}

static int narrow_clamp(const iohw__dgq_case *c, qvariant *v)
{
    v->finish = iohw__dgq_narrow_clamp_finish;
    return requantized(c);
}

/* pairs of adjacent products: two input channels in a group */
static int sat16(const iohw__dgq_case *c, qvariant *v)
{
    v->acc_fn = iohw__dgq_sat16_acc;
    return c->p.in_channels / c->p.groups >= 2;
}

static int clamp_first(const iohw__dgq_case *c, qvariant *v)
{
    v->finish = iohw__dgq_clamp_first_finish;
    return requantized(c) && c->q.zp_y != 0;
}

static int x_sign(const iohw__dgq_case *c, qvariant *v)
{
    (void)c;
    v->acc_fn = iohw__dgq_x_sign_acc;
    return 1;
}

/* gemmlowp's own steps done otherwise (diagnose_qfixed.c). */
static int gemmlowp_asked(const iohw__dgq_case *c)
{
    return requantized(c) && c->q.rounding == IOHW_ROUND_GEMMLOWP &&
           c->q.m_form == IOHW_QM_FIXED;
}

static int no_nudge(const iohw__dgq_case *c, qvariant *v)
{
    v->finish = iohw__dgq_no_nudge;
    return gemmlowp_asked(c);
}

static int plain_shift(const iohw__dgq_case *c, qvariant *v)
{
    v->finish = iohw__dgq_plain_shift;
    return gemmlowp_asked(c);
}

/* R of mode `used` where `asked` was asked; gemmlowp needs the fixed form. */
#define ROUNDING(asked, used)                                                   \
    static int r_##asked##_##used(const iohw__dgq_case *c, qvariant *v)       \
    {                                                                          \
        v->rounding = IOHW_ROUND_##used;                                       \
        return requantized(c) && c->q.rounding == IOHW_ROUND_##asked &&        \
               (IOHW_ROUND_##used != IOHW_ROUND_GEMMLOWP ||                    \
                c->q.m_form == IOHW_QM_FIXED);                                 \
    }
ROUNDING(HALF_EVEN, HALF_AWAY)
ROUNDING(HALF_EVEN, HALF_UP)
ROUNDING(HALF_EVEN, GEMMLOWP)
ROUNDING(HALF_AWAY, HALF_EVEN)
ROUNDING(HALF_AWAY, HALF_UP)
ROUNDING(HALF_AWAY, GEMMLOWP)
ROUNDING(HALF_UP, HALF_EVEN)
ROUNDING(HALF_UP, HALF_AWAY)
ROUNDING(HALF_UP, GEMMLOWP)
ROUNDING(GEMMLOWP, HALF_EVEN)
ROUNDING(GEMMLOWP, HALF_AWAY)
ROUNDING(GEMMLOWP, HALF_UP)
#undef ROUNDING

#define RM(asked, used, name, asked_name)                                       \
    {name " where " asked_name " was asked", r_##asked##_##used,               \
     "your kernel requantizes with " name "; the case asks for " asked_name    \
     " (SPEC 11.3)"}

static const qentry TABLE[] = {
    {"x's zero point not subtracted", zp_x_kept,
     "your kernel multiplies x_q itself: subtract zp_x from every input before the product"},
    {"w's zero point not subtracted", zp_w_kept,
     "your kernel assumes a symmetric weight (zp_w = 0): subtract zp_w from every weight"},
    {"zero points of x and w not subtracted", zp_both_kept,
     "your kernel multiplies the raw x_q and w_q: subtract zp_x and zp_w before the product"},
    {"quantized weight read with I and O exchanged", io_swapped,
     "your kernel reads the int8 weight as OIHW: index w[m][c] where the definition has w[c][m]"},
    RM(HALF_EVEN, HALF_AWAY, "ties rounded half away from zero", "half_even"),
    RM(HALF_EVEN, HALF_UP, "ties rounded half up", "half_even"),
    RM(HALF_EVEN, GEMMLOWP, "gemmlowp's double rounding", "half_even"),
    RM(HALF_AWAY, HALF_EVEN, "ties rounded to even", "half_away"),
    RM(HALF_AWAY, HALF_UP, "ties rounded half up", "half_away"),
    RM(HALF_AWAY, GEMMLOWP, "gemmlowp's double rounding", "half_away"),
    RM(HALF_UP, HALF_EVEN, "ties rounded to even", "half_up"),
    RM(HALF_UP, HALF_AWAY, "ties rounded half away from zero", "half_up"),
    RM(HALF_UP, GEMMLOWP, "gemmlowp's double rounding", "half_up"),
    RM(GEMMLOWP, HALF_EVEN, "ties rounded to even", "gemmlowp"),
    RM(GEMMLOWP, HALF_AWAY, "ties rounded half away from zero", "gemmlowp"),
    RM(GEMMLOWP, HALF_UP, "ties rounded half up", "gemmlowp"),
    {"zp_y added before rounding", zp_y_first,
     "your kernel rounds zp_y + M*acc: round M*acc first, then add zp_y"},
    {"per-channel scales applied along I", axis_i,
     "your kernel takes the per-channel scale of the weight's axis 0 (I); in IOHW it runs along O, M[g*Mg+m]"},
    {"no saturation (wrapped around)", wrapped,
     "your kernel stores zp_y + R(v) without clamping to the type: saturate to [qmin, qmax] first"},
    {"bias added after the requantization", bias_after,
     "your kernel adds the int32 bias to the output; it is at scale s_x*s_w and belongs in the accumulator"},
    {"gemmlowp's doubling high multiply without its nudge", no_nudge,
     "your kernel truncates a*M0 / 2^31 in the doubling high multiply: add gemmlowp's nudge "
     "2^30 first"},
    {"gemmlowp's rounding divide by a power of two as a plain shift", plain_shift,
     "your kernel divides by 2^right with a plain shift: round half away as "
     "RoundingDivideByPOT does"},
    {"requantization computed in binary32", f32_requant,
     "your kernel computes M or M*acc in binary32, which rounds near-ties wrongly: requantize in integers"},
    {"int32 accumulator wrapped", acc_wrapped,
     "your kernel accumulates in int32, which wraps past 2^31: the definition's sum is exact (int64)"},
    {"fixed-point left shift ignored", shift_left_ignored,
     "your kernel drops a positive shift (M >= 1/2): multiply by 2^shift before the rounding "
     "multiply (SPEC 11.2)"},
    {"zero insertion padded with 0 instead of zp_x", pad_zero,
     "your kernel pads its zero-inserted input with 0, not zp_x: pad with zp_x or skip those taps"},
    {"per-channel M indexed by the channel within its group", pc_group,
     "your kernel takes M[m] for output channel g*Mg+m: index the per-channel scales by the "
     "channel's global index"},
    {"narrow clamp ([-127, 127] or [1, 255])", narrow_clamp,
     "your kernel clamps to the narrow range: saturate to the whole type, [-128, 127] or [0, 255]"},
    {"16-bit saturation of pairs of products (u8*s8 without VNNI)", sat16,
     "your kernel sums pairs of u8*s8 products in saturating int16 (pmaddubsw): widen before adding"},
    {"clamp applied before zp_y is added", clamp_first,
     "your kernel clamps R(M*acc) to [qmin, qmax] and then adds zp_y: clamp zp_y + R(M*acc)"},
    {"x's bytes read with the other signedness", x_sign,
     "your kernel reads a u8 x as int8 (or an s8 x as uint8): load x_q with x's own dtype"},
};
#undef RM
#define NTABLE ((int)(sizeof TABLE / sizeof TABLE[0]))

int iohw__dgq_rows(void)
{
    return NTABLE;
}

int iohw__dgq_build(int i, const iohw__dgq_case *c, qvariant *v)
{
    memset(v, 0, sizeof *v);
    return i >= 0 && i < NTABLE && TABLE[i].build(c, v) == 1;
}

/* The rows, then the common names of their groups. */
int iohw__dgq_count(void)
{
    return NTABLE + iohw__dgq_group_count();
}

const char *iohw__dgq_name(int i)
{
    return i >= 0 && i < NTABLE ? TABLE[i].name : iohw__dgq_group_name(i - NTABLE);
}

const char *iohw__dgq_meaning(int i)
{
    return i >= 0 && i < NTABLE ? TABLE[i].meaning : iohw__dgq_group_meaning(i - NTABLE);
}
