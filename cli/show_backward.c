/*
 * cli/show_backward.c - `iohw show` for backward cases (specification
 * section 13): the direction line, the direction's datasets and values.
 * In memory (cases/case.h) dy is the input and y, y_f64, err_bound hold
 * the output: dx, or dw followed by db.
 */
#include <stdio.h>

#include "cli/show.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

void iohw__show_direction(const iohw_problem *p)
{
    if (!iohw_problem_is_backward(p))
        return;
    const char *what = p->direction == IOHW_DIR_BWD_D ? "dx from dy and w"
                       : p->has_bias ? "dw and db from x and dy"
                                     : "dw from x and dy";
    printf("  %-15s%s (%s)\n", "direction", iohw_direction_name(p), what);
}

/* One output of the three arrays at offset `at` elements, n elements. */
static void show_output(const iohw_case *c, const char *const names[3],
                        int64_t at, int64_t n, int digits)
{
    const iohw_dtype dt = c->p.dtype;
    const size_t es = iohw_dtype_size(dt);
    if (c->y != NULL)
        iohw__show_values(names[0], dt, (const char *)c->y + (size_t)at * es,
                          n, digits);
    if (c->y_f64 != NULL)
        iohw__show_values(names[1], IOHW_F64, c->y_f64 + at, n, 17);
    if (c->err_bound != NULL)
        iohw__show_values(names[2], IOHW_F64, c->err_bound + at, n, 6);
}

void iohw__show_backward(const iohw_case *c, int has_outputs)
{
    static const char *const DX[3] = {"dx", "dx_f64", "dx_err_bound"};
    static const char *const DW[3] = {"dw", "dw_f64", "dw_err_bound"};
    static const char *const DB[3] = {"db", "db_f64", "db_err_bound"};
    const iohw_problem *p = &c->p;
    const char *tname = iohw_dtype_name(p->dtype);
    const int digits = p->dtype == IOHW_F64 ? 17 : 9;
    const int bwd_w = p->direction == IOHW_DIR_BWD_W;
    iohw_layout_map mx, mw, my;
    if (iohw_layout_data_map(p, 0, &mx, NULL) != 0 ||
        iohw_layout_weight_map(p, &mw, NULL) != 0 ||
        iohw_layout_data_map(p, 1, &my, NULL) != 0)
        return;
    const iohw_layout_map *mo = bwd_w ? &mw : &mx;
    const char *const *names = bwd_w ? DW : DX;

    printf("  datasets\n");
    if (bwd_w)
        iohw__show_shape("x", &mx, tname);
    iohw__show_shape("dy", &my, tname);
    if (!bwd_w)
        iohw__show_shape("w", &mw, tname);
    if (has_outputs) {
        iohw__show_shape(names[0], mo, tname);
        iohw__show_shape(names[1], mo, "f64");
        iohw__show_shape(names[2], mo, "f64");
        if (bwd_w && p->has_bias)
            printf("    %-10s [%lld]  C  %s (and db_f64, db_err_bound: f64)\n",
                   "db", (long long)p->out_channels, tname);
    }

    printf("  values (first %d in memory order; statistics over all)\n",
           IOHW__SHOW_FIRST);
    if (bwd_w)
        iohw__show_values("x", p->dtype, c->x, mx.count, digits);
    iohw__show_values("dy", p->dtype, c->dy, my.count, digits);
    if (!bwd_w)
        iohw__show_values("w", p->dtype, c->w, mw.count, digits);
    if (!has_outputs)
        return;
    show_output(c, names, 0, mo->count, digits);
    if (bwd_w && p->has_bias)
        show_output(c, DB, mo->count, p->out_channels, digits);
}
