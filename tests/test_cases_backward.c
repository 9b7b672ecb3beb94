/*
 * tests/test_cases_backward.c - backward cases in case files (specification
 * sections 4 and 13): every problem of test_cases_fixture.h (ranks 1 to 3,
 * with and without bias, non-default layouts) as a BWD_D and a BWD_W case
 * reads back bit for bit; the datasets have the shapes worked out by hand;
 * the writer is deterministic and refuses what the reader would refuse.
 */
#include <criterion/criterion.h>

#include <hdf5.h>

#include "test_cases_bwd_fixture.h"

static void expect_same_bwd(const iohw_case *got, const iohw_case *want)
{
    const iohw_problem *p = &want->p;
    const char *id = want->id;
    const size_t es = iohw_dtype_size(p->dtype);
    const size_t n = (size_t)iohw_problem_out_count(p);
    cr_assert_eq(memcmp(&got->p, p, sizeof *p), 0, "%s: problem differs", id);
    cr_assert_eq(got->p.direction, p->direction, "%s", id);
    cr_assert_eq(got->terms_max, want->terms_max, "%s", id);
    expect_bytes("dy", id, got->dy, want->dy,
                 es * (size_t)iohw_problem_y_count(p));
    if (p->direction == IOHW_DIR_BWD_D) {
        cr_assert_null(got->x, "%s", id);
        expect_bytes("w", id, got->w, want->w,
                     es * (size_t)iohw_problem_w_count(p));
    } else {
        cr_assert_null(got->w, "%s", id);
        expect_bytes("x", id, got->x, want->x,
                     es * (size_t)iohw_problem_x_count(p));
    }
    cr_assert_null(got->bias, "%s", id);
    expect_bytes("y", id, got->y, want->y, es * n);
    expect_bytes("y_f64", id, got->y_f64, want->y_f64, 8 * n);
    expect_bytes("err_bound", id, got->err_bound, want->err_bound, 8 * n);
}

Test(cases_backward, every_rank_layout_and_bias_reads_back_bit_for_bit)
{
    char path[512];
    iohw_case cs[2 * NSPECS];
    iohw_error e;
    tmp_path(path, sizeof path, "bwd-roundtrip");
    for (int i = 0; i < NSPECS; i++) {
        build_bwd(&SPECS[i], IOHW_DIR_BWD_D, &cs[2 * i]);
        build_bwd(&SPECS[i], IOHW_DIR_BWD_W, &cs[2 * i + 1]);
    }
    write_cases(path, cs, 2 * NSPECS);
    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_count(f), 2 * NSPECS);
    for (int i = 0; i < 2 * NSPECS; i++) {
        iohw_case got;
        cr_assert_eq(iohw_case_file_read(f, cs[i].id, IOHW_READ_ALL, &got, &e),
                     0, "%s", e.msg);
        expect_same_bwd(&got, &cs[i]);
        iohw_case_free(&got);
        /* Attributes only: nothing loaded, the direction read. */
        cr_assert_eq(iohw_case_file_read(f, cs[i].id, IOHW_READ_ATTRS, &got,
                                         &e), 0, "%s", e.msg);
        cr_assert_eq(got.p.direction, cs[i].p.direction);
        cr_assert(got.dy == NULL && got.x == NULL && got.w == NULL &&
                  got.y == NULL && got.err_bound == NULL, "%s", cs[i].id);
        iohw_case_free(&got);
    }
    iohw_case_file_close(f, NULL);
    for (int i = 0; i < 2 * NSPECS; i++)
        iohw_case_free(&cs[i]);
    remove(path);
}

/* Dataset extents, read with the HDF5 C API. */
static void expect_dims(hid_t g, const char *name, int ndim,
                        const hsize_t *want)
{
    hsize_t dims[8];
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    cr_assert_geq(d, 0, "dataset %s", name);
    hid_t s = H5Dget_space(d);
    cr_assert_eq(H5Sget_simple_extent_dims(s, dims, NULL), ndim, "%s", name);
    for (int a = 0; a < ndim; a++)
        cr_assert_eq(dims[a], want[a], "%s axis %d", name, a);
    H5Sclose(s);
    H5Dclose(d);
}

static int has_link(hid_t g, const char *name)
{
    return H5Lexists(g, name, H5P_DEFAULT) > 0;
}

/* r1.nwc: N = 2, C_in = 4, C_out = 6, G = 2, L = 7, K = 2, dilation 2,
 * pad (0, 1): O = (7 - 1) + 2 * (2 - 1) + 1 - 1 = 8.  NWC and GOWI
 * (G = 2, Mg = 3, Cg = 2): dy [2,8,6], dx [2,7,4], dw [2,3,2,2], db [6];
 * db is the last 6 elements of the case's y. */
