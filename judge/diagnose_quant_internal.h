/*
 * judge/diagnose_quant_internal.h - between the quantized misreadings
 * (judge/diagnose_quant.c, TABLE) and the driver that names the ones a
 * failing output matches (judge/diagnose_quant_driver.c), specification
 * section 11.5.
 */
#ifndef IOHW_DIAGNOSE_QUANT_INTERNAL_H
#define IOHW_DIAGNOSE_QUANT_INTERNAL_H

#include "judge/diagnose_quant.h"

/* One misreading of the definition, as a row's builder sets it. */
typedef struct qvariant {
    int zp_x_kept, zp_w_kept, io_swapped, bias_after, zp_y_first, axis_i, wrap;
    int32_t rounding;   /* 0: the case's */
    iohw__dgq_acc_fn acc_fn;       /* NULL: the definition's accumulators */
    iohw__dgq_finish_fn finish;    /* NULL: zp_y + R(M * acc), stored */
} qvariant;

/* Rows of TABLE (the misreadings; the names of their groups follow them
 * in iohw__dgq_name). */
int iohw__dgq_rows(void);

/* v := row i's misreading on case c (v zeroed first); 1 when it applies
 * and can differ on this case, 0 when not. */
int iohw__dgq_build(int i, const iohw__dgq_case *c, qvariant *v);

/* The groups (diagnose_quant_driver.c): misreadings that one case may
 * not tell apart share a common name.  Count, common name, meaning. */
int iohw__dgq_group_count(void);
const char *iohw__dgq_group_name(int g);
const char *iohw__dgq_group_meaning(int g);
/* 1 when the row named name is a member of group g. */
int iohw__dgq_in_group(int g, const char *name);

#endif
