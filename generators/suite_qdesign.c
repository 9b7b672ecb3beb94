/*
 * generators/suite_qdesign.c - the quantized cases of the designed fills
 * (fill_qdesign.h, specification section 11.5), planned as a covering
 * array: every pair of values of
 *   fill      qunsat qsaturate qzp-extreme qchannels qties qio-trap
 *             qgroup-trap
 *   x, w, y   s8 u8 (each)
 *   rounding  half_even half_away half_up gemmlowp
 *   form of M scales fixed
 *   per chan. 0 1
 *   shape     four problems, ranks 1 to 3, grouped and not
 *   layouts   the defaults, or channels-last data with the weight's
 *             spatial axes first
 * is in some case, under the rules: gemmlowp takes the fixed form;
 * qchannels and qgroup-trap take per-channel M; qgroup-trap a grouped
 * shape.  Every shape has C_in != C_out/G (the I/O exchange changes the
 * weight's shape) and C_in <= C_out (the per-channel axis diagnosis
 * applies).  One array in smoke (its first 16 rows but two, which hold most
 * pairs: smoke stays within 300 cases with the int8-library and zp_y rows),
 * two (other seeds) in ci and full, in the
 * quantized category (quant.h5) beside suite_quant.c's random rows.
 *
 * Each case is tagged qdesign (and quant, as every quantized case) and
 * with the bugs its fill corners:
 *   qunsat       bug-quant-zero-point bug-quant-bias-scale
 *   qsaturate    bug-quant-saturation
 *   qzp-extreme  bug-quant-zero-point
 *   qchannels    bug-quant-axis
 *   qties        bug-quant-rounding; with half_even or half_away also
 *                bug-quant-zp-y (zp_y added before rounding changes y
 *                there: half_even with an odd zp_y, half_away where zp_y
 *                changes the sign of a tie; specification section 11.3)
 *   qio-trap     bug-quant-io-swap
 *   qgroup-trap  bug-quant-axis
 * and the further causes: qunsat and qio-trap also bug-quant-pad-zero,
 * bug-quant-sat16, bug-quant-clamp-first and bug-quant-x-sign; qsaturate
 * the first three and bug-quant-narrow-clamp; qzp-extreme bug-quant-narrow-clamp; qchannels
 * and qgroup-trap on a grouped shape bug-quant-pc-group.
 * After every other quantized row (iohw__plan_qzp_y) come two more qties
 * rows of that bug, in every profile, then the rows of the scales and sizes
 * people deploy (fill_qdeploy.c), four per fill, in every profile:
 *   qdeploy      bug-quant-f32-requant (near-ties a binary32
 *                requantization rounds the other way)
 *   qwide        bug-quant-acc-wrap (accumulators past 2^31, both signs)
 *   qshift       bug-quant-shift-left (fixed form, shift 1..7)
 */
#include "generators/suite_internal.h"

#include <stdio.h>
#include <string.h>

#include "generators/fill_qdesign.h"
#include "generators/fill_quant.h"

enum { F_FILL, F_X, F_W, F_Y, F_ROUND, F_FORM, F_PC, F_SHAPE, F_LAYOUT, NF };

/* The array's fills: qunsat to qgroup-trap (the deployment fills have
 * rows of their own, DEPLOY_ROWS). */
#define ARRAY_FILLS (IOHW__QFILL_GROUP_TRAP + 1)

static const int NVALUES[NF] = {ARRAY_FILLS, 2, 2, 2, 4, 2, 2, 4, 2};

static const char *const SHAPES[4] = {
    "n=2 ci=2 co=4 in=6 k=3 s=2 pad=1:0 bias=1",
    "ci=4 co=6 g=2 in=4x3 k=2x2 s=2x1 op=1x0 bias=1",
    "ci=2 co=3 in=3x2x3 k=2x2x2 s=1x2x1",
    "ci=6 co=6 g=3 in=5 k=3 d=2 bias=1",
};
static const int SHAPE_GROUPED[4] = {0, 1, 0, 1};
static const char *const LAST_DATA[4] = {"NWC", "NHWC", "NDHWC", "NWC"};
static const char *const LAST_WEIGHT[4] = {"WIO", "HWOI", "DHWIO", "WOI"};

static const char *const BUGS[ARRAY_FILLS] = {
    "bug-quant-zero-point" "," "bug-quant-bias-scale", "bug-quant-saturation",
    "bug-quant-zero-point", "bug-quant-axis", "bug-quant-rounding", "bug-quant-io-swap",
    "bug-quant-axis"};

static const char *const ROUNDING[4] = {"half_even", "half_away", "half_up", "gemmlowp"};

static int valid(const int *v, void *ctx)
{
    (void)ctx;
    if (v[F_ROUND] == 3 && v[F_FORM] == 0)
        return 0;
    const int per_channel = v[F_FILL] == IOHW__QFILL_CHANNELS ||
                            v[F_FILL] == IOHW__QFILL_GROUP_TRAP;
    if (per_channel && v[F_PC] == 0)
        return 0;
    if (v[F_FILL] == IOHW__QFILL_GROUP_TRAP && v[F_SHAPE] >= 0 && !SHAPE_GROUPED[v[F_SHAPE]])
        return 0;
    return 1;
}

