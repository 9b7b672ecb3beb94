/*
 * generators/suite_backward.c - the backward category (backward.h5): the
 * backward directions of specification section 13.
 *
 * Two parts, in this order:
 *   1. covering arrays over the backward factors (below): every pair of
 *      values that can coexist is in some case of each array;
 *   2. designed rows (suite_backward_rows.c), each tagged bug-bwd-<name>:
 *      shapes and data that an implementation with that bug fails.
 * Every case is tagged `backward`; the derived tags add dir-bwd_d or
 * dir-bwd_w.  Ids read ct<R>d.<dir>.<dtype>.<counter> (dir bwd_d or
 * bwd_w), the counter running over the whole category.
 *
 * Factors and values:
 *   dir       bwd_d, bwd_w
 *   dtype     f32, f64, f16, bf16
 *   rank      1, 2, 3
 *   groups    one group with C_in != C_out (Cg != Mg), two groups with
 *             Cg != Mg, depthwise (G = C_in)
 *   stride    1, 2, 3 (the kernel is not a multiple of 2 or 3 on axis 0)
 *   dilation  1, 2
 *   padding   none, symmetric, asymmetric
 *   outpad    0, 1 on axis 0 (only with stride or dilation > 1)
 *   bias      no, yes (only bwd_w: BWD_WB)
 *   batch     1, 2
 *   fill      exact, normal
 *   layout    NC... with IO..., or N...C with OI...
 * Kernels are asymmetric (3, then 2, then 3 ... over the axes; 4 or 5 with
 * stride 3), so a kernel not flipped changes every result.
 */
#include "generators/suite_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/problem.h"

enum { B_DIR, B_DTYPE, B_RANK, B_GROUPS, B_STRIDE, B_DIL, B_PAD, B_OP, B_BIAS,
       B_BATCH, B_FILL, B_LAYOUT, B_NFACTORS };

static const int NVALUES[B_NFACTORS] = {2, 4, 3, 3, 3, 2, 3, 2, 2, 2, 2, 2};
static const char *const FILLS[2] = {"exact", "normal"};

/* Sound for partial rows (-1: not chosen), exact for complete ones. */
static int valid(const int *v, void *ctx)
{
    (void)ctx;
    if (v[B_BIAS] == 1 && v[B_DIR] == 0)
        return 0;     /* BWD_D has no bias */
    if (v[B_OP] == 1 && v[B_STRIDE] == 0 && v[B_DIL] == 0)
        return 0;     /* output_padding < max(stride, dilation) */
    return 1;
}

static void spec(iohw_pw_spec *s, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->nfactors = B_NFACTORS;
    s->nvalues = NVALUES;
    s->valid = valid;
    s->seed = seed;
}

/* Appends "x"-joined values of one per axis to buf. */
static void axes(char *buf, size_t n, const char *key, const int64_t *v, int rank)
{
    size_t len = strlen(buf);
    len += (size_t)snprintf(buf + len, n - len, " %s=", key);
    for (int a = 0; a < rank && len < n; a++)
        len += (size_t)snprintf(buf + len, n - len, "%s%lld", a > 0 ? "x" : "",
                                (long long)v[a]);
}

static const char *const DATA_LAST[3] = {"NWC", "NHWC", "NDHWC"};
static const char *const WEIGHT_OI[3] = {"OIW", "OIHW", "OIDHW"};

/* The descriptor text of the factor values v (variant: the case counter,
 * which varies the input lengths and channel counts). */
static void row_text(const int *v, int64_t variant, char *buf, size_t n)
{
    static const int64_t CI[3] = {3, 4, 3}, CO[3] = {2, 6, 3}, G[3] = {1, 2, 3};
    const int rank = v[B_RANK] + 1, s = v[B_STRIDE] + 1, d = v[B_DIL] + 1;
    int64_t in[3], k[3], st[3], dl[3], pb[3], pe[3], op[3];
    for (int a = 0; a < rank; a++) {
        in[a] = (rank == 3 ? 2 : 3) + (variant + a) % 3;
        k[a] = s == 3 ? (a % 2 == 0 ? 4 : 5) : (a % 2 == 0 ? 3 : 2);
        st[a] = a == 0 || variant % 2 == 0 ? s : 1;
        dl[a] = a == 0 || variant % 2 == 1 ? d : 1;
        pb[a] = v[B_PAD] == 0 ? 0 : 1;
        pe[a] = v[B_PAD] == 2 && a == 0 ? 0 : pb[a];
        if (v[B_PAD] == 2 && a > 0)
            pb[a] = 0;
        op[a] = v[B_OP] == 1 && a == 0 ? 1 : 0;
    }
    const int64_t co = v[B_GROUPS] == 2 && variant % 2 == 1 ? 6 : CO[v[B_GROUPS]];
    snprintf(buf, n, "n=%d ci=%lld co=%lld g=%lld", v[B_BATCH] + 1,
             (long long)CI[v[B_GROUPS]], (long long)co, (long long)G[v[B_GROUPS]]);
    axes(buf, n, "in", in, rank);
    axes(buf, n, "k", k, rank);
    axes(buf, n, "s", st, rank);
    axes(buf, n, "d", dl, rank);
    size_t len = strlen(buf);
    len += (size_t)snprintf(buf + len, n - len, " pad=");
    for (int a = 0; a < rank; a++)
        len += (size_t)snprintf(buf + len, n - len, "%s%lld:%lld", a > 0 ? "x" : "",
                                (long long)pb[a], (long long)pe[a]);
    axes(buf, n, "op", op, rank);
    len = strlen(buf);
    snprintf(buf + len, n - len, " bias=%d%s%s%s%s", v[B_BIAS],
             v[B_LAYOUT] ? " xl=" : "", v[B_LAYOUT] ? DATA_LAST[rank - 1] : "",
             v[B_LAYOUT] ? " wl=" : "", v[B_LAYOUT] ? WEIGHT_OI[rank - 1] : "");
}

