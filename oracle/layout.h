/*
 * oracle/layout.h - layout letters (specification section 2, docs/SPEC.md):
 * validation, shapes, and permutation between a layout and the canonical
 * order.
 *
 * Canonical orders:
 *   data:   N, C, then the spatial axes (D, H, W order)      - ncanon = 2 + rank
 *   weight: G, I (within the group, Cg), O (Mg), then spatial - ncanon = 3 + rank
 * The canonical weight is the same memory as the semantic w[C_in][Mg][K...]
 * (I_full = g*Cg + i), so a layout with a full-width I axis and no G maps onto
 * it as well: its I axis gives both the G and the I strides.
 */
#ifndef IOHW_LAYOUT_H
#define IOHW_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "iohw/backend.h"
#include "oracle/error.h"

#define IOHW_LAYOUT_MAX_DIMS 6

typedef struct iohw_layout_map {
    int ndim;                                  /* letters in the layout */
    char letters[IOHW_LAYOUT_MAX_DIMS + 1];    /* the layout string */
    int64_t shape[IOHW_LAYOUT_MAX_DIMS];       /* extents, memory order */
    int ncanon;                                /* canonical axes */
    int64_t canon_shape[IOHW_LAYOUT_MAX_DIMS]; /* extents, canonical order */
    int64_t canon_stride[IOHW_LAYOUT_MAX_DIMS];/* element stride in the
                                                  layout's memory of each
                                                  canonical axis */
    int64_t count;                             /* total elements */
} iohw_layout_map;

/* Validate a layout string for a rank; the message quotes the string and
 * says what is wrong (unknown letter, repeated letter, missing letter,
 * wrong length, G in a data layout, ...). */
int iohw_layout_check_data(const char *layout, int rank, iohw_error *err);
int iohw_layout_check_weight(const char *layout, int rank, iohw_error *err);

/* 1 when a weight layout has a G axis. */
int iohw_layout_has_groups(const char *weight_layout);

/* Default layouts for a rank: "NCW"/"NCHW"/"NCDHW" and "IOW"/"IOHW"/
 * "IODHW".  buf must hold 16 bytes. */
void iohw_layout_default_data(int rank, char *buf);
void iohw_layout_default_weight(int rank, char *buf);

/* Maps of the problem's tensors.  output = 0 for x (C = C_in), 1 for y
 * (C = C_out, out_size).  The problem must be validated. */
int iohw_layout_data_map(const iohw_problem *p, int output, iohw_layout_map *m,
                         iohw_error *err);
int iohw_layout_weight_map(const iohw_problem *p, iohw_layout_map *m,
                           iohw_error *err);

/* Same, for an arbitrary layout string instead of the problem's own (used to
 * re-express a tensor in another layout). */
int iohw_layout_data_map_as(const iohw_problem *p, int output,
                            const char *layout, iohw_layout_map *m,
                            iohw_error *err);
int iohw_layout_weight_map_as(const iohw_problem *p, const char *layout,
                              iohw_layout_map *m, iohw_error *err);

/* Layout memory -> dense canonical order, and back, for elements of
 * elem_size bytes (1, 2, 4 or 8).  src and dst must not overlap. */
void iohw_layout_to_canonical(const iohw_layout_map *m, size_t elem_size,
                              const void *src, void *dst);
void iohw_layout_from_canonical(const iohw_layout_map *m, size_t elem_size,
                                const void *src, void *dst);

/* Memory offset (in elements) of a canonical multi-index. */
int64_t iohw_layout_offset(const iohw_layout_map *m, const int64_t *canon_index);

#endif
