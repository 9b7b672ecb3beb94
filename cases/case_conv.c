/*
 * cases/case_conv.c - a case's framework convention (specification sections
 * 4 and 12): the attributes auto_pad (string same_upper, same_lower or
 * valid), convention (string onnx, tf, tvm, torch or mxnet) and out_shape
 * (int64[rank]), each written only when set.  A file without them states
 * its pads explicitly (as every file before them did).
 *
 * Read back, the convention must resolve (oracle/convention.h) to exactly
 * the case's explicit pad_begin, pad_end, output_padding and out_size: the
 * explicit members are the problem, the convention only says how a
 * framework states it, so a file whose two disagree is rejected.
 */
#include <stdlib.h>
#include <string.h>

#include "cases/case_internal.h"
#include "cases/h5util.h"
#include "oracle/convention.h"

/* Longest auto_pad or convention value a reader accepts. */
#define CONV_WORD_MAX 32

int iohw__case_conv_write(hid_t g, const iohw_problem *p, iohw_error *err)
{
    if (p->convention == IOHW_CONV_NONE)
        return 0;
    const char *cv = iohw_convention_name(p->convention);
    const char *ap = iohw_auto_pad_name(p->auto_pad);
    if (cv == NULL || ap == NULL)
        return iohw_error_set(err, "convention %d or auto_pad %d has no name",
                              (int)p->convention, (int)p->auto_pad);
    if (p->auto_pad != IOHW_AUTO_PAD_NONE &&
        iohw__h5_write_string(g, "auto_pad", ap, err) != 0)
        return -1;
    if (iohw__h5_write_string(g, "convention", cv, err) != 0)
        return -1;
    if (p->out_shape[0] > 0 &&
        iohw__h5_write_i64s(g, "out_shape", (int)p->rank, p->out_shape, err) != 0)
        return -1;
    return 0;
}

int iohw__case_conv_check(const iohw_problem *p, iohw_error *err)
{
    if (iohw_convention_check(p, err) != 0)
        return iohw_error_prefix(err, "the stated convention");
    return 0;
}

/* A string attribute naming a code: *code set, or left 0 when absent. */
static int read_word(hid_t g, const char *name, int (*parse)(const char *, int32_t *),
                     const char *allowed, int32_t *code, iohw_error *err)
{
    char *s = NULL;
    int has = iohw__h5_has_attr(g, name, err);
    if (has <= 0)
        return has;
    if (iohw__h5_read_string(g, name, CONV_WORD_MAX, &s, err) != 0)
        return -1;
    int rc = parse(s, code);
    if (rc != 0)
        iohw_error_set(err, "attribute '%s' is '%s'; it must be %s", name, s,
                       allowed);
    free(s);
    return rc;
}

int iohw__case_conv_read(hid_t g, iohw_problem *p, iohw_error *err)
{
    p->auto_pad = IOHW_AUTO_PAD_NONE;
    p->convention = IOHW_CONV_NONE;
    memset(p->out_shape, 0, sizeof p->out_shape);
    if (read_word(g, "auto_pad", iohw_auto_pad_parse,
                  "same_upper, same_lower or valid", &p->auto_pad, err) < 0 ||
        read_word(g, "convention", iohw_convention_parse,
                  "onnx, tf, tvm, torch or mxnet", &p->convention, err) < 0)
        return -1;
    int has = iohw__h5_has_attr(g, "out_shape", err);
    if (has < 0)
        return -1;
    if (has) {
        if (iohw__h5_read_ints(g, "out_shape", (int)p->rank, p->out_shape, err) != 0)
            return -1;
        for (uint32_t a = 0; a < p->rank; a++)
            if (p->out_shape[a] < 1)
                return iohw_error_set(err, "attribute 'out_shape' holds %lld; "
                                      "every entry must be >= 1",
                                      (long long)p->out_shape[a]);
    }
    if (p->convention == IOHW_CONV_NONE && (p->auto_pad != 0 || has))
        return iohw_error_set(err, "attribute '%s' is present without "
                              "'convention' (onnx, tf, tvm, torch or mxnet)",
                              p->auto_pad != 0 ? "auto_pad" : "out_shape");
    return 0;
}
