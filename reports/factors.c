/*
 * reports/factors.c - parameter-space coverage: which values of each factor
 * (rank, groups, stride, ...) a run exercised, which pairs of values, and
 * how those cases ended.
 *
 * A factor's value comes from the case's descriptor (oracle/descriptor.h),
 * the one place every result carries the whole problem.  Numeric factors
 * are binned so the tables stay short: stride and dilation take the
 * largest value over the axes, 5 and more sharing one bin.
 */
#include "reports/reports_internal.h"

#include <stdlib.h>
#include <string.h>

#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

static const char *const factor_names[IOHW_FACTOR_COUNT] = {
    "rank", "groups", "stride", "dilation", "padding", "output_padding",
    "dtype", "data_layout", "weight_layout", "fill", "bias"};

/* Values listed in the order tables show them; others sort after these,
 * in natural order (strverscmp). */
static const char *const known_order[IOHW_FACTOR_COUNT][6] = {
    [IOHW_FACTOR_GROUPS] = {"1", "grouped", "depthwise"},
    [IOHW_FACTOR_STRIDE] = {"1", "2", "3", "4", "5+"},
    [IOHW_FACTOR_DILATION] = {"1", "2", "3", "4", "5+"},
    [IOHW_FACTOR_PADDING] = {"none", "symmetric", "asymmetric"},
    [IOHW_FACTOR_OUTPUT_PADDING] = {"0", ">0", "beyond-limit"},
    [IOHW_FACTOR_DTYPE] = {"f32", "f64", "f16", "bf16"},
    [IOHW_FACTOR_BIAS] = {"no", "yes"},
};

const char *iohw_factor_name(iohw_factor f)
{
    return (int)f >= 0 && f < IOHW_FACTOR_COUNT ? factor_names[f] : "?";
}

iohw_outcome iohw_outcome_of(iohw_result_status s)
{
    if (s == IOHW_RESULT_PASS)
        return IOHW_OUTCOME_PASS;
    if (s == IOHW_RESULT_UNSUPPORTED)
        return IOHW_OUTCOME_SKIP;
    if (s == IOHW_RESULT_WAIVED)
        return IOHW_OUTCOME_WAIVED;
    return IOHW_OUTCOME_FAIL;
}

const char *iohw_outcome_name(iohw_outcome o)
{
    static const char *const names[] = {"pass", "fail", "skip", "waived"};
    return (int)o >= 0 && o < IOHW_OUTCOME_COUNT ? names[o] : "?";
}

/* "1".."4", "5+" for the largest of the first rank values. */
static void binned_max(const int64_t *v, int rank, char *out)
{
    int64_t m = 1;
    for (int a = 0; a < rank; a++)
        if (v[a] > m)
            m = v[a];
    if (m >= 5)
        snprintf(out, IOHW_FACTOR_VALUE_MAX, "5+");
    else
        snprintf(out, IOHW_FACTOR_VALUE_MAX, "%lld", (long long)m);
}

