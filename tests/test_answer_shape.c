/*
 * tests/test_answer_shape.c - an exec answer whose y has the problem's rank
 * and type but another shape (cases/answer.h, specification section 3.5):
 * read as 2 with both shapes named, its values kept densely in y's head
 * when they fit (the rest of y untouched), never when they do not; a y of
 * another rank or type is refused as before.
 */
#include <criterion/criterion.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/answer.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"

/* 1x3x5x5: H = (3-1) + 2*(2-1) + 1 = 5. */
static iohw_problem problem(void)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse("ci=2 co=3 in=3x3 k=2x2 d=2", &d, &err), 0);
    cr_assert_eq(iohw_problem_finish(&d.p, &err), 0, "%s", err.msg);
    return d.p;
}

/* OUT.h5 with /y of these dims (type t), values 0, 1, 2, ... */
static void write_answer(const char *path, hid_t t, const hsize_t *dims, int nd)
{
    hsize_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= dims[i];
    double *v = malloc((n ? n : 1) * sizeof *v);
    cr_assert_not_null(v);
    for (hsize_t i = 0; i < n; i++)
        v[i] = (double)i;
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t s = H5Screate_simple(nd, dims, NULL);
    hid_t d = H5Dcreate2(f, "y", t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert(f >= 0 && s >= 0 && d >= 0);
    if (n > 0)
        cr_assert_geq(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                               H5P_DEFAULT, v), 0);
    H5Dclose(d);
    H5Sclose(s);
    H5Fclose(f);
    free(v);
}

/* Reads the answer into y (75 floats, pre-filled with -1). */
static int read_answer(const hsize_t *dims, int nd, hid_t t, float *y,
                       iohw_error *err)
{
    char path[512];
    char *why = NULL;
    iohw_problem p = problem();
    snprintf(path, sizeof path, "%s/answer-shape-%d.h5", IOHW_TEST_TMP,
             (int)getpid());
    write_answer(path, t, dims, nd);
    for (int i = 0; i < 75; i++)
        y[i] = -1.0f;
    int rc = iohw_answer_read(path, &p, "case", 1, y, &why, err);
    free(why);
    remove(path);
    return rc;
}

Test(answer_shape, a_smaller_y_is_kept_densely_and_both_shapes_named)
{
    static const hsize_t dims[4] = {1, 3, 4, 4};
    float y[75];
    iohw_error err = {{0}};
    int64_t got[8];
    cr_assert_eq(read_answer(dims, 4, H5T_IEEE_F32LE, y, &err), 2, "%s", err.msg);
    for (int i = 0; i < 48; i++)
        cr_expect_eq(y[i], (float)i, "y[%d] = %g", i, (double)y[i]);
    for (int i = 48; i < 75; i++)
        cr_expect_eq(y[i], -1.0f, "y[%d] written: %g", i, (double)y[i]);
    cr_expect(strstr(err.msg, "axis 2 (H) has 4 elements, the case's y 5: "
                              "returned shape 1x3x4x4 where the case's y is "
                              "1x3x5x5 (NCHW)") != NULL, "%s", err.msg);
    cr_assert_eq(iohw_answer_shape_parse(err.msg, got, 8), 4);
    cr_expect(got[0] == 1 && got[1] == 3 && got[2] == 4 && got[3] == 4);
}

Test(answer_shape, a_larger_or_empty_y_is_named_and_not_kept)
{
    static const hsize_t big[4] = {1, 3, 6, 6}, empty[4] = {1, 3, 0, 5};
    float y[75];
    iohw_error err = {{0}};
    int64_t got[8];
    cr_assert_eq(read_answer(big, 4, H5T_IEEE_F32LE, y, &err), 2, "%s", err.msg);
    for (int i = 0; i < 75; i++)
        cr_expect_eq(y[i], -1.0f, "y[%d] written", i);
    cr_expect(strstr(err.msg, "returned shape 1x3x6x6 where the case's y is "
                              "1x3x5x5 (NCHW); its values were not kept") != NULL,
              "%s", err.msg);
    cr_expect_eq(iohw_answer_shape_parse(err.msg, got, 8), -4);

    cr_assert_eq(read_answer(empty, 4, H5T_IEEE_F32LE, y, &err), 2, "%s",
                 err.msg);
    cr_expect(strstr(err.msg, "its values were not kept") != NULL, "%s", err.msg);
    cr_expect_eq(iohw_answer_shape_parse(err.msg, got, 8), 0,
                 "an empty axis is no shape to diagnose");
}

Test(answer_shape, another_rank_or_type_is_refused_as_before)
{
    static const hsize_t rank3[3] = {3, 4, 4}, dims[4] = {1, 3, 4, 4};
    float y[75];
    iohw_error err = {{0}};
    cr_expect_eq(read_answer(rank3, 3, H5T_IEEE_F32LE, y, &err), -1);
    cr_expect(strstr(err.msg, "has 3 dimensions") != NULL, "%s", err.msg);
    cr_expect_eq(read_answer(dims, 4, H5T_IEEE_F64LE, y, &err), -1);
    cr_expect(strstr(err.msg, IOHW_ANSWER_SHAPE_WORDS) == NULL, "%s", err.msg);
    for (int i = 0; i < 75; i++)
        cr_expect_eq(y[i], -1.0f);
}