/* The bugs of the further causes (specification section 11.5) a row
 * corners besides its fill's: zp_x inside the type, full-range x and w,
 * a zp_y off the type's end (qunsat, qio-trap, qsaturate); the outputs at
 * both ends of the type (qsaturate); per-channel M in a grouped shape. */
static const char *more_bugs(const int *v)
{
    const int f = v[F_FILL];
    if (f == IOHW__QFILL_UNSAT || f == IOHW__QFILL_IO_TRAP)
        return "," "bug-quant-pad-zero" "," "bug-quant-sat16" "," "bug-quant-clamp-first"
               "," "bug-quant-x-sign";
    if (f == IOHW__QFILL_SATURATE)
        return "," "bug-quant-pad-zero" "," "bug-quant-sat16" "," "bug-quant-clamp-first"
               "," "bug-quant-narrow-clamp";
    if (f == IOHW__QFILL_ZP_EXTREME)
        return "," "bug-quant-narrow-clamp";
    if ((f == IOHW__QFILL_CHANNELS || f == IOHW__QFILL_GROUP_TRAP) && SHAPE_GROUPED[v[F_SHAPE]])
        return "," "bug-quant-pc-group";
    return "";
}

static int add_row(iohw_plan *plan, const int *v, iohw_error *err)
{
    static const char *const T[2] = {"s8", "u8"};
    char text[IOHW_DESC_MAX], tags[IOHW_PLAN_TAGS_MAX];
    const int s = v[F_SHAPE];
    iohw_desc d;
    int n = snprintf(text, sizeof text, "%s wdt=%s ydt=%s round=%s m=%s pc=%d", SHAPES[s],
                     T[v[F_W]], T[v[F_Y]], ROUNDING[v[F_ROUND]],
                     v[F_FORM] ? "fixed" : "scales", v[F_PC]);
    if (n > 0 && v[F_LAYOUT] && (size_t)n < sizeof text)
        n += snprintf(text + n, sizeof text - (size_t)n, " xl=%s wl=%s", LAST_DATA[s],
                      LAST_WEIGHT[s]);
    if (n < 0 || (size_t)n >= sizeof text)
        return iohw_error_set(err, "suite: designed quantized row too long");
    const int zp_y_shows = v[F_FILL] == IOHW__QFILL_TIES && v[F_ROUND] <= 1; /* even, away */
    snprintf(tags, sizeof tags, "qdesign,%s%s%s%s", BUGS[v[F_FILL]], zp_y_shows ? "," : "",
             zp_y_shows ? "bug-quant-zp-y" : "", more_bugs(v));
    if (iohw__desc_from(text, v[F_X] ? IOHW_U8 : IOHW_S8, iohw__qfill_name(v[F_FILL]), &d,
                        err) != 0)
        return -1;
    /* The fill chooses the parameters: fitted here, with the case's seed,
     * so that the manifest holds the case file's descriptor. */
    d.seed = iohw__plan_next_seed(plan, IOHW__CAT_QUANT);
    if (iohw__quant_fit_desc(&d, err) != 0)
        return iohw_error_prefix(err, "suite: '%s'", text);
    return iohw__plan_add(plan, IOHW__CAT_QUANT, &d, tags, 1, err);
}

/* smoke: the array's first 16 rows but rows 7 and 9 (a qchannels and a
 * qties row whose fills and faults other rows hold), so that smoke stays
 * within 300 cases with the int8-library and zp_y rows. */
static int plan_smoke_rows(iohw_plan *plan, const iohw_pw_spec *s, iohw_error *err)
{
    iohw_pw_array a;
    if (iohw_pairwise_generate(s, &a, err) != 0)
        return -1;
    int rc = 0;
    for (int r = 0; rc == 0 && r < a.nrows; r++)
        if (r != 7 && r != 9)
            rc = add_row(plan, a.rows + (size_t)r * (size_t)s->nfactors, err);
    iohw_pw_array_free(&a);
    return rc;
}

int iohw__plan_qdesign(iohw_plan *plan, const iohw__profile *pr, iohw_error *err)
{
    const int arrays = pr->quant_variants > 1 ? 2 : 1;
    for (int k = 0; k < arrays; k++) {
        iohw_pw_spec s;
        memset(&s, 0, sizeof s);
        s.nfactors = NF;
        s.nvalues = NVALUES;
        s.valid = valid;
        s.seed = UINT64_C(0x9de5160) + (uint64_t)k;
        s.max_rows = arrays == 1 ? 16 : 0;
        const int rc = arrays == 1 ? plan_smoke_rows(plan, &s, err)
                                   : iohw__plan_array(plan, &s, add_row, err);
        if (rc != 0)
            return iohw_error_prefix(err, "suite: designed quantized array %d", k);
    }
    return 0;
}

/* The rows of the zp_y-before-rounding bug: qties, half_away and
 * half_even (the modes where it shows), two shapes. */