int iohw_factor_values(const char *descriptor,
                       char v[IOHW_FACTOR_COUNT][IOHW_FACTOR_VALUE_MAX],
                       iohw_error *err)
{
    iohw_desc d;
    if (descriptor == NULL || descriptor[0] == '\0')
        return iohw_error_set(err, "no descriptor");
    if (iohw_desc_parse(descriptor, &d, err) != 0)
        return -1;
    const iohw_problem *p = &d.p;
    int rank = (int)p->rank;

    /* Groups: none, grouped, or one input channel per group. */
    snprintf(v[IOHW_FACTOR_RANK], IOHW_FACTOR_VALUE_MAX, "%d", rank);
    snprintf(v[IOHW_FACTOR_GROUPS], IOHW_FACTOR_VALUE_MAX, "%s",
             p->groups == 1 ? "1" : p->in_channels == p->groups ? "depthwise" : "grouped");
    binned_max(p->stride, rank, v[IOHW_FACTOR_STRIDE]);
    binned_max(p->dilation, rank, v[IOHW_FACTOR_DILATION]);

    /* Padding: none, the same at both ends of every axis, or not. */
    int padded = 0, asym = 0, op = 0;
    for (int a = 0; a < rank; a++) {
        padded |= p->pad_begin[a] != 0 || p->pad_end[a] != 0;
        asym |= p->pad_begin[a] != p->pad_end[a];
        op |= p->output_padding[a] != 0;
    }
    snprintf(v[IOHW_FACTOR_PADDING], IOHW_FACTOR_VALUE_MAX, "%s",
             !padded ? "none" : asym ? "asymmetric" : "symmetric");
    snprintf(v[IOHW_FACTOR_OUTPUT_PADDING], IOHW_FACTOR_VALUE_MAX, "%s",
             !op ? "0" : iohw_problem_beyond_limit(p) ? "beyond-limit" : ">0");

    /* Names as the descriptor spells them. */
    if (iohw_problem_is_quant(p)) /* x/w/y: "u8/s8/s32" */
        snprintf(v[IOHW_FACTOR_DTYPE], IOHW_FACTOR_VALUE_MAX, "%s/%s/%s",
                 iohw_dtype_name(p->dtype), iohw_dtype_name(iohw_problem_w_dtype(p)),
                 iohw_dtype_name(iohw_problem_y_dtype(p)));
    else
        snprintf(v[IOHW_FACTOR_DTYPE], IOHW_FACTOR_VALUE_MAX, "%s", iohw_dtype_name(p->dtype));
    snprintf(v[IOHW_FACTOR_DATA_LAYOUT], IOHW_FACTOR_VALUE_MAX, "%s", p->data_layout);
    snprintf(v[IOHW_FACTOR_WEIGHT_LAYOUT], IOHW_FACTOR_VALUE_MAX, "%s", p->weight_layout);
    snprintf(v[IOHW_FACTOR_FILL], IOHW_FACTOR_VALUE_MAX, "%s", d.fill);
    snprintf(v[IOHW_FACTOR_BIAS], IOHW_FACTOR_VALUE_MAX, "%s", p->has_bias ? "yes" : "no");
    return 0;
}

/* --- building the tables ------------------------------------------------- */

static int order_rank(int f, const char *value)
{
    for (int i = 0; i < 6 && known_order[f][i] != NULL; i++)
        if (strcmp(known_order[f][i], value) == 0)
            return i;
    return 6;
}

static int level_cmp(int f, const char *a, const char *b)
{
    int ra = order_rank(f, a), rb = order_rank(f, b);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    return strverscmp(a, b);
}

/* The level of value in factor f, added (in order) when new; -1 on no
 * memory.  Existing level indices at or after the insertion point shift,
 * so cases are assigned levels only after every level is known. */
static int add_level(iohw_coverage *cov, int f, const char *value)
{
    int n = cov->nlevels[f], at = 0;
    while (at < n && level_cmp(f, cov->levels[f][at].value, value) < 0)
        at++;
    if (at < n && strcmp(cov->levels[f][at].value, value) == 0)
        return at;
    iohw_factor_level *l = realloc(cov->levels[f], (size_t)(n + 1) * sizeof *l);
    if (l == NULL)
        return -1;
    memmove(&l[at + 1], &l[at], (size_t)(n - at) * sizeof *l);
    memset(&l[at], 0, sizeof l[at]);
    snprintf(l[at].value, sizeof l[at].value, "%s", value);
    cov->levels[f] = l;
    cov->nlevels[f] = n + 1;
    return at;
}

static int find_level(const iohw_coverage *cov, int f, const char *value)
{
    for (int i = 0; i < cov->nlevels[f]; i++)
        if (strcmp(cov->levels[f][i].value, value) == 0)
            return i;
    return -1;
}

