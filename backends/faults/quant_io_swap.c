/*
 * backends/faults/quant_io_swap.c - quantized: the int8 weight read with
 * I and O exchanged in its layout string (IOHW read as OIHW), the same
 * memory with the same extents.
 */
#include <stdlib.h>
#include <string.h>

#include "fault_common.h"
#include "oracle/layout.h"

const char iohw__fault_name[] = "fault_quant_io_swap";
const char iohw__fault_about[] =
    "seeded fault: quantized, reads the weight with I and O exchanged";

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    iohw_problem given = fw->p; /* the given layouts, float-coded */
    iohw_layout_map wrong;
    char other[16];
    memcpy(given.weight_layout, fw->given->weight_layout, sizeof given.weight_layout);
    memcpy(other, given.weight_layout, sizeof other);
    other[sizeof other - 1] = '\0';
    for (char *s = other; *s != '\0'; s++)
        *s = *s == 'I' ? 'O' : *s == 'O' ? 'I' : *s;
    if (iohw_layout_weight_map_as(&given, other, &wrong, err) != 0)
        return -1;
    uint8_t *w = malloc((size_t)wrong.count);
    if (w == NULL)
        return iohw_error_set(err, "quant_io_swap: out of memory");
    /* The host's memory read through the other layout string. */
    iohw_layout_to_canonical(&wrong, 1, fw->w_given, w);
    const int rc = iohw_quant_conv_transpose(&fw->p, &fw->q, fw->x, w, fw->bias, yc, err);
    free(w);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