Test(cases_backward, datasets_have_the_shapes_worked_by_hand)
{
    char path[512];
    iohw_case c[2];
    tmp_path(path, sizeof path, "bwd-shapes");
    build_bwd(&SPECS[1], IOHW_DIR_BWD_D, &c[0]);
    build_bwd(&SPECS[1], IOHW_DIR_BWD_W, &c[1]);
    cr_assert_eq(c[1].p.has_bias, 1);
    write_cases(path, c, 2);
    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(fid, 0);
    const hsize_t dy[3] = {2, 8, 6}, dx[3] = {2, 7, 4}, dw[4] = {2, 3, 2, 2},
                  db[1] = {6};

    hid_t g = H5Gopen2(fid, "/cases/r1.nwc.bwd_d", H5P_DEFAULT);
    int32_t dir = 0;
    hid_t a = H5Aopen(g, "direction", H5P_DEFAULT);
    cr_assert_geq(H5Aread(a, H5T_NATIVE_INT32, &dir), 0);
    H5Aclose(a);
    cr_assert_eq(dir, 1);
    expect_dims(g, "dy", 3, dy);
    expect_dims(g, "w", 4, dw);
    expect_dims(g, "dx", 3, dx);
    expect_dims(g, "dx_f64", 3, dx);
    expect_dims(g, "dx_err_bound", 3, dx);
    cr_assert(!has_link(g, "x") && !has_link(g, "y") &&
              !has_link(g, "bias") && !has_link(g, "err_bound"));
    H5Gclose(g);

    g = H5Gopen2(fid, "/cases/r1.nwc.bwd_w", H5P_DEFAULT);
    a = H5Aopen(g, "direction", H5P_DEFAULT);
    cr_assert_geq(H5Aread(a, H5T_NATIVE_INT32, &dir), 0);
    H5Aclose(a);
    cr_assert_eq(dir, 2);
    expect_dims(g, "x", 3, dx);
    expect_dims(g, "dy", 3, dy);
    expect_dims(g, "dw", 4, dw);
    expect_dims(g, "dw_err_bound", 4, dw);
    expect_dims(g, "db", 1, db);
    expect_dims(g, "db_f64", 1, db);
    expect_dims(g, "db_err_bound", 1, db);
    cr_assert(!has_link(g, "w") && !has_link(g, "y") && !has_link(g, "bias"));
    float got[6];
    hid_t d = H5Dopen2(g, "db", H5P_DEFAULT);
    cr_assert_geq(H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                          got), 0);
    H5Dclose(d);
    cr_assert_eq(memcmp(got, (const float *)c[1].y + 24, sizeof got), 0,
                 "db is not the tail of y");
    H5Gclose(g);
    H5Fclose(fid);
    iohw_case_free(&c[0]);
    iohw_case_free(&c[1]);
    remove(path);
}

/* The same cases written twice give the same bytes; a forward case has no
 * attribute 'direction' and reads back with dy NULL. */
