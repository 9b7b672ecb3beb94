/*
 * backends/faults/quant_bias_bytes.c - quantized, claims only channels-last
 * data (N, spatial, C) and reads the int32 bias as C_out signed bytes (the
 * element size of x).  Its failures on cases stored channels-first show
 * only under `iohw run --adapt-layout`, so the tests use it to check that
 * an adapted quantized case hands the backend its bias as int32.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_common.h"
#include "oracle/problem.h"

const char iohw__fault_name[] = "fault_quant_bias_bytes";
const char iohw__fault_about[] =
    "seeded fault: quantized, channels-last only, the int32 bias read as bytes";

static int claims(const iohw_problem *p, iohw_error *err)
{
    const char *sp = iohw_spatial_letters((int)p->rank);
    char xl[16];
    snprintf(xl, sizeof xl, "N%sC", sp != NULL ? sp : "");
    if (strcmp(p->data_layout, xl) != 0)
        return iohw_error_set(err, "quant_bias_bytes: only %s data", xl);
    return 0;
}

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    if (fw->bias == NULL)
        return iohw_quant_conv_transpose(&fw->p, &fw->q, fw->x, fw->w, NULL, yc, err);
    const int64_t n = fw->p.out_channels;
    int32_t *b = malloc((size_t)n * sizeof *b);
    if (b == NULL)
        return iohw_error_set(err, "quant_bias_bytes: out of memory");
    const int8_t *bytes = (const int8_t *)fw->bias;
    for (int64_t i = 0; i < n; i++)
        b[i] = bytes[i];
    int rc = iohw_quant_conv_transpose(&fw->p, &fw->q, fw->x, fw->w, b, yc, err);
    free(b);
    return rc;
}

const fault_spec iohw__fault_spec = {.claims = claims, .compute_quant = compute_quant};