int iohw_coverage_build(const iohw_run_results *r, iohw_coverage *cov,
                        iohw_error *err)
{
    memset(cov, 0, sizeof *cov);
    cov->ncases = r->count;
    if (r->count == 0)
        return 0;
    cov->level_of = malloc((size_t)r->count * IOHW_FACTOR_COUNT * sizeof *cov->level_of);
    cov->outcome = malloc((size_t)r->count * sizeof *cov->outcome);
    char (*vals)[IOHW_FACTOR_COUNT][IOHW_FACTOR_VALUE_MAX] =
        malloc((size_t)r->count * sizeof *vals);
    char *ok = malloc((size_t)r->count);
    if (cov->level_of == NULL || cov->outcome == NULL || vals == NULL || ok == NULL)
        goto no_memory;

    /* Pass 1: every value, and the levels in order. */
    for (int64_t i = 0; i < r->count; i++) {
        cov->outcome[i] = (uint8_t)iohw_outcome_of(r->items[i].status);
        ok[i] = iohw_factor_values(r->items[i].descriptor, vals[i], NULL) == 0;
        cov->unknown += !ok[i];
        for (int f = 0; ok[i] && f < (int)IOHW_FACTOR_COUNT; f++)
            if (add_level(cov, f, vals[i][f]) < 0)
                goto no_memory;
    }
    /* Pass 2: each case's levels, and the counts. */
    for (int64_t i = 0; i < r->count; i++) {
        int16_t *lv = &cov->level_of[i * IOHW_FACTOR_COUNT];
        for (int f = 0; f < (int)IOHW_FACTOR_COUNT; f++) {
            lv[f] = ok[i] ? (int16_t)find_level(cov, f, vals[i][f]) : -1;
            if (lv[f] >= 0)
                cov->levels[f][lv[f]].count[cov->outcome[i]]++;
        }
    }
    free(vals);
    free(ok);
    return 0;
no_memory:
    free(vals);
    free(ok);
    iohw_coverage_free(cov);
    return iohw_error_set(err, "coverage: out of memory");
}

void iohw_coverage_free(iohw_coverage *cov)
{
    if (cov == NULL)
        return;
    for (int f = 0; f < (int)IOHW_FACTOR_COUNT; f++)
        free(cov->levels[f]);
    free(cov->level_of);
    free(cov->outcome);
    memset(cov, 0, sizeof *cov);
}

int64_t *iohw_coverage_pair(const iohw_coverage *cov, iohw_factor a,
                            iohw_factor b)
{
    if ((int)a < 0 || a >= IOHW_FACTOR_COUNT || (int)b < 0 || b >= IOHW_FACTOR_COUNT)
        return NULL;
    size_t na = (size_t)cov->nlevels[a], nb = (size_t)cov->nlevels[b];
    int64_t *m = calloc(na * nb * IOHW_OUTCOME_COUNT + 1, sizeof *m);
    if (m == NULL)
        return NULL;
    for (int64_t i = 0; i < cov->ncases; i++) {
        const int16_t *lv = &cov->level_of[i * IOHW_FACTOR_COUNT];
        if (lv[a] < 0 || lv[b] < 0)
            continue;
        m[((size_t)lv[a] * nb + (size_t)lv[b]) * IOHW_OUTCOME_COUNT + cov->outcome[i]]++;
    }
    return m;
}

void iohw_coverage_pairs(const iohw_coverage *cov, iohw_pair_summary *s)
{
    memset(s, 0, sizeof *s);
    for (int a = 0; a < (int)IOHW_FACTOR_COUNT; a++) {
        for (int b = a + 1; b < (int)IOHW_FACTOR_COUNT; b++) {
            int64_t *m = iohw_coverage_pair(cov, (iohw_factor)a, (iohw_factor)b);
            size_t cells = (size_t)cov->nlevels[a] * (size_t)cov->nlevels[b];
            s->possible += (int64_t)cells;
            for (size_t c = 0; m != NULL && c < cells; c++) {
                const int64_t *k = &m[c * IOHW_OUTCOME_COUNT];
                int64_t any = k[0] + k[1] + k[2] + k[3];
                s->exercised += any > 0;
                s->passing += any > 0 && k[IOHW_OUTCOME_PASS] == any;
                s->failing += k[IOHW_OUTCOME_FAIL] > 0;
            }
            free(m);
        }
    }
}
