/*
 * tests/test_cases.c - case files: ids, freeing, writing and reading back
 * every dtype, rank and kind of layout, partial reads, sorted listing,
 * deterministic bytes, the storage chosen, and the writer's refusals.
 * User cases and h5py are in test_cases_user.c, hostile files in
 * test_cases_hostile.c, test_cases_datasets.c and test_cases_files.c.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "test_cases_fixture.h"

static const iohw_dtype DTYPES[] = {IOHW_F32, IOHW_F64, IOHW_F16, IOHW_BF16};

/* ---------------------------------------------------------------------- */
/* Ids and freeing. */

Test(case_ids, letters_digits_dot_underscore_and_dash_are_valid)
{
    char longest[IOHW_CASE_ID_MAX];
    memset(longest, 'a', sizeof longest - 1);
    longest[sizeof longest - 1] = '\0';
    const char *ok[] = {"ct2d.x.0001", "a", "A-b_c.9", "..a", "-", longest};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        cr_expect(iohw_case_id_valid(ok[i]), "'%s' should be valid", ok[i]);
}

Test(case_ids, empty_dots_slashes_spaces_and_long_ids_are_invalid)
{
    char too_long[IOHW_CASE_ID_MAX + 1];
    memset(too_long, 'a', sizeof too_long - 1);
    too_long[sizeof too_long - 1] = '\0';
    const char *bad[] = {"", ".", "..", "a b", "a/b", "/a", "a\tb",
                         "caf\xc3\xa9", "a:b", "a*", too_long};
    cr_expect(!iohw_case_id_valid(NULL));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect(!iohw_case_id_valid(bad[i]), "'%s' should be invalid",
                  bad[i]);
}

Test(case_free, frees_every_buffer_and_zeroes_the_case)
{
    iohw_case c, zero;
    build(&SPECS[2], &c);
    iohw_case_free(&c);
    memset(&zero, 0, sizeof zero);
    cr_assert_eq(memcmp(&c, &zero, sizeof c), 0);
    iohw_case_free(&c);   /* twice is harmless */
    iohw_case_free(NULL);
}

/* ---------------------------------------------------------------------- */
/* Round trips. */

Test(case_round_trip, every_dtype_rank_and_layout_reads_back_bit_for_bit)
{
    char path[512];
    tmp_path(path, sizeof path, "roundtrip");
    const int n = NSPECS * 4;
    iohw_case *cs = calloc((size_t)n, sizeof *cs);
    cr_assert_not_null(cs);
    for (int i = 0; i < n; i++)
        build_dt(&SPECS[i / 4], DTYPES[i % 4], &cs[i]);
    write_cases(path, cs, n);

    iohw_error e;
    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_str_eq(iohw_case_file_path(f), path);
    cr_assert_eq(iohw_case_file_count(f), n);
    for (int i = 0; i < n; i++) {
        iohw_case got;
        cr_assert_eq(iohw_case_file_read(f, cs[i].id, IOHW_READ_ALL, &got,
                                         &e), 0, "%s", e.msg);
        expect_same(&got, &cs[i], IOHW_READ_ALL);
        iohw_case_free(&got);
    }
    cr_assert_eq(iohw_case_file_close(f, &e), 0, "%s", e.msg);
    for (int i = 0; i < n; i++)
        iohw_case_free(&cs[i]);
    free(cs);
    remove(path);
}

Test(case_round_trip, partial_reads_load_only_what_was_asked)
{
    char path[512];
    tmp_path(path, sizeof path, "partial");
    iohw_case c;
    build_dt(&SPECS[2], IOHW_F16, &c);   /* has a bias */
    write_cases(path, &c, 1);

    iohw_error e;
    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    const unsigned whats[] = {IOHW_READ_ATTRS, IOHW_READ_INPUTS,
                              IOHW_READ_OUTPUTS, IOHW_READ_ALL};
    for (size_t i = 0; i < 4; i++) {
        iohw_case got;
        cr_assert_eq(iohw_case_file_read(f, c.id, whats[i], &got, &e), 0,
                     "%s", e.msg);
        expect_same(&got, &c, whats[i]);
        iohw_case_free(&got);
    }
    iohw_case_file_close(f, NULL);
    iohw_case_free(&c);
    remove(path);
}

