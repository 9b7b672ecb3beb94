/*
 * oracle/index.h - the index map of specification section 1 (docs/SPEC.md),
 * shared by the oracle's two definitions: the float one (conv_transpose.c,
 * and the tuned kernel's checks) and the quantized one (quant.c).
 * Internal to oracle/.
 */
#ifndef IOHW_INDEX_H
#define IOHW_INDEX_H

#include <stdint.h>

#include "iohw/backend.h"

/* The extents of a validated problem, named as in the definitions:
 * Cg = C_in/G, Mg = C_out/G, and the volumes of the spatial index sets:
 * LV input positions i, KV taps k, OV output positions o. */
typedef struct iohw__extents {
    int64_t N, C_in, C_out, G, Cg, Mg;
    int64_t LV, KV, OV;
} iohw__extents;

iohw__extents iohw__extents_of(const iohw_problem *p);

/* Where tap k (row-major index into K...) carries input position i
 * (row-major into L...): the row-major index of o into O..., or -1 when
 * o_a = i_a*S_a + k_a*D_a - P_a falls outside [0, O_a) on some axis. */
int64_t iohw__out_position(const iohw_problem *p, int64_t k, int64_t i);

#endif
