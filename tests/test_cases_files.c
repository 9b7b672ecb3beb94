/*
 * tests/test_cases_files.c - case files broken as a whole: the schema
 * attribute, /cases, the links in /cases, the reader's arguments, and files
 * that are not case files at all (missing, a directory, a FIFO, empty,
 * random bytes, random bytes behind an HDF5 signature, truncated copies,
 * copies with a flipped byte).  Every one is an error naming the file, or
 * for flipped bytes possibly a good read - never a crash or a hang.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "cases/case.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "oracle/problem.h"

#define ID "c.1"

static void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/files-%ld-%s.h5", IOHW_TEST_TMP, (long)getpid(),
             name);
}

/* One small case (rank 1, in 3, kernel 2: out 4) under id, plus a larger
 * second one ("c.2", x of 16 KiB, so a file has chunked data too). */
static void write_base(const char *path)
{
    iohw_error e;
    iohw_case_file *f = iohw_case_file_create(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    for (int k = 0; k < 2; k++) {
        iohw_case c;
        memset(&c, 0, sizeof c);
        snprintf(c.id, sizeof c.id, "c.%d", k + 1);
        iohw_problem_init(&c.p);
        c.p.rank = 1;
        c.p.in_channels = k ? 16 : 1;
        c.p.out_channels = 1;
        c.p.in_size[0] = k ? 256 : 3;
        c.p.kernel[0] = 2;
        cr_assert_eq(iohw_problem_finish(&c.p, &e), 0, "%s", e.msg);
        snprintf(c.fill, sizeof c.fill, "uniform");
        c.tags = strdup("1d");
        c.descriptor = strdup("ci=1 co=1 in=3 k=2");
        c.terms_max = iohw_oracle_terms_max(&c.p);
        const int64_t nx = iohw_problem_x_count(&c.p);
        const int64_t nw = iohw_problem_w_count(&c.p);
        const int64_t ny = iohw_problem_y_count(&c.p);
        float *x = calloc((size_t)nx, 4), *w = calloc((size_t)nw, 4);
        float *y = calloc((size_t)ny, 4);
        double *y64 = calloc((size_t)ny, 8), *eb = calloc((size_t)ny, 8);
        for (int64_t i = 0; i < nx; i++)
            x[i] = (float)i;
        c.x = x;
        c.w = w;
        c.y = y;
        c.y_f64 = y64;
        c.err_bound = eb;
        cr_assert_eq(iohw_case_file_write(f, &c, &e), 0, "%s", e.msg);
        iohw_case_free(&c);
    }
    cr_assert_eq(iohw_case_file_close(f, &e), 0, "%s", e.msg);
}

static void expect_in(const char *msg, const char *needle, const char *label)
{
    cr_assert(strstr(msg, needle) != NULL, "%s: '%s' lacks '%s'", label, msg,
              needle);
}

static void expect_open_error(const char *path, const char *needle)
{
    iohw_error e;
    memset(&e, 0, sizeof e);
    iohw_case_file *f = iohw_case_file_open(path, &e);
    if (f != NULL)
        iohw_case_file_close(f, NULL);
    cr_assert_null(f, "%s: should not open", needle);
    expect_in(e.msg, path, needle);
    expect_in(e.msg, needle, needle);
}

/* Writes the base file, edits its root with the HDF5 C API. */
typedef void (*edit)(hid_t fid);

static void edited(const char *path, edit fn)
{
    write_base(path);
    hid_t fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert_geq(fid, 0);
    fn(fid);
    cr_assert_geq(H5Fclose(fid), 0);
}

static void set_schema(hid_t fid, hid_t ft, hid_t mt, const void *v)
{
    H5Adelete(fid, "iohw_schema");
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(fid, "iohw_schema", ft, s, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(H5Awrite(a, mt, v), 0);
    H5Aclose(a);
    H5Sclose(s);
}

/* ---------------------------------------------------------------------- */
/* The schema and /cases. */

static void no_schema(hid_t fid) { cr_assert_geq(H5Adelete(fid, "iohw_schema"), 0); }
static void schema_2(hid_t fid)
{
    const int64_t v = 2;
    set_schema(fid, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}
static void schema_string(hid_t fid)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 1);
    set_schema(fid, t, t, "1");
    H5Tclose(t);
}
static void no_cases(hid_t fid) { cr_assert_geq(H5Ldelete(fid, "cases", H5P_DEFAULT), 0); }
static void cases_dataset(hid_t fid)
{
    H5Ldelete(fid, "cases", H5P_DEFAULT);
    hid_t s = H5Screate(H5S_SCALAR);
    H5Dclose(H5Dcreate2(fid, "cases", H5T_STD_I32LE, s, H5P_DEFAULT,
                        H5P_DEFAULT, H5P_DEFAULT));
    H5Sclose(s);
}
static void bad_id(hid_t fid)
{
    H5Gclose(H5Gcreate2(fid, "/cases/bad id", H5P_DEFAULT, H5P_DEFAULT,
                        H5P_DEFAULT));
}
static void soft_case(hid_t fid)
{
    cr_assert_geq(H5Lcreate_soft("/cases/" ID, fid, "/cases/alias",
                                 H5P_DEFAULT, H5P_DEFAULT), 0);
}
static void external_case(hid_t fid)
{
    cr_assert_geq(H5Lcreate_external("/etc/passwd", "/x", fid,
                                     "/cases/outside", H5P_DEFAULT,
                                     H5P_DEFAULT), 0);
}

Test(files_schema, a_missing_wrong_or_mistyped_schema_is_an_open_error)
{
    const struct {
        const char *label;
        edit fn;
        const char *needle;
    } t[] = {
        {"no-schema", no_schema, "no root attribute 'iohw_schema'"},
        {"schema-2", schema_2, "schema 2 is not supported (this iohw reads "
         "schema 1)"},
        {"schema-string", schema_string,
         "attribute 'iohw_schema' has type string"},
        {"no-cases", no_cases, "group 'cases' is missing"},
        {"cases-dataset", cases_dataset, "'cases' is a dataset, not a group"},
        {"bad-id", bad_id, "'bad id' is not a valid case id"},
        {"soft-case", soft_case, "/cases/alias is a soft or external link"},
        {"external-case", external_case,
         "/cases/outside is a soft or external link"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char path[512];
        tmp_path(path, sizeof path, t[i].label);
        edited(path, t[i].fn);
        expect_open_error(path, t[i].needle);
        remove(path);
    }
}

static void case_dataset(hid_t fid)
{
    hid_t s = H5Screate(H5S_SCALAR);
    H5Dclose(H5Dcreate2(fid, "/cases/c.3", H5T_STD_I32LE, s, H5P_DEFAULT,
                        H5P_DEFAULT, H5P_DEFAULT));
    H5Sclose(s);
}

Test(files_schema, a_case_that_is_not_a_group_fails_alone)
{
    char path[512];
    iohw_error e;
    iohw_case c;
    tmp_path(path, sizeof path, "case-dataset");
    edited(path, case_dataset);
    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_count(f), 3);
    cr_assert_eq(iohw_case_file_read(f, "c.3", IOHW_READ_ALL, &c, &e), -1);
    expect_in(e.msg, path, "c.3");
    expect_in(e.msg, "case 'c.3': 'c.3' is a dataset, not a group", "c.3");
    /* The other cases still read. */
    cr_assert_eq(iohw_case_file_read(f, ID, IOHW_READ_ALL, &c, &e), 0, "%s",
                 e.msg);
    iohw_case_free(&c);
    iohw_case_file_close(f, NULL);
    remove(path);
}

Test(files_schema, bad_read_arguments_are_errors)
{
    char path[512];
    iohw_error e;
    iohw_case c;
    tmp_path(path, sizeof path, "args");
    write_base(path);
    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_read(f, "c.9", IOHW_READ_ALL, &c, &e), -1);
    expect_in(e.msg, "case 'c.9': no such case in the file", "unknown");
    cr_assert_eq(iohw_case_file_read(f, "../c.1", IOHW_READ_ALL, &c, &e), -1);
    expect_in(e.msg, "'../c.1' is not a valid case id", "path");
    cr_assert_eq(iohw_case_file_read(f, ID, 8, &c, &e), -1);
    expect_in(e.msg, "what = 8", "what");
    cr_assert_eq(iohw_case_file_read(f, NULL, IOHW_READ_ALL, &c, &e), -1);
    cr_assert_eq(iohw_case_file_read(NULL, ID, IOHW_READ_ALL, &c, &e), -1);
    cr_assert_eq(iohw_case_file_read(f, ID, IOHW_READ_ALL, NULL, &e), -1);
    cr_assert_eq(iohw_case_file_read(f, ID, IOHW_READ_ALL, &c, NULL), 0);
    iohw_case_free(&c);
    iohw_case_file_close(f, NULL);
    remove(path);
}