Test(case_round_trip, cases_are_listed_in_sorted_order_whatever_the_write_order)
{
    char path[512];
    tmp_path(path, sizeof path, "sorted");
    const char *ids[] = {"zeta", "alpha.2", "Beta", "alpha.10", "alpha-1"};
    const char *sorted[] = {"Beta", "alpha-1", "alpha.10", "alpha.2", "zeta"};
    iohw_case cs[5];
    for (int i = 0; i < 5; i++) {
        spec s = SPECS[0];
        s.id = ids[i];
        build(&s, &cs[i]);
    }
    iohw_error e;
    iohw_case_file *f = iohw_case_file_create(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(iohw_case_file_write(f, &cs[i], &e), 0, "%s", e.msg);
        cr_assert_eq(iohw_case_file_count(f), i + 1);
    }
    for (int i = 0; i < 5; i++)   /* the writer's list is sorted too */
        cr_assert_str_eq(iohw_case_file_id(f, i), sorted[i]);
    cr_assert_eq(iohw_case_file_close(f, &e), 0, "%s", e.msg);

    f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_count(f), 5);
    for (int i = 0; i < 5; i++)
        cr_assert_str_eq(iohw_case_file_id(f, i), sorted[i]);
    cr_assert_null(iohw_case_file_id(f, 5));
    cr_assert_null(iohw_case_file_id(f, -1));
    iohw_case_file_close(f, NULL);
    for (int i = 0; i < 5; i++)
        iohw_case_free(&cs[i]);
    remove(path);
}

Test(case_round_trip, an_empty_case_file_has_no_cases)
{
    char path[512];
    tmp_path(path, sizeof path, "empty");
    write_cases(path, NULL, 0);
    iohw_error e;
    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_count(f), 0);
    cr_assert_null(iohw_case_file_id(f, 0));
    iohw_case_file_close(f, NULL);
    cr_assert_eq(iohw_case_file_count(NULL), 0);
    cr_assert_null(iohw_case_file_path(NULL));
    cr_assert_eq(iohw_case_file_close(NULL, NULL), 0);
    remove(path);
}

/* ---------------------------------------------------------------------- */
/* Determinism. */

Test(case_determinism, the_same_cases_give_byte_identical_files)
{
    char p1[512], p2[512];
    tmp_path(p1, sizeof p1, "det1");
    tmp_path(p2, sizeof p2, "det2");
    const int n = NSPECS * 4;
    iohw_case *cs = calloc((size_t)n, sizeof *cs);
    cr_assert_not_null(cs);
    for (int i = 0; i < n; i++)
        build_dt(&SPECS[i / 4], DTYPES[i % 4], &cs[i]);
    write_cases(p1, cs, n);
    write_cases(p2, cs, n);
    size_t n1, n2;
    unsigned char *b1 = slurp(p1, &n1), *b2 = slurp(p2, &n2);
    cr_assert_eq(n1, n2);
    size_t at = 0;
    while (at < n1 && b1[at] == b2[at])
        at++;
    cr_assert_eq(at, n1, "files differ first at byte %zu of %zu", at, n1);

    /* Writing over an existing file gives the same bytes again. */
    write_cases(p2, cs, n);
    free(b2);
    b2 = slurp(p2, &n2);
    cr_assert(n1 == n2 && memcmp(b1, b2, n1) == 0);
    free(b1);
    free(b2);
    for (int i = 0; i < n; i++)
        iohw_case_free(&cs[i]);
    free(cs);
    remove(p1);
    remove(p2);
}

/* Storage layout and filter count of a dataset. */
static void storage_of(hid_t fid, const char *name, H5D_layout_t *layout,
                       int *nfilters, hsize_t *chunk)
{
    hid_t d = H5Dopen2(fid, name, H5P_DEFAULT);
    cr_assert_geq(d, 0, "%s", name);
    hid_t dcpl = H5Dget_create_plist(d);
    *layout = H5Pget_layout(dcpl);
    *nfilters = H5Pget_nfilters(dcpl);
    memset(chunk, 0, 8 * sizeof *chunk);
    if (*layout == H5D_CHUNKED)
        H5Pget_chunk(dcpl, 8, chunk);
    H5Pclose(dcpl);
    H5Dclose(d);
}

