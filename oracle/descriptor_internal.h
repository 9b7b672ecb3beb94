/*
 * oracle/descriptor_internal.h - what the descriptor's files share
 * (descriptor.c: the grammar, the float keys, formatting; descriptor_quant.c:
 * the keys of a quantized problem).  Internal to the oracle.
 */
#ifndef IOHW_DESCRIPTOR_INTERNAL_H
#define IOHW_DESCRIPTOR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "oracle/descriptor.h"

/* Keys, in canonical order. */
enum {
    K_N, K_CI, K_CO, K_G, K_IN, K_K, K_S, K_D, K_PAD, K_OP, K_BIAS, K_DT,
    K_WDT, K_YDT, K_ZP, K_ROUND, K_M, K_PC, K_SX, K_SY, K_SW, K_QMUL, K_QSHIFT,
    K_XL, K_WL, K_FILL, K_SEED, K_AUTO_PAD, K_OUT, K_CONV, K_DIR, K_COUNT
};

/* One token: the whole text and the value part. */
typedef struct token {
    const char *s;
    size_t len;
    const char *val;
    size_t vlen;
} token;

/* Sets err to "descriptor token '<t>': <message>"; returns -1. */
int iohw__desc_tok_error(iohw_error *err, const token *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Parses s[0..len) as a decimal integer (an optional '-') into *v. */
int iohw__desc_parse_int(const token *t, const char *what, const char *s,
                         size_t len, int64_t *v, iohw_error *err);

/* Copies t's value into out (size n, NUL-terminated); -1 when too long. */
int iohw__desc_copy_word(const token *t, char *out, size_t n);

/* The quantized keys (wdt ydt zp round m pc sx sy) into r->p, after dt and
 * fill were parsed: defaults for a quantized dt, an error for any of them
 * with a float dt, and the fill checked against the problem's kind (a
 * quantized problem's default fill is "qrandom"). */
int iohw__desc_parse_quant(const token tok[K_COUNT], const int seen[K_COUNT],
                           iohw_desc *r, iohw_error *err);

/* The quantized keys of p in canonical form (" wdt=s8 ydt=u8 zp=..."), or
 * "" for a float problem; -1 when buf (size n) is too small. */
int iohw__desc_format_quant(const iohw_problem *p, char *buf, size_t n);

/* sw, qmul, qshift (descriptor_lists.c) into r's lists, after the quantized
 * modes were parsed: each value checked, 1 or co values, the key of the
 * problem's form of M. */
int iohw__desc_parse_lists(const token tok[K_COUNT], const int seen[K_COUNT],
                           iohw_desc *r, iohw_error *err);

/* The stated lists of d in canonical form (" sw=a,b qmul=... qshift=..."),
 * or ""; -1 when buf (size n) is too small. */
int iohw__desc_format_lists(const iohw_desc *d, char *buf, size_t n);

/* dir= (descriptor_dir.c) into p->direction, after bias was parsed: fwd_d,
 * fwd_b and bwd_wb also set has_bias (an error when bias= says otherwise). */
int iohw__desc_parse_dir(const token tok[K_COUNT], const int seen[K_COUNT],
                         iohw_problem *p, iohw_error *err);

/* The canonical value of dir= for p's direction: fwd, bwd_d, bwd_w ("?"
 * for an unknown direction). */
const char *iohw__desc_dir_name(const iohw_problem *p);

#endif