/* ---------------------------------------------------------------------- */
/* Not case files. */

Test(files_garbage, missing_paths_directories_fifos_and_empty_files_are_errors)
{
    char path[512];
    iohw_error e;
    tmp_path(path, sizeof path, "missing");
    expect_open_error(path, "No such file or directory");
    expect_open_error(IOHW_TEST_TMP, "not a regular file");
    tmp_path(path, sizeof path, "fifo");
    cr_assert_eq(mkfifo(path, 0600), 0);
    expect_open_error(path, "not a regular file");   /* and no hang */
    remove(path);
    tmp_path(path, sizeof path, "empty");
    fclose(fopen(path, "wb"));
    expect_open_error(path, "empty file");
    remove(path);
    cr_assert_null(iohw_case_file_open(NULL, &e));
    cr_assert_null(iohw_case_file_open("", &e));
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static void write_bytes(const char *path, const unsigned char *b, size_t n)
{
    FILE *fp = fopen(path, "wb");
    cr_assert_not_null(fp);
    cr_assert_eq(fwrite(b, 1, n, fp), n);
    fclose(fp);
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp);
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len);
    cr_assert_eq(fread(b, 1, (size_t)len, fp), (size_t)len);
    fclose(fp);
    *n = (size_t)len;
    return b;
}

