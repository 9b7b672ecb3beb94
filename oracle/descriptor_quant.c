/*
 * oracle/descriptor_quant.c - the descriptor keys of a quantized problem
 * (specification sections 6 and 11.4):
 *   wdt   s8 u8              w's type (default: dt)
 *   ydt   s8 u8 s32          y's type (default: dt)
 *   zp    X,W,Y              zero points of x, w, y (default 0,0,0)
 *   round half_even half_away half_up gemmlowp   (default half_even)
 *   m     scales fixed       the form of M (default scales; fixed with
 *                            gemmlowp)
 *   pc    0 1                M per output channel (default 0)
 *   sx sy binary32 decimal   scales form only (default 1)
 * An s32 y takes none of round, m, pc, sx, sy, and zp's Y is 0.
 */
#include "oracle/descriptor_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/dtype.h"
#include "oracle/quant_problem.h"

static const char *const QUANT_FILLS[] = {"qrandom", "qunsat", "qsaturate", "qzp-extreme",
                                           "qchannels", "qties", "qio-trap", "qgroup-trap",
                                           "qdeploy", "qwide", "qshift", NULL};

int iohw_fill_is_quant(const char *name)
{
    for (size_t i = 0; name != NULL && QUANT_FILLS[i] != NULL; i++)
        if (strcmp(name, QUANT_FILLS[i]) == 0)
            return 1;
    return 0;
}

/* wdt / ydt. */
static int parse_type(const token *t, int y, int32_t *dt, iohw_error *err)
{
    char name[8];
    iohw_dtype v;
    if (iohw__desc_copy_word(t, name, sizeof name) != 0
        || iohw_dtype_parse(name, &v) != 0
        || (v != IOHW_S8 && v != IOHW_U8 && (!y || v != IOHW_S32)))
        return iohw__desc_tok_error(err, t, "%s", y ? "ydt must be s8, u8 or s32"
                                                    : "wdt must be s8 or u8");
    *dt = v;
    return 0;
}

/* zp=X,W,Y: three decimal integers. */
static int parse_zp(const token *t, iohw_problem *p, iohw_error *err)
{
    int32_t *dst[3] = {&p->zp_x, &p->zp_w, &p->zp_y};
    const char *s = t->val, *end = t->val + t->vlen;
    for (int i = 0; i < 3; i++) {
        const char *comma = memchr(s, ',', (size_t)(end - s));
        const char *stop = comma != NULL ? comma : end;
        if ((i < 2) != (comma != NULL))
            return iohw__desc_tok_error(err, t, "zp is X,W,Y: the zero points "
                                        "of x, w and y");
        int64_t v;
        if (iohw__desc_parse_int(t, "zp", s, (size_t)(stop - s), &v, err) != 0)
            return -1;
        if (v < INT32_MIN || v > INT32_MAX)
            return iohw__desc_tok_error(err, t, "zp: %lld is out of range",
                                        (long long)v);
        *dst[i] = (int32_t)v;
        s = stop + 1;
    }
    return 0;
}

/* sx / sy: a positive normal binary32 value in decimal. */
static int parse_scale(const token *t, float *v, iohw_error *err)
{
    char buf[48];
    if (iohw__desc_copy_word(t, buf, sizeof buf) != 0)
        return iohw__desc_tok_error(err, t, "a scale is a decimal number");
    errno = 0;
    char *end;
    float f = strtof(buf, &end);
    if (*end != '\0' || end == buf || buf[0] == ' ' || buf[0] == '+')
        return iohw__desc_tok_error(err, t, "a scale is a decimal number");
    if (errno == ERANGE || !isnormal(f) || f <= 0.0f)
        return iohw__desc_tok_error(err, t, "a scale must be a positive normal "
                                    "binary32 number");
    *v = f;
    return 0;
}

/* round, m, pc. */
static int parse_modes(const token tok[K_COUNT], const int seen[K_COUNT],
                       iohw_problem *p, iohw_error *err)
{
    char word[16];
    p->rounding = IOHW_ROUND_HALF_EVEN;
    if (seen[K_ROUND] && (iohw__desc_copy_word(&tok[K_ROUND], word, sizeof word) != 0
                          || iohw_quant_rounding_parse(word, &p->rounding) != 0))
        return iohw__desc_tok_error(err, &tok[K_ROUND], "round must be half_even, "
                                    "half_away, half_up or gemmlowp");
    p->m_form = p->rounding == IOHW_ROUND_GEMMLOWP ? IOHW_QM_FIXED : IOHW_QM_SCALES;
    if (seen[K_M] && (iohw__desc_copy_word(&tok[K_M], word, sizeof word) != 0
                      || iohw_quant_m_form_parse(word, &p->m_form) != 0))
        return iohw__desc_tok_error(err, &tok[K_M], "m must be scales or fixed");
    if (seen[K_PC]) {
        int64_t v;
        if (iohw__desc_parse_int(&tok[K_PC], "pc", tok[K_PC].val, tok[K_PC].vlen,
                                 &v, err) != 0)
            return -1;
        if (v != 0 && v != 1)
            return iohw__desc_tok_error(err, &tok[K_PC], "pc must be 0 or 1");
        p->per_channel = (int32_t)v;
    }
    const int fixed = p->m_form == IOHW_QM_FIXED;
    p->s_x = p->s_y = fixed ? 0.0f : 1.0f;
    for (int k = K_SX; k <= K_SY; k++) {
        if (seen[k] && fixed)
            return iohw__desc_tok_error(err, &tok[k], "sx and sy belong to m=scales");
        if (seen[k] && parse_scale(&tok[k], k == K_SX ? &p->s_x : &p->s_y, err) != 0)
            return -1;
    }
    return 0;
}