Test(case_storage, large_datasets_that_deflate_are_chunked_others_contiguous_small_ones_compact)
{
    char path[512];
    tmp_path(path, sizeof path, "storage");
    iohw_case c;
    build_dt(&SPECS[5], IOHW_F64, &c);   /* x: [1,4,9,32,32] f64, 288 KiB */
    double *x = c.x;                     /* small integers deflate well */
    for (int64_t i = 0; i < iohw_problem_x_count(&c.p); i++)
        x[i] = (double)(i % 7);
    write_cases(path, &c, 1);
    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(fid, 0);
    H5D_layout_t layout;
    int nf;
    hsize_t ch[8];
    storage_of(fid, "/cases/r3.big.f64/x", &layout, &nf, ch);
    cr_assert_eq(layout, H5D_CHUNKED);
    cr_assert_eq(nf, 2, "shuffle and deflate");
    /* One channel is 9*32*32*8 bytes = 72 KiB; three fit in a 256 KiB
     * chunk, four (288 KiB) do not: chunks are [1,3,9,32,32]. */
    cr_assert(ch[0] == 1 && ch[1] == 3 && ch[2] == 9 && ch[3] == 32 &&
              ch[4] == 32, "chunk [%llu,%llu,%llu,%llu,%llu]",
              (unsigned long long)ch[0], (unsigned long long)ch[1],
              (unsigned long long)ch[2], (unsigned long long)ch[3],
              (unsigned long long)ch[4]);
    storage_of(fid, "/cases/r3.big.f64/y_f64", &layout, &nf, ch);
    cr_assert_eq(layout, H5D_CONTIGUOUS, "random bits do not deflate");
    cr_assert_eq(nf, 0);
    storage_of(fid, "/cases/r3.big.f64/w", &layout, &nf, ch);
    cr_assert_eq(layout, H5D_COMPACT, "w holds 4 doubles");
    H5Fclose(fid);
    iohw_case_free(&c);
    remove(path);
}

Test(case_storage, no_object_records_a_time)
{
#if H5_VERSION_GE(1, 12, 0)
    cr_skip_test("uses the HDF5 1.10 H5Oget_info_by_name");
#else
    char path[512];
    tmp_path(path, sizeof path, "times");
    iohw_case c;
    build(&SPECS[2], &c);
    write_cases(path, &c, 1);
    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(fid, 0);
    const char *objs[] = {"/", "/cases", "/cases/r2.nhwc", "/cases/r2.nhwc/x",
                          "/cases/r2.nhwc/y_f64"};
    for (int i = 0; i < 5; i++) {
        H5O_info_t info;
        cr_assert_geq(H5Oget_info_by_name(fid, objs[i], &info, H5P_DEFAULT), 0);
        cr_expect(info.atime == 0 && info.mtime == 0 && info.ctime == 0 &&
                  info.btime == 0, "%s records a time", objs[i]);
    }
    H5Fclose(fid);
    iohw_case_free(&c);
    remove(path);
#endif
}

/* ---------------------------------------------------------------------- */
/* The writer's refusals. */

static void expect_write_fails(iohw_case_file *f, const iohw_case *c,
                               const char *needle)
{
    iohw_error e;
    memset(&e, 0, sizeof e);
    cr_assert_eq(iohw_case_file_write(f, c, &e), -1, "should refuse (%s)",
                 needle);
    cr_assert(strstr(e.msg, needle) != NULL, "'%s' lacks '%s'", e.msg,
              needle);
    cr_assert(strstr(e.msg, iohw_case_file_path(f)) != NULL, "'%s'", e.msg);
}

