/*
 * cli/show_as.h - `iohw show --as FORMAT FILE:CASE` (cli/show_as.c): a
 * case handed back in another tool's language.  The SHOW_AS table's rows
 * take either the problem alone (fn, e.g. a benchdnn descriptor line) or
 * the whole case with its tensors (fn_case: onnx, torch).
 */
#ifndef IOHW_CLI_SHOW_AS_H
#define IOHW_CLI_SHOW_AS_H

#include <stdio.h>

#include "cases/case.h"
#include "oracle/error.h"

/* A case with its tensors in the canonical orders of specification
 * section 1 (x[N][C_in][L...], w[C_in][Mg][K...], y[N][C_out][O...]) as
 * doubles, and each output element's tolerance (section 3.3). */
typedef struct iohw__show_as_case {
    const iohw_case *c;
    const char *file;      /* the case file */
    const char *out_dir;   /* -o DIR, or NULL */
    double *x, *w, *bias;  /* bias NULL without one */
    double *y_f64, *tol;
    int64_t nx, nw, ny;
} iohw__show_as_case;

int iohw__show_as_onnx(const iohw__show_as_case *k, FILE *out, iohw_error *err);
int iohw__show_as_torch(const iohw__show_as_case *k, FILE *out, iohw_error *err);


/* `iohw show --as ...`: called by iohw_cli_show when --as is given. */
int iohw__show_as(int argc, char **argv);

#endif