int iohw__plan_backward_add(iohw_plan *plan, const char *text, int32_t dir,
                            iohw_dtype dt, const char *fill, const char *tags,
                            iohw_error *err)
{
    iohw_desc d;
    if (iohw__desc_from(text, dt, fill, &d, err) != 0)
        return -1;
    d.p.direction = dir;
    if (iohw_problem_validate(&d.p, err) != 0)
        return iohw_error_prefix(err, "suite: backward '%s'", text);
    return iohw__plan_add(plan, IOHW__CAT_BACKWARD, &d, tags, 0, err);
}

static int add_row(iohw_plan *plan, const int *v, iohw_error *err)
{
    char text[IOHW_DESC_MAX];
    row_text(v, plan->file_cases[IOHW__CAT_BACKWARD], text, sizeof text);
    return iohw__plan_backward_add(plan, text, v[B_DIR] == 0 ? IOHW_DIR_BWD_D
                                                              : IOHW_DIR_BWD_W,
                                   iohw__dtypes[v[B_DTYPE]], FILLS[v[B_FILL]],
                                   "backward", err);
}

int iohw__plan_backward(iohw_plan *plan, const iohw__profile *pr, iohw_error *err)
{
    iohw_pw_spec s;
    for (int k = 0; k < pr->backward_arrays; k++) {
        spec(&s, UINT64_C(0xb3d00000) + (uint64_t)k);
        int64_t before = plan->file_cases[IOHW__CAT_BACKWARD];
        if (iohw__plan_array(plan, &s, add_row, err) != 0)
            return iohw_error_prefix(err, "suite: backward array %d", k);
        plan->bwd_rows += (int)(plan->file_cases[IOHW__CAT_BACKWARD] - before);
    }
    return pr->backward_arrays > 0 ? iohw__plan_backward_rows(plan, pr, err) : 0;
}

/* 1 when some of the first rank entries is > min. */
static int above(const int64_t *v, uint32_t rank, int64_t min)
{
    for (uint32_t a = 0; a < rank; a++)
        if (v[a] > min)
            return 1;
    return 0;
}

/* The factor values of a backward problem (-1 where none fits). */
static void classify(const iohw_problem *p, const char *fill, int *v)
{
    const uint32_t R = p->rank;
    int64_t s = 1, asym = 0;
    for (uint32_t a = 0; a < R; a++) {
        s = p->stride[a] > s ? p->stride[a] : s;
        asym |= p->pad_begin[a] != p->pad_end[a];
    }
    v[B_DIR] = p->direction == IOHW_DIR_BWD_D ? 0 : 1;
    v[B_DTYPE] = -1;
    for (int t = 0; t < 4; t++)
        if (iohw__dtypes[t] == p->dtype)
            v[B_DTYPE] = t;
    v[B_RANK] = R >= 1 && R <= 3 ? (int)R - 1 : -1;
    v[B_GROUPS] = p->groups == 1 ? (p->in_channels != p->out_channels ? 0 : -1)
                  : p->groups == p->in_channels ? 2
                  : (p->in_channels != p->out_channels ? 1 : -1);
    v[B_STRIDE] = s <= 3 ? (int)s - 1 : -1;
    v[B_DIL] = above(p->dilation, R, 1);
    v[B_PAD] = asym ? 2 : above(p->pad_begin, R, 0);
    v[B_OP] = above(p->output_padding, R, 0);
    v[B_BIAS] = p->has_bias != 0;
    v[B_BATCH] = p->batch > 1;
    v[B_FILL] = strcmp(fill, "exact") == 0 ? 0 : strcmp(fill, "normal") == 0 ? 1 : -1;
    v[B_LAYOUT] = p->data_layout[1] == 'C' ? 0 : 1;
}

int iohw__plan_backward_coverage(iohw_plan *plan, iohw_error *err)
{
    iohw_pw_spec s;
    int64_t n = 0;
    int *rows = malloc((size_t)(plan->count > 0 ? plan->count : 1) * B_NFACTORS
                       * sizeof *rows);
    if (rows == NULL)
        return iohw_error_set(err, "suite: out of memory for the backward coverage");
    for (int64_t i = 0; i < plan->count; i++)
        if (iohw_problem_is_backward(&plan->cases[i].desc.p))
            classify(&plan->cases[i].desc.p, plan->cases[i].desc.fill,
                     rows + (size_t)(n++) * B_NFACTORS);
    spec(&s, 0);
    int rc = iohw_pairwise_coverage(&s, rows, (int)n, &plan->bwd_pairs_coexisting,
                                    &plan->bwd_pairs_covered, err);
    plan->bwd_nfactors = B_NFACTORS;
    free(rows);
    return rc;
}
