/*
 * cases/case_quant.c - the quantization block of a quantized case
 * (specification sections 4 and 11.4): its attributes, written and read,
 * and the check of its requant values.
 *
 * Attributes of a case whose dtype (x's type) is s8 or u8:
 *   w_dtype, y_dtype     string  s8 u8 (y: or s32)
 *   zp_x, zp_w, zp_y     int32
 *   rounding, m_form     string  half_even ... gemmlowp; scales, fixed
 *   per_channel          int32   0 or 1
 *   s_x, s_y             float32 scales form only
 * An s32 y has only the first five.  The reader takes an absent one as a
 * malformed case and names it; the values are then checked with the
 * problem (iohw_problem_validate).
 */
#include <stdlib.h>
#include <string.h>

#include "cases/case_internal.h"
#include "cases/h5util.h"
#include "oracle/dtype.h"
#include "oracle/quant_problem.h"

#define NAME_MAX_LEN 15

int iohw__case_write_quant_attrs(hid_t g, const iohw_problem *p,
                                 iohw_error *err)
{
    if (!iohw_problem_is_quant(p))
        return 0;
    const iohw_dtype yd = iohw_problem_y_dtype(p);
    if (iohw__h5_write_string(g, "w_dtype",
                              iohw_dtype_name(iohw_problem_w_dtype(p)), err) ||
        iohw__h5_write_string(g, "y_dtype", iohw_dtype_name(yd), err) ||
        iohw__h5_write_i32(g, "zp_x", p->zp_x, err) != 0 ||
        iohw__h5_write_i32(g, "zp_w", p->zp_w, err) != 0 ||
        iohw__h5_write_i32(g, "zp_y", p->zp_y, err) != 0)
        return -1;
    if (yd == IOHW_S32)
        return 0;
    if (iohw__h5_write_string(g, "rounding",
                              iohw_quant_rounding_name(p->rounding), err) ||
        iohw__h5_write_string(g, "m_form", iohw_quant_m_form_name(p->m_form),
                              err) ||
        iohw__h5_write_i32(g, "per_channel", p->per_channel, err) != 0)
        return -1;
    if (p->m_form != IOHW_QM_SCALES)
        return 0;
    return iohw__h5_write_f32(g, "s_x", p->s_x, err) != 0 ||
           iohw__h5_write_f32(g, "s_y", p->s_y, err) != 0 ? -1 : 0;
}

/* A string attribute that one of the parsers turns into a code. */
static int read_code(hid_t g, const char *name, int (*parse)(const char *, int32_t *),
                     const char *choices, int32_t *v, iohw_error *err)
{
    char *s = NULL;
    if (iohw__h5_read_string(g, name, NAME_MAX_LEN, &s, err) != 0)
        return -1;
    int rc = parse(s, v);
    if (rc != 0)
        iohw_error_set(err, "attribute '%s' is '%s'; it must be %s", name, s,
                       choices);
    free(s);
    return rc;
}

static int parse_w_type(const char *s, int32_t *v)
{
    iohw_dtype dt;
    if (iohw_dtype_parse(s, &dt) != 0 || (dt != IOHW_S8 && dt != IOHW_U8))
        return -1;
    *v = dt;
    return 0;
}

static int parse_y_type(const char *s, int32_t *v)
{
    iohw_dtype dt;
    if (iohw_dtype_parse(s, &dt) != 0
        || (dt != IOHW_S8 && dt != IOHW_U8 && dt != IOHW_S32))
        return -1;
    *v = dt;
    return 0;
}

/* An int32 attribute. */
static int read_i32(hid_t g, const char *name, int32_t *v, iohw_error *err)
{
    int64_t x;
    if (iohw__h5_read_ints(g, name, 1, &x, err) != 0)
        return -1;
    if (x < INT32_MIN || x > INT32_MAX)
        return iohw_error_set(err, "attribute '%s' is %lld, beyond int32",
                              name, (long long)x);
    *v = (int32_t)x;
    return 0;
}

int iohw__case_read_quant_attrs(hid_t g, iohw_problem *p, iohw_error *err)
{
    if (!iohw_problem_is_quant(p))
        return 0;
    if (read_code(g, "w_dtype", parse_w_type, "s8 or u8", &p->w_dtype, err) ||
        read_code(g, "y_dtype", parse_y_type, "s8, u8 or s32", &p->y_dtype, err) ||
        read_i32(g, "zp_x", &p->zp_x, err) != 0 ||
        read_i32(g, "zp_w", &p->zp_w, err) != 0 ||
        read_i32(g, "zp_y", &p->zp_y, err) != 0)
        return -1;
    if (p->y_dtype == IOHW_S32)
        return 0;
    if (read_code(g, "rounding", iohw_quant_rounding_parse, "half_even, "
                  "half_away, half_up or gemmlowp", &p->rounding, err) ||
        read_code(g, "m_form", iohw_quant_m_form_parse, "scales or fixed",
                  &p->m_form, err) ||
        read_i32(g, "per_channel", &p->per_channel, err) != 0)
        return -1;
    if (p->m_form != IOHW_QM_SCALES)
        return 0;
    return iohw__h5_read_f32(g, "s_x", &p->s_x, err) != 0 ||
           iohw__h5_read_f32(g, "s_y", &p->s_y, err) != 0 ? -1 : 0;
}

int iohw__case_check_requant(const iohw_case *c, iohw_error *err)
{
    iohw_quant q;
    if (!iohw_problem_is_quant(&c->p))
        return 0;
    if (iohw_quant_from_problem(&c->p, c->requant, &q, err) != 0)
        return iohw_error_prefix(err, "the requant values (%s)",
                                 c->p.m_form == IOHW_QM_FIXED
                                     ? "datasets 'multiplier', 'shift'"
                                     : "dataset 's_w'");
    return 0;
}