Test(cases_backward, writing_is_deterministic_and_forward_has_no_direction)
{
    char p1[512], p2[512];
    iohw_case c[3];
    iohw_error e;
    tmp_path(p1, sizeof p1, "bwd-det1");
    tmp_path(p2, sizeof p2, "bwd-det2");
    build_bwd(&SPECS[2], IOHW_DIR_BWD_D, &c[0]);
    build_bwd(&SPECS[2], IOHW_DIR_BWD_W, &c[1]);
    build(&SPECS[2], &c[2]);
    write_cases(p1, c, 3);
    write_cases(p2, c, 3);
    size_t n1, n2;
    unsigned char *b1 = slurp(p1, &n1), *b2 = slurp(p2, &n2);
    cr_assert_eq(n1, n2);
    cr_assert_eq(memcmp(b1, b2, n1), 0, "the two files differ");
    free(b1);
    free(b2);

    hid_t fid = H5Fopen(p1, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t g = H5Gopen2(fid, "/cases/r2.nhwc", H5P_DEFAULT);
    cr_assert_eq(H5Aexists(g, "direction"), 0);
    cr_assert(!has_link(g, "dy"));
    H5Gclose(g);
    H5Fclose(fid);
    iohw_case_file *f = iohw_case_file_open(p1, &e);
    iohw_case got;
    cr_assert_eq(iohw_case_file_read(f, "r2.nhwc", IOHW_READ_ALL, &got, &e),
                 0, "%s", e.msg);
    cr_assert_eq(got.p.direction, 0);
    cr_assert_null(got.dy);
    expect_same(&got, &c[2], IOHW_READ_ALL);
    iohw_case_free(&got);
    iohw_case_file_close(f, NULL);
    for (int i = 0; i < 3; i++)
        iohw_case_free(&c[i]);
    remove(p1);
    remove(p2);
}

/* What the writer refuses, by name, before writing anything. */
static void expect_refused(iohw_case *c, const char *needle)
{
    char path[512];
    iohw_error e = {{0}};
    tmp_path(path, sizeof path, "bwd-refused");
    iohw_case_file *f = iohw_case_file_create(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_write(f, c, &e), -1, "%s: written", needle);
    cr_assert(strstr(e.msg, needle) != NULL, "'%s' lacks '%s'", e.msg, needle);
    cr_assert(strstr(e.msg, c->id) != NULL, "'%s' lacks the id", e.msg);
    iohw_case_file_abandon(f);
    iohw_case_free(c);
}

Test(cases_backward, the_writer_refuses_a_case_the_reader_would_refuse)
{
    iohw_case c;
    build_bwd(&SPECS[1], IOHW_DIR_BWD_W, &c);
    free(c.dy);
    c.dy = NULL;
    expect_refused(&c, "dy is NULL (a BWD_W case's inputs are x and dy)");

    build_bwd(&SPECS[1], IOHW_DIR_BWD_W, &c);
    c.bias = pattern(4, 6, 3);
    expect_refused(&c, "bias is set in a BWD_W case");

    build_bwd(&SPECS[1], IOHW_DIR_BWD_D, &c);
    c.x = pattern(4, 56, 3);
    expect_refused(&c, "x is set in a BWD_D case (its inputs are dy and w");

    build_bwd(&SPECS[1], IOHW_DIR_BWD_W, &c);
    c.err_bound[iohw_problem_out_count(&c.p) - 1] = -1.0;
    expect_refused(&c, "db_err_bound holds the negative value -1 at element 5");

    build_bwd(&SPECS[1], IOHW_DIR_BWD_D, &c);
    c.err_bound[3] = -4.0;
    expect_refused(&c, "dx_err_bound holds the negative value -4 at element 3");

    build_bwd(&SPECS[1], IOHW_DIR_BWD_D, &c);
    c.p.has_bias = 1;
    expect_refused(&c, "direction BWD_D with has_bias = 1");

    build_bwd(&SPECS[1], IOHW_DIR_BWD_W, &c);
    c.p.direction = 7;
    expect_refused(&c, "direction = 7");

    build_bwd(&SPECS[1], IOHW_DIR_BWD_W, &c);
    free(c.y_f64);
    c.y_f64 = NULL;
    expect_refused(&c, "y_f64 is NULL (the case's dw_f64");

    build(&SPECS[1], &c);
    c.dy = pattern(4, 96, 3);
    expect_refused(&c, "dy is set in a forward case");
}

/* A user case (IOHW_READ_USER) without outputs reads its inputs; with dw
 * but no db it is refused. */
Test(cases_backward, a_user_case_without_outputs_reads_its_inputs)
{
    char path[512];
    iohw_case c, got;
    iohw_error e;
    tmp_path(path, sizeof path, "bwd-user");
    build_bwd(&SPECS[1], IOHW_DIR_BWD_W, &c);
    write_cases(path, &c, 1);
    hid_t fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t g = H5Gopen2(fid, "/cases/r1.nwc.bwd_w", H5P_DEFAULT);
    static const char *outs[] = {"dw_f64", "dw_err_bound", "db", "db_f64",
                                 "db_err_bound"};
    for (int i = 0; i < 5; i++)
        cr_assert_geq(H5Ldelete(g, outs[i], H5P_DEFAULT), 0);
    H5Gclose(g);
    H5Fclose(fid);

    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_read(f, c.id, IOHW_READ_USER |
                                     IOHW_READ_INPUTS, &got, &e), 0, "%s",
                 e.msg);
    expect_bytes("dy", c.id, got.dy, c.dy, 4 * 96);
    expect_bytes("x", c.id, got.x, c.x, 4 * 56);
    cr_assert_null(got.y);
    iohw_case_free(&got);
    cr_assert_eq(iohw_case_file_read(f, c.id, IOHW_READ_USER | IOHW_READ_ALL,
                                     &got, &e), -1);
    cr_assert(strstr(e.msg, "dataset 'dw' is present without 'db'") != NULL,
              "%s", e.msg);
    iohw_case_file_close(f, NULL);
    iohw_case_free(&c);
    remove(path);
}
