/*
 * oracle/quant_problem.c - quantized problems as the ABI states them
 * (specification section 11.4): the members of iohw_problem, the requant
 * tensor, and the oracle (oracle/quant.c) on tensors in the problem's
 * layouts.
 */
#include "oracle/quant_problem.h"

#include <stdlib.h>
#include <string.h>

#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

static const char *const ROUNDING_NAMES[] = {
    [IOHW_ROUND_HALF_EVEN] = "half_even", [IOHW_ROUND_HALF_AWAY] = "half_away",
    [IOHW_ROUND_HALF_UP] = "half_up", [IOHW_ROUND_GEMMLOWP] = "gemmlowp"};
static const char *const M_FORM_NAMES[] = {
    [IOHW_QM_SCALES] = "scales", [IOHW_QM_FIXED] = "fixed"};

#define COUNT(a) ((int32_t)(sizeof a / sizeof a[0]))

int iohw_problem_is_quant(const iohw_problem *p)
{
    return p != NULL && (p->dtype == IOHW_S8 || p->dtype == IOHW_U8);
}

iohw_dtype iohw_problem_w_dtype(const iohw_problem *p)
{
    return iohw_problem_is_quant(p) && p->w_dtype != 0 ? p->w_dtype : p->dtype;
}

iohw_dtype iohw_problem_bias_dtype(const iohw_problem *p)
{
    return iohw_problem_is_quant(p) ? IOHW_S32 : p->dtype;
}

iohw_dtype iohw_problem_y_dtype(const iohw_problem *p)
{
    return iohw_problem_is_quant(p) && p->y_dtype != 0 ? p->y_dtype : p->dtype;
}

int64_t iohw_quant_requant_count(const iohw_problem *p)
{
    if (!iohw_problem_is_quant(p) || iohw_problem_y_dtype(p) == IOHW_S32)
        return 0;
    return p->per_channel ? p->out_channels : 1;
}

size_t iohw_quant_requant_bytes(const iohw_problem *p)
{
    const size_t n = (size_t)iohw_quant_requant_count(p);
    return p->m_form == IOHW_QM_FIXED ? 2 * n * sizeof(int32_t)
                                      : n * sizeof(float);
}

static const char *name_of(const char *const *names, int32_t count, int32_t v)
{
    return v > 0 && v < count && names[v] != NULL ? names[v] : "?";
}

static int parse_of(const char *const *names, int32_t count, const char *s,
                    int32_t *v)
{
    for (int32_t i = 1; s != NULL && i < count; i++) {
        if (names[i] != NULL && strcmp(s, names[i]) == 0) {
            *v = i;
            return 0;
        }
    }
    return -1;
}

const char *iohw_quant_rounding_name(int32_t rounding)
{
    return name_of(ROUNDING_NAMES, COUNT(ROUNDING_NAMES), rounding);
}

int iohw_quant_rounding_parse(const char *name, int32_t *v)
{
    return parse_of(ROUNDING_NAMES, COUNT(ROUNDING_NAMES), name, v);
}

const char *iohw_quant_m_form_name(int32_t m_form)
{
    return name_of(M_FORM_NAMES, COUNT(M_FORM_NAMES), m_form);
}

int iohw_quant_m_form_parse(const char *name, int32_t *v)
{
    return parse_of(M_FORM_NAMES, COUNT(M_FORM_NAMES), name, v);
}

/* The parameters of p without the arrays. */
static void params_of(const iohw_problem *p, iohw_quant *q)
{
    memset(q, 0, sizeof *q);
    q->x_dtype = p->dtype;
    q->w_dtype = iohw_problem_w_dtype(p);
    q->y_dtype = iohw_problem_y_dtype(p);
    q->zp_x = p->zp_x;
    q->zp_w = p->zp_w;
    q->zp_y = p->zp_y;
    q->rounding = p->rounding;
    q->m_form = p->m_form;
    q->per_channel = p->per_channel;
    q->s_x = p->s_x;
    q->s_y = p->s_y;
}

