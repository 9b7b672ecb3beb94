/*
 * cli/benchdnn.h - oneDNN's benchdnn deconvolution problems in and out of
 * iohw: `iohw import benchdnn` (its descriptors and batch files become
 * problems) and `iohw show --as benchdnn` (a case's problem as a benchdnn
 * command line).  Normative: docs/SPEC.md, section 14.
 *
 * A benchdnn deconvolution descriptor (oneDNN's
 * tests/benchdnn/doc/knobs_desc.md and driver_conv.md) is
 *   gXmbX_icXidXihXiwX_ocXodXohXowX_kdXkhXkwX_sdXshXswX_pdXphXpwX_ddXdhXdwX_nNAME
 * with every entry optional but ic, oc, an input size and a kernel; '_'
 * may follow any value.  Defaults: g 1, mb 2, strides 1, dilations 0
 * (benchdnn counts dilation from 0: iohw's d = benchdnn's + 1), padding
 * deduced from the output size when that is given, else 0, and the output
 * size deduced from the rest.  A depth entry makes the problem 3-d, a
 * height one 2-d; the entries of a higher axis fill the lower ones that are
 * not given (a "square" or "cubic" problem).  The padding at the end is
 * what the sizes leave: (i - 1) * s + (k - 1) * (d + 1) + 1 - p - o; a
 * negative one is iohw's output_padding.
 */
#ifndef IOHW_CLI_BENCHDNN_H
#define IOHW_CLI_BENCHDNN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "oracle/error.h"
#include "oracle/problem.h"

/* One parsed descriptor, axes in D, H, W order (rank of them used). */
typedef struct iohw__bdnn_desc {
    int64_t g, mb, ic, oc;
    int rank;                   /* 1, 2 or 3 */
    int64_t in[3], out[3], k[3], s[3], d[3]; /* d: benchdnn's, 0-based */
    int64_t pad_begin[3], pad_end[3];        /* pad_end may be negative */
    char name[64];              /* n"NAME" without the quotes; "" if none */
} iohw__bdnn_desc;

/* Parses one descriptor with benchdnn's defaults and deductions.  0, or
 * -1 with a message naming the entry. */
int iohw__bdnn_parse_desc(const char *text, iohw__bdnn_desc *d, iohw_error *err);

/* The problem settings a batch file's options give a descriptor. */
typedef struct iohw__bdnn_setting {
    const char *dir;            /* benchdnn's name: FWD_B, FWD_D, ... */
    const char *dt;             /* "f32", or "u8:s8:u8" */
    int64_t mb;                 /* --mb: 0 = the descriptor's */
} iohw__bdnn_setting;

/* The iohw descriptor of d under setting s (mb_override > 0 replaces the
 * batch; s->mb too), into buf.  0; 1 when iohw cannot state it (why in
 * err: a data type iohw has no definition for); -1 when buf is short. */
int iohw__bdnn_to_iohw(const iohw__bdnn_desc *d, const iohw__bdnn_setting *s,
                       char *buf, size_t n, iohw_error *err);

/* What the batch reader found: a problem (desc's text, the settings in
 * force, where), or a note (an option iohw ignores), or an error. */
typedef struct iohw__bdnn_item {
    const char *file;
    int line;
    const char *desc_text;      /* the descriptor as written */
    iohw__bdnn_setting setting;
} iohw__bdnn_item;

typedef struct iohw__bdnn_sink {
    /* A descriptor under one setting (called once per --dir x --dt). */
    void (*problem)(void *ctx, const iohw__bdnn_item *it);
    /* A malformed thing or an option iohw ignores; error 1 for the
     * former.  msg names the file and line. */
    void (*note)(void *ctx, int error, const char *msg);
    void *ctx;
} iohw__bdnn_sink;

/* Reads a batch file (or, when is_text, the text itself: a command line's
 * words, joined by spaces, as a file named name) with benchdnn's options:
 * --reset, --dir=, --dt=, --cfg=, --mb=, --match=, --batch= (relative to
 * the including file's folder, 16 levels at most, no cycle), --deconv; the
 * others are noted as ignored.  Returns the number of errors noted. */
int iohw__bdnn_read(const char *name, const char *text, const iohw__bdnn_sink *sink);

/* The benchdnn command line of problem p (its direction, dtype, sizes) as
 * one line on out, named case_id.  0; 1 when benchdnn cannot state it
 * (the reason in err: a quantized case's scales and zero points, a layout
 * benchdnn's descriptor has no word for, a convention). */
int iohw__show_as_benchdnn(const iohw_problem *p, const char *case_id, FILE *out,
                           iohw_error *err);

#endif
