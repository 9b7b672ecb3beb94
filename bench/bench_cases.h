/*
 * bench/bench_cases.h - what the benchmarks of `iohw run` share: a scratch
 * file of N small cases of a few shapes and dtypes.
 */
#ifndef IOHW_BENCH_CASES_H
#define IOHW_BENCH_CASES_H

#include <stdio.h>

#include "cases/case.h"
#include "generators/generators.h"

/* N small cases of a few shapes and dtypes (ids c.00000, ...). */
static int bench_write_cases(const char *path, int n, iohw_error *err)
{
    static const char *const shapes[] = {
        "ci=2 co=3 in=5x4 k=3x2 s=2x1",
        "ci=4 co=6 g=2 in=6 k=3 s=2 bias=1",
        "ci=2 co=2 in=3x3x2 k=2 dt=f64",
        "ci=3 co=3 in=4x4 k=3 dt=f16 xl=NHWC",
    };
    iohw_case_file *f = iohw_case_file_create(path, err);
    if (f == NULL)
        return -1;
    for (int i = 0; i < n; i++) {
        char text[256], id[32];
        iohw_desc d;
        iohw_case c;
        snprintf(text, sizeof text, "%s seed=%d", shapes[i % 4], i + 1);
        snprintf(id, sizeof id, "c.%05d", i);
        if (iohw_desc_parse(text, &d, err) != 0 ||
            iohw_make_case(&d, id, NULL, 1, &c, err) != 0) {
            iohw_case_file_close(f, NULL);
            return -1;
        }
        int rc = iohw_case_file_write(f, &c, err);
        iohw_case_free(&c);
        if (rc != 0) {
            iohw_case_file_close(f, NULL);
            return -1;
        }
    }
    return iohw_case_file_close(f, err);
}

#endif