/* The fill against the problem's kind. */
static int check_fill(const token tok[K_COUNT], const int seen[K_COUNT],
                      iohw_desc *r, iohw_error *err)
{
    const int quant = iohw_problem_is_quant(&r->p);
    if (!seen[K_FILL]) {
        if (quant)
            snprintf(r->fill, sizeof r->fill, "%s", QUANT_FILLS[0]);
        return 0;
    }
    if (quant && !iohw_fill_is_quant(r->fill))
        return iohw__desc_tok_error(err, &tok[K_FILL], "a quantized problem "
                                    "(dt=s8 or u8) takes fill=qrandom");
    if (!quant && iohw_fill_is_quant(r->fill))
        return iohw__desc_tok_error(err, &tok[K_FILL], "fill=%s is for a "
                                    "quantized problem (dt=s8 or u8)", r->fill);
    return 0;
}

int iohw__desc_parse_quant(const token tok[K_COUNT], const int seen[K_COUNT],
                           iohw_desc *r, iohw_error *err)
{
    iohw_problem *p = &r->p;
    if (p->dtype == IOHW_S32)
        return iohw__desc_tok_error(err, &tok[K_DT], "s32 is only an output "
                                    "type (ydt=s32); x is s8 or u8");
    if (!iohw_problem_is_quant(p)) {
        for (int k = K_WDT; k <= K_QSHIFT; k++)
            if (seen[k])
                return iohw__desc_tok_error(err, &tok[k], "this key is for a "
                                            "quantized problem (dt=s8 or u8)");
        return check_fill(tok, seen, r, err);
    }
    p->w_dtype = p->y_dtype = p->dtype;
    if ((seen[K_WDT] && parse_type(&tok[K_WDT], 0, &p->w_dtype, err) != 0)
        || (seen[K_YDT] && parse_type(&tok[K_YDT], 1, &p->y_dtype, err) != 0)
        || (seen[K_ZP] && parse_zp(&tok[K_ZP], p, err) != 0))
        return -1;
    if (p->y_dtype != IOHW_S32) {
        if (parse_modes(tok, seen, p, err) != 0 || iohw__desc_parse_lists(tok, seen, r, err) != 0)
            return -1;
        r->stated |= (seen[K_SX] ? IOHW_STATED_SX : 0u) | (seen[K_SY] ? IOHW_STATED_SY : 0u);
    } else {
        for (int k = K_ROUND; k <= K_QSHIFT; k++)
            if (seen[k])
                return iohw__desc_tok_error(err, &tok[k], "an s32 y is not "
                                            "requantized: no round, m, pc, sx, sy, sw, "
                                            "qmul, qshift");
    }
    return check_fill(tok, seen, r, err);
}

int iohw__desc_format_quant(const iohw_problem *p, char *buf, size_t n)
{
    int w;
    buf[0] = '\0';
    if (!iohw_problem_is_quant(p))
        return 0;
    const iohw_dtype yd = iohw_problem_y_dtype(p);
    w = snprintf(buf, n, " wdt=%s ydt=%s zp=%d,%d,%d",
                 iohw_dtype_name(iohw_problem_w_dtype(p)), iohw_dtype_name(yd),
                 (int)p->zp_x, (int)p->zp_w, (int)p->zp_y);
    if (w >= 0 && (size_t)w < n && yd != IOHW_S32) {
        const size_t at = (size_t)w;
        int more = snprintf(buf + at, n - at, " round=%s m=%s pc=%d",
                            iohw_quant_rounding_name(p->rounding),
                            iohw_quant_m_form_name(p->m_form),
                            (int)p->per_channel);
        w = more < 0 ? -1 : w + more;
        if (w >= 0 && (size_t)w < n && p->m_form == IOHW_QM_SCALES) {
            more = snprintf(buf + w, n - (size_t)w, " sx=%.9g sy=%.9g",
                            (double)p->s_x, (double)p->s_y);
            w = more < 0 ? -1 : w + more;
        }
    }
    return w < 0 || (size_t)w >= n ? -1 : w;
}
