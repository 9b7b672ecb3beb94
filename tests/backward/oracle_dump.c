/*
 * tests/backward/oracle_dump.c - the backward oracle (specification
 * section 13) as a filter, for tests/check_backward_torch.py.
 *
 * Reads problems from stdin, each a descriptor line (section 6, with
 * dir=bwd_d or dir=bwd_w; dt f64 or f32; default layouts) followed by the
 * input values as decimal numbers: BWD_D dy then w, BWD_W x then dy, each
 * in canonical order (N, C, spatial; C_in, Mg, kernel).  For each it
 * writes two lines: "terms_max count v..." (the output in the dtype, as
 * %.17g: dx, or dw then db) and "eb..." (err_bound).  Exit status 0, or 1
 * with the reason on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

/* n values of dt read from stdin into a new array; NULL on bad input. */
static void *read_values(iohw_dtype dt, int64_t n)
{
    void *v = malloc((size_t)(n > 0 ? n : 1) * iohw_dtype_size(dt));
    for (int64_t i = 0; v != NULL && i < n; i++) {
        double d;
        if (scanf("%lf", &d) != 1) {
            free(v);
            return NULL;
        }
        iohw_dtype_store(dt, v, (size_t)i, d);
    }
    return v;
}

static int one_problem(const char *line)
{
    iohw_desc d;
    iohw_error err;
    if (iohw_desc_parse(line, &d, &err) != 0) {
        fprintf(stderr, "oracle_dump: %s\n", err.msg);
        return -1;
    }
    const iohw_problem *p = &d.p;
    const int data = p->direction == IOHW_DIR_BWD_D;
    const int64_t n0 = data ? iohw_problem_dy_count(p) : iohw_problem_x_count(p);
    const int64_t n1 = data ? iohw_problem_w_count(p) : iohw_problem_dy_count(p);
    void *a = read_values(p->dtype, n0), *b = read_values(p->dtype, n1);
    if (a == NULL || b == NULL) {
        fprintf(stderr, "oracle_dump: '%s': expected %lld + %lld input values\n", line,
                (long long)n0, (long long)n1);
        free(a), free(b);
        return -1;
    }
    iohw_oracle_inputs in = {0};
    if (data)
        in.dy = a, in.w = b;
    else
        in.x = a, in.dy = b;
    iohw_oracle_result r;
    int rc = iohw_oracle_run_inputs(p, &in, IOHW_ORACLE_FROM_ENV, 1, &r, &err);
    free(a), free(b);
    if (rc != 0) {
        fprintf(stderr, "oracle_dump: '%s': %s\n", line, err.msg);
        return -1;
    }
    const int64_t n = iohw_problem_out_count(p);
    printf("%lld %lld", (long long)r.terms_max, (long long)n);
    for (int64_t i = 0; i < n; i++)
        printf(" %.17g", iohw_dtype_load(p->dtype, r.y, (size_t)i));
    printf("\n");
    for (int64_t i = 0; i < n; i++)
        printf("%s%.17g", i > 0 ? " " : "", r.err_bound[i]);
    printf("\n");
    iohw_oracle_result_free(&r);
    return 0;
}

int main(void)
{
    char line[IOHW_DESC_MAX + 2];
    while (fgets(line, sizeof line, stdin) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (line[strspn(line, " \t")] == '\0')
            continue;
        if (one_problem(line) != 0)
            return 1;
        fflush(stdout);
    }
    return 0;
}