/* A float problem: every quantized member 0. */
static int check_float_members(const iohw_problem *p, iohw_error *err)
{
    const struct {
        const char *name;
        int32_t v;
    } m[] = {
        {"w_dtype", p->w_dtype}, {"y_dtype", p->y_dtype}, {"zp_x", p->zp_x},
        {"zp_w", p->zp_w}, {"zp_y", p->zp_y}, {"rounding", p->rounding},
        {"m_form", p->m_form}, {"per_channel", p->per_channel},
        {"s_x", p->s_x != 0.0f}, {"s_y", p->s_y != 0.0f},
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (m[i].v != 0)
            return iohw_error_set(err, "%s is set in a float problem (dtype "
                                  "%d): the quantized members must be 0",
                                  m[i].name, (int)p->dtype);
    return 0;
}

int iohw__problem_check_quant(const iohw_problem *p, iohw_error *err)
{
    iohw_quant q;
    if (!iohw_problem_is_quant(p))
        return check_float_members(p, err);
    params_of(p, &q);
    if (iohw_quant_validate_params(&q, err) != 0)
        return -1;
    const int s32 = q.y_dtype == IOHW_S32;
    const char *unused = p->s_x != 0.0f ? "s_x" : p->s_y != 0.0f ? "s_y" : NULL;
    if (s32 && (p->rounding != 0 || p->m_form != 0 || p->per_channel != 0))
        return iohw_error_set(err, "quant: an s32 y is not requantized: "
                              "rounding, m_form and per_channel must be 0");
    if ((s32 || p->m_form == IOHW_QM_FIXED) && unused != NULL)
        return iohw_error_set(err, "quant: %s is not used %s and must be 0",
                              unused, s32 ? "with an s32 y" : "in the fixed "
                              "form of M");
    return 0;
}

int iohw_quant_from_problem(const iohw_problem *p, const void *requant,
                            iohw_quant *q, iohw_error *err)
{
    if (p == NULL || q == NULL)
        return iohw_error_set(err, "quant: %s is NULL", p == NULL ? "problem"
                                                                  : "q");
    if (!iohw_problem_is_quant(p))
        return iohw_error_set(err, "quant: dtype %d is not s8 or u8: not a "
                              "quantized problem", (int)p->dtype);
    params_of(p, q);
    const int64_t n = iohw_quant_requant_count(p);
    if (n > 0 && requant == NULL)
        return iohw_error_set(err, "quant: the requant tensor is NULL");
    if (n > 0 && p->m_form == IOHW_QM_SCALES) {
        q->s_w = requant;
    } else if (n > 0) {
        q->multiplier = requant;
        q->shift = q->multiplier + n;
    }
    return iohw_quant_validate(p, q, err);
}

/* The oracle's canonical tensors, and the layout maps. */
typedef struct canon {
    iohw_layout_map xm, wm, ym;
    void *x, *w, *y;
} canon;

static int canon_alloc(const iohw_problem *p, canon *c, iohw_error *err)
{
    if (iohw_layout_data_map(p, 0, &c->xm, err) != 0
        || iohw_layout_weight_map(p, &c->wm, err) != 0
        || iohw_layout_data_map(p, 1, &c->ym, err) != 0)
        return -1;
    c->x = malloc((size_t)c->xm.count + 1);
    c->w = malloc((size_t)c->wm.count + 1);
    c->y = malloc((size_t)c->ym.count * iohw_dtype_size(iohw_problem_y_dtype(p)) + 1);
    if (c->x == NULL || c->w == NULL || c->y == NULL)
        return iohw_error_set(err, "quant: out of memory");
    return 0;
}

int iohw_quant_run(const iohw_problem *p, const void *x, const void *w,
                   const int32_t *bias, const void *requant, void *y,
                   iohw_error *err)
{
    iohw_quant q;
    canon c;
    memset(&c, 0, sizeof c);

    /* Test the arguments. */
    if (p == NULL)
        return iohw_error_set(err, "quant_run: problem p is NULL");
    if (iohw_problem_validate(p, err) != 0)
        return iohw_error_prefix(err, "quant_run: problem p");
    if (x == NULL || w == NULL || y == NULL)
        return iohw_error_set(err, "quant_run: %s is NULL",
                              x == NULL ? "x" : w == NULL ? "w" : "y");
    if (iohw_quant_from_problem(p, requant, &q, err) != 0)
        return iohw_error_prefix(err, "quant_run");

    /* Canonical order in, the definition, the layout's order out. */
    int rc = canon_alloc(p, &c, err);
    if (rc == 0) {
        iohw_layout_to_canonical(&c.xm, 1, x, c.x);
        iohw_layout_to_canonical(&c.wm, 1, w, c.w);
        rc = iohw_quant_conv_transpose(p, &q, c.x, c.w, bias, c.y, err);
    }
    if (rc == 0)
        iohw_layout_from_canonical(&c.ym, iohw_dtype_size(q.y_dtype), c.y, y);
    free(c.x);
    free(c.w);
    free(c.y);
    return rc;
}