Test(files_garbage, random_bytes_are_not_an_hdf5_file)
{
    const size_t sizes[] = {1, 7, 512, 4096, 100000};
    uint64_t s = 12345;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char path[512];
        unsigned char *b = malloc(sizes[i]);
        for (size_t j = 0; j < sizes[i]; j++)
            b[j] = (unsigned char)lcg(&s);
        tmp_path(path, sizeof path, "random");
        write_bytes(path, b, sizes[i]);
        expect_open_error(path, "not an HDF5 file");
        free(b);
        remove(path);
    }
}

/* Opens and reads every case; returns the number of failures (0 when the
 * file opened and every case read). */
static int read_everything(const char *path)
{
    iohw_error e;
    memset(&e, 0, sizeof e);
    iohw_case_file *f = iohw_case_file_open(path, &e);
    if (f == NULL) {
        cr_assert(strstr(e.msg, path) != NULL, "'%s'", e.msg);
        return 1;
    }
    int bad = 0;
    for (int i = 0; i < iohw_case_file_count(f); i++) {
        iohw_case c;
        if (iohw_case_file_read(f, iohw_case_file_id(f, i), IOHW_READ_ALL,
                                &c, &e) != 0) {
            cr_assert(strstr(e.msg, path) != NULL, "'%s'", e.msg);
            bad++;
        }
        iohw_case_free(&c);
    }
    iohw_case_file_close(f, NULL);
    return bad;
}

Test(files_garbage, a_signature_followed_by_random_bytes_is_an_error)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n',
                                         0x1a, '\n'};
    uint64_t s = 777;
    for (int k = 0; k < 20; k++) {
        char path[512];
        size_t n = 64 + (size_t)(lcg(&s) % 4096);
        unsigned char *b = malloc(n);
        memcpy(b, sig, 8);
        for (size_t j = 8; j < n; j++)
            b[j] = (unsigned char)lcg(&s);
        /* Some with plausible superblock versions 0..3. */
        b[8] = (unsigned char)(k % 4);
        tmp_path(path, sizeof path, "sig");
        write_bytes(path, b, n);
        cr_assert_gt(read_everything(path), 0, "random bytes read as cases");
        free(b);
        remove(path);
    }
}

Test(files_garbage, every_truncated_copy_is_an_error)
{
    char path[512], cut[512];
    size_t n;
    tmp_path(path, sizeof path, "whole");
    tmp_path(cut, sizeof cut, "cut");
    write_base(path);
    cr_assert_eq(read_everything(path), 0, "the whole file reads");
    unsigned char *b = slurp(path, &n);
    const size_t at[] = {1, 8, 9, 48, 96, 200, 512, 800, 1024, 2048, 4096,
                         n / 3, n / 2, n - 100, n - 1};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        if (at[i] >= n)
            continue;
        write_bytes(cut, b, at[i]);
        cr_assert_gt(read_everything(cut), 0, "a copy cut at %zu of %zu "
                     "bytes read completely", at[i], n);
        if (at[i] >= 200)   /* past the superblock: HDF5 says why */
            expect_open_error(cut, "truncated file");
    }
    free(b);
    remove(path);
    remove(cut);
}