static const int ZP_Y_ROWS[][NF] = {
    {IOHW__QFILL_TIES, 0, 0, 1, 1, 0, 0, 0, 0},
    {IOHW__QFILL_TIES, 0, 1, 1, 0, 0, 1, 3, 0},
};

int iohw__plan_qzp_y(iohw_plan *plan, const iohw__profile *pr, iohw_error *err)
{
    (void)pr;
    for (size_t i = 0; i < sizeof ZP_Y_ROWS / sizeof ZP_Y_ROWS[0]; i++)
        if (add_row(plan, ZP_Y_ROWS[i], err) != 0)
            return -1;
    return iohw__plan_qdeploy(plan, err);
}

/* The rows of the scales and sizes people deploy: x's type, the fill,
 * the problem and its quantized keys (specification section 11.5). */
typedef struct deploy_row {
    iohw_dtype x;
    int fill;
    const char *text;
} deploy_row;

static const deploy_row DEPLOY_ROWS[] = {
    {IOHW_U8, IOHW__QFILL_DEPLOY, "n=2 ci=2 co=4 in=6 k=3 s=2 pad=1:0 bias=1 wdt=s8 ydt=s8 "
                                  "round=half_even m=scales pc=1"},
    {IOHW_S8, IOHW__QFILL_DEPLOY, "ci=4 co=6 g=2 in=4x3 k=2x2 s=2x1 op=1x0 bias=1 wdt=u8 ydt=u8 "
                                  "round=half_away m=scales pc=0"},
    {IOHW_U8, IOHW__QFILL_DEPLOY, "ci=2 co=3 in=3x2x3 k=2x2x2 s=1x2x1 wdt=s8 ydt=s8 "
                                  "round=half_up m=fixed pc=1"},
    {IOHW_U8, IOHW__QFILL_DEPLOY, "ci=3 co=4 in=7 k=3 bias=1 wdt=s8 ydt=u8 round=gemmlowp "
                                  "m=fixed pc=0 xl=NWC wl=WIO"},
    {IOHW_U8, IOHW__QFILL_WIDE, "ci=8192 co=2 in=10 k=9 bias=1 wdt=s8 ydt=s8 round=half_even "
                                "m=scales pc=0"},
    {IOHW_S8, IOHW__QFILL_WIDE, "ci=8192 co=2 in=10 k=9 wdt=u8 ydt=u8 round=half_away "
                                "m=scales pc=1 xl=NWC"},
    {IOHW_U8, IOHW__QFILL_WIDE, "ci=6000 co=3 in=14 k=12 bias=1 wdt=u8 ydt=s8 round=half_up "
                                "m=fixed pc=0"},
    {IOHW_S8, IOHW__QFILL_WIDE, "n=2 ci=8192 co=2 in=10 k=9 wdt=s8 ydt=u8 round=half_even "
                                "m=fixed pc=1 xl=NWC wl=WIO"},
    {IOHW_S8, IOHW__QFILL_SHIFT, "n=2 ci=2 co=4 in=6 k=3 s=2 bias=1 wdt=s8 ydt=s8 "
                                 "round=gemmlowp m=fixed pc=1"},
    {IOHW_U8, IOHW__QFILL_SHIFT, "ci=4 co=6 g=2 in=4x3 k=2x2 s=2x1 wdt=u8 ydt=u8 "
                                 "round=half_even m=fixed pc=0"},
    {IOHW_U8, IOHW__QFILL_SHIFT, "ci=2 co=3 in=7 k=2 d=2 op=1 wdt=s8 ydt=u8 round=half_away "
                                 "m=fixed pc=1 xl=NWC"},
    {IOHW_S8, IOHW__QFILL_SHIFT, "ci=6 co=6 g=3 in=5 k=3 d=2 bias=1 wdt=u8 ydt=s8 "
                                 "round=half_up m=fixed pc=0"},
};

static const char *deploy_tag(int fill)
{
    return fill == IOHW__QFILL_DEPLOY ? "qdesign" "," "bug-quant-f32-requant"
           : fill == IOHW__QFILL_WIDE ? "qdesign" "," "bug-quant-acc-wrap"
                                      : "qdesign" "," "bug-quant-shift-left";
}

int iohw__plan_qdeploy(iohw_plan *plan, iohw_error *err)
{
    for (size_t i = 0; i < sizeof DEPLOY_ROWS / sizeof DEPLOY_ROWS[0]; i++) {
        const deploy_row *r = &DEPLOY_ROWS[i];
        iohw_desc d;
        if (iohw__desc_from(r->text, r->x, iohw__qfill_name(r->fill), &d, err) != 0)
            return -1;
        d.seed = iohw__plan_next_seed(plan, IOHW__CAT_QUANT);
        if (iohw__quant_fit_desc(&d, err) != 0 ||
            iohw__plan_add(plan, IOHW__CAT_QUANT, &d, deploy_tag(r->fill), 1, err) != 0)
            return iohw_error_prefix(err, "suite: '%s'", r->text);
    }
    return 0;
}
