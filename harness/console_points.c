/*
 * harness/console_points.c - the console's table of a result's first
 * mismatches (console_internal.h).
 */
#include "harness/console_internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "oracle/descriptor.h"
#include "oracle/problem.h"

/* A mismatch's coordinates and values. */
static void print_point(FILE *out, const iohw_result *r, const iohw_point *p)
{
    /* Integers (quantized and exact cases) in full, whatever their size. */
    const int whole = r->exact && fabs(p->expected) < 0x1p53 && fabs(p->got) < 0x1p53
                      && p->expected == floor(p->expected) && p->got == floor(p->got);
    const int digits = whole ? 17 : 9;
    fprintf(out, "%5lld %5lld %5lld %5lld %5lld %16.*g %16.*g %12.4g %12.4g\n",
            (long long)p->coord[0], (long long)p->coord[1],
            (long long)p->coord[2], (long long)p->coord[3],
            (long long)p->coord[4], digits, p->expected, digits, p->got,
            p->got - p->expected, p->bound);
}

/* A backward case's mismatches (specification section 13): each row
 * names its tensor, dx (n, ci, d, h, w), dw (ci, co, kd, kh, kw) or db
 * (co); dw and db are told apart by the element index past dw's count. */
static void print_backward_points(FILE *out, const iohw_result *r)
{
    iohw_desc d;
    const int data = strcmp(r->direction, "BWD_D") == 0;
    const int64_t wc = !data && iohw_desc_parse(r->descriptor, &d, NULL) == 0
                           ? iohw_problem_w_count(&d.p) : INT64_MAX;
    fprintf(out, "  first mismatches of %s (of %lld):\n",
            data ? "dx" : strcmp(r->direction, "BWD_WB") == 0 ? "dw and db" : "dw",
            (long long)r->mismatches);
    fprintf(out, "    %-3s %5s %5s %5s %5s %5s %16s %16s %12s %12s\n", "of",
            data ? "n" : "ci", data ? "ci" : "co", data ? "d" : "kd",
            data ? "h" : "kh", data ? "w" : "kw", "expected", "got", "diff", "bound");
    for (int i = 0; i < r->npoints && i < IOHW_RESULT_POINTS; i++) {
        const iohw_point *p = &r->points[i];
        fprintf(out, "    %-3s ", data ? "dx" : p->index >= wc ? "db" : "dw");
        print_point(out, r, p);
    }
}

void iohw__console_points(FILE *out, const iohw_result *r)
{
    if (r->npoints <= 0)
        return;
    if (r->direction[0] != '\0') {
        print_backward_points(out, r);
        return;
    }
    fprintf(out, "  first mismatches (of %lld):\n", (long long)r->mismatches);
    fprintf(out, "    %5s %5s %5s %5s %5s %16s %16s %12s %12s\n", "n", "c",
            "d", "h", "w", "expected", "got", "diff", "bound");
    for (int i = 0; i < r->npoints && i < IOHW_RESULT_POINTS; i++) {
        fprintf(out, "    ");
        print_point(out, r, &r->points[i]);
    }
}