/* File offset and size of the first chunk of a dataset. */
static void first_chunk(const char *path, const char *name, haddr_t *addr,
                        hsize_t *size)
{
    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(fid, name, H5P_DEFAULT);
    cr_assert_geq(d, 0, "%s", name);
    hid_t s = H5Dget_space(d);
    hsize_t offset[8];
    unsigned mask;
    cr_assert_geq(H5Dget_chunk_info(d, s, 0, offset, &mask, addr, size), 0);
    H5Sclose(s);
    H5Dclose(d);
    H5Fclose(fid);
}

/* A flip that inflates to the same bytes (a match distance changed to
 * another copy of the same run) damages nothing; any other is an error. */
Test(files_garbage, a_flipped_byte_in_compressed_data_is_a_read_error_or_harmless)
{
    char path[512], bad[512];
    size_t n;
    iohw_error e;
    iohw_case c;
    tmp_path(path, sizeof path, "orig-data");
    tmp_path(bad, sizeof bad, "flipped-data");
    write_base(path);
    haddr_t addr;
    hsize_t size;
    first_chunk(path, "/cases/c.2/x", &addr, &size);
    unsigned char *b = slurp(path, &n);
    cr_assert(size > 8 && addr + size <= n);
    /* deflate's stream ends in an Adler-32 checksum: a flip that changes
     * the data is seen. */
    const hsize_t at[] = {0, 1, size / 2, size - 5, size - 1};
    int seen = 0;
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        b[addr + at[i]] ^= 0x10;
        write_bytes(bad, b, n);
        b[addr + at[i]] ^= 0x10;
        iohw_case_file *f = iohw_case_file_open(bad, &e);
        cr_assert_not_null(f, "%s", e.msg);
        cr_assert_eq(iohw_case_file_read(f, "c.2", IOHW_READ_ATTRS, &c, &e),
                     0, "the attributes are intact: %s", e.msg);
        iohw_case_free(&c);
        if (iohw_case_file_read(f, "c.2", IOHW_READ_INPUTS, &c, &e) == 0) {
            const float *x = c.x;
            for (int64_t k = 0; k < iohw_problem_x_count(&c.p); k++)
                cr_assert_eq(x[k], (float)k, "flip at %llu of the chunk changed "
                             "x[%lld] unnoticed", (unsigned long long)at[i],
                             (long long)k);
            iohw_case_free(&c);
        } else {
            expect_in(e.msg, bad, "chunk");
            expect_in(e.msg, "case 'c.2': dataset 'x' could not be read", "chunk");
            seen++;
        }
        cr_assert_eq(iohw_case_file_read(f, ID, IOHW_READ_ALL, &c, &e), 0,
                     "the other case is intact: %s", e.msg);
        iohw_case_free(&c);
        iohw_case_file_close(f, NULL);
    }
    cr_assert_geq(seen, 3, "only %d of 5 flips were read errors", seen);
    free(b);
    remove(path);
    remove(bad);
}

/* The writer's files carry checksums on most of their metadata (the HDF5
 * 1.8 format): a flipped byte anywhere is a clean error or, where it hits
 * nothing that matters, a clean read - never a crash.  (HDF5 itself leaks a
 * little memory on some of those error paths.) */
Test(files_garbage, copies_with_a_flipped_byte_never_crash)
{
    char path[512], bad[512];
    size_t n;
    tmp_path(path, sizeof path, "orig");
    tmp_path(bad, sizeof bad, "flipped");
    write_base(path);
    unsigned char *b = slurp(path, &n);
    uint64_t s = 4242;
    int failures = 0;
    for (int k = 0; k < 60; k++) {
        size_t pos = (size_t)(lcg(&s) % n);
        unsigned char old = b[pos];
        b[pos] ^= (unsigned char)(1u << (k % 8));
        write_bytes(bad, b, n);
        failures += read_everything(bad) > 0;
        b[pos] = old;
    }
    /* Whatever happened, it was a clean success or a clean error. */
    cr_log_info("%d of 60 flipped copies gave an error", failures);
    free(b);
    remove(path);
    remove(bad);
}