Test(case_write, refuses_bad_cases_and_keeps_the_file_readable)
{
    char path[512];
    tmp_path(path, sizeof path, "refuse");
    iohw_error e;
    iohw_case c;
    build(&SPECS[2], &c);
    iohw_case_file *f = iohw_case_file_create(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_write(f, &c, &e), 0, "%s", e.msg);

    expect_write_fails(f, &c, "already in the file");
    snprintf(c.id, sizeof c.id, "bad id");
    expect_write_fails(f, &c, "'bad id' is not valid");
    snprintf(c.id, sizeof c.id, "second");

    c.terms_max++;
    expect_write_fails(f, &c, "terms_max");
    c.terms_max--;
    c.err_bound[3] = -1.0;
    expect_write_fails(f, &c, "negative");
    c.err_bound[3] = 1.0;
    c.p.out_size[0]++;
    expect_write_fails(f, &c, "out_size[0]");
    c.p.out_size[0]--;
    snprintf(c.fill, sizeof c.fill, "no fill");
    expect_write_fails(f, &c, "fill");
    snprintf(c.fill, sizeof c.fill, "normal");
    c.tags[0] = '\n';
    expect_write_fails(f, &c, "control character");
    c.tags[0] = 'g';
    void *bias = c.bias;
    c.bias = NULL;
    expect_write_fails(f, &c, "bias is NULL");
    c.bias = bias;
    double *y64 = c.y_f64;
    c.y_f64 = NULL;
    expect_write_fails(f, &c, "y_f64 is NULL");
    c.y_f64 = y64;
    cr_assert_eq(iohw_case_file_write(f, NULL, &e), -1);
    cr_assert_eq(iohw_case_file_write(NULL, &c, &e), -1);
    cr_assert_eq(iohw_case_file_close(f, &e), 0, "%s", e.msg);

    /* Only the first case is in the file, and it reads back. */
    f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_count(f), 1);
    iohw_case got;
    cr_assert_eq(iohw_case_file_read(f, SPECS[2].id, IOHW_READ_ALL, &got,
                                     &e), 0, "%s", e.msg);
    iohw_case_free(&got);

    /* A file opened for reading cannot be written. */
    expect_write_fails(f, &c, "opened for reading");
    iohw_case_file_close(f, NULL);
    iohw_case_free(&c);
    remove(path);
}

Test(case_write, null_tags_and_descriptor_are_written_as_empty_strings)
{
    char path[512];
    tmp_path(path, sizeof path, "nulltags");
    iohw_case c, got;
    iohw_error e;
    build(&SPECS[0], &c);
    free(c.tags);
    free(c.descriptor);
    c.tags = c.descriptor = NULL;
    write_cases(path, &c, 1);
    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_read(f, c.id, IOHW_READ_ATTRS, &got, &e), 0,
                 "%s", e.msg);
    cr_assert_str_eq(got.tags, "");
    cr_assert_str_eq(got.descriptor, "");
    iohw_case_free(&got);
    iohw_case_file_close(f, NULL);
    iohw_case_free(&c);
    remove(path);
}

Test(case_write, the_longest_tags_and_descriptor_round_trip)
{
    char path[512];
    tmp_path(path, sizeof path, "longtags");
    iohw_case c, got;
    iohw_error e;
    build(&SPECS[0], &c);
    free(c.tags);
    c.tags = malloc(65536);
    cr_assert_not_null(c.tags);
    for (int i = 0; i < 65535; i++)
        c.tags[i] = (char)('a' + i % 26);
    c.tags[65535] = '\0';
    write_cases(path, &c, 1);
    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_read(f, c.id, IOHW_READ_ATTRS, &got, &e), 0,
                 "%s", e.msg);
    cr_assert_str_eq(got.tags, c.tags);
    iohw_case_free(&got);
    iohw_case_file_close(f, NULL);

    /* One more character is refused. */
    c.tags = realloc(c.tags, 65537);
    c.tags[65535] = 'z';
    c.tags[65536] = '\0';
    f = iohw_case_file_create(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_write(f, &c, &e), -1);
    cr_assert(strstr(e.msg, "tags is longer than 65535") != NULL, "%s", e.msg);
    iohw_case_file_close(f, NULL);
    iohw_case_free(&c);
    remove(path);
}

Test(case_write, an_unwritable_path_is_an_error_naming_it)
{
    iohw_error e;
    const char *path = IOHW_TEST_TMP "/no-such-dir/x.h5";
    cr_assert_null(iohw_case_file_create(path, &e));
    cr_assert(strstr(e.msg, path) != NULL, "'%s'", e.msg);
    cr_assert_null(iohw_case_file_create(NULL, &e));
    cr_assert_null(iohw_case_file_create("", &e));
}
