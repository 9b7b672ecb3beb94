/*
 * tests/test_cases_user.c - user cases (IOHW_READ_USER: the derived
 * attributes and the outputs may be absent) and interchange with h5py: h5py
 * reads iohw's f16 as float16 and sees the bf16 encoding; a case h5py writes
 * (variable-length strings, int64 attributes, a bool) is read.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "test_cases_fixture.h"

#define PY "/usr/bin/python3"

/* ---------------------------------------------------------------------- */
/* User cases: the optional attributes and outputs may be absent. */

/* Deletes what a user case may leave out, with the HDF5 C API. */
static void strip_to_user_case(const char *path, const char *id)
{
    char gpath[256];
    snprintf(gpath, sizeof gpath, "/cases/%s", id);
    hid_t fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert_geq(fid, 0);
    hid_t g = H5Gopen2(fid, gpath, H5P_DEFAULT);
    cr_assert_geq(g, 0);
    const char *attrs[] = {"out_size", "terms_max", "fill", "seed", "tags",
                           "descriptor"};
    for (int i = 0; i < 6; i++)
        cr_assert_geq(H5Adelete(g, attrs[i]), 0, "%s", attrs[i]);
    const char *sets[] = {"y", "y_f64", "err_bound"};
    for (int i = 0; i < 3; i++)
        cr_assert_geq(H5Ldelete(g, sets[i], H5P_DEFAULT), 0, "%s", sets[i]);
    H5Gclose(g);
    H5Fclose(fid);
}

Test(case_user, a_user_case_may_omit_outputs_and_derived_attributes)
{
    char path[512];
    tmp_path(path, sizeof path, "user");
    iohw_case c, got;
    iohw_error e;
    build_dt(&SPECS[4], IOHW_BF16, &c);
    write_cases(path, &c, 1);
    strip_to_user_case(path, c.id);

    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_read(f, c.id, IOHW_READ_USER, &got, &e), 0,
                 "%s", e.msg);
    /* out_size is computed; the rest has its user defaults. */
    cr_assert_eq(memcmp(&got.p, &c.p, sizeof c.p), 0);
    cr_assert_str_eq(got.fill, "user");
    cr_assert_str_eq(got.tags, "");
    cr_assert_str_eq(got.descriptor, "");
    cr_assert_eq(got.seed, 0);
    cr_assert_eq(got.terms_max, 0);
    const size_t es = 2;
    expect_bytes("x", c.id, got.x, c.x, es * (size_t)iohw_problem_x_count(&c.p));
    expect_bytes("w", c.id, got.w, c.w, es * (size_t)iohw_problem_w_count(&c.p));
    expect_bytes("bias", c.id, got.bias, c.bias, es * (size_t)c.p.out_channels);
    cr_assert(got.y == NULL && got.y_f64 == NULL && got.err_bound == NULL);
    iohw_case_free(&got);

    /* The same file is not a complete case. */
    cr_assert_eq(iohw_case_file_read(f, c.id, IOHW_READ_ATTRS, &got, &e), -1);
    cr_assert(strstr(e.msg, "attribute 'out_size' is missing") != NULL,
              "'%s'", e.msg);
    iohw_case_file_close(f, NULL);
    iohw_case_free(&c);
    remove(path);
}

Test(case_user, a_complete_case_read_as_user_keeps_its_attributes)
{
    char path[512];
    tmp_path(path, sizeof path, "usercomplete");
    iohw_case c, got;
    iohw_error e;
    build(&SPECS[1], &c);
    write_cases(path, &c, 1);
    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_read(f, c.id, IOHW_READ_USER, &got, &e), 0,
                 "%s", e.msg);
    expect_same(&got, &c, IOHW_READ_INPUTS);
    iohw_case_free(&got);
    cr_assert_eq(iohw_case_file_read(f, c.id,
                                     IOHW_READ_USER | IOHW_READ_OUTPUTS,
                                     &got, &e), 0, "%s", e.msg);
    expect_same(&got, &c, IOHW_READ_ALL);
    iohw_case_free(&got);
    iohw_case_file_close(f, NULL);
    iohw_case_free(&c);
    remove(path);
}

/* ---------------------------------------------------------------------- */
/* h5py. */

static int have_h5py(void)
{
    return access(PY, X_OK) == 0 &&
           system(PY " -c 'import h5py' >/dev/null 2>&1") == 0;
}

/* Runs a python snippet with argv[1] = path; returns its exit status and
 * its output in out. */
static int run_py(const char *code, const char *path, char *out, size_t n)
{
    char script[512], cmd[1200];
    snprintf(script, sizeof script, "%s.py", path);
    FILE *fp = fopen(script, "w");
    cr_assert_not_null(fp);
    fputs(code, fp);
    fclose(fp);
    snprintf(cmd, sizeof cmd, PY " '%s' '%s' 2>&1", script, path);
    FILE *pp = popen(cmd, "r");
    cr_assert_not_null(pp);
    size_t len = fread(out, 1, n - 1, pp);
    out[len] = '\0';
    int st = pclose(pp);
    remove(script);
    return st;
}

Test(case_h5py, h5py_reads_f16_as_float16_and_sees_the_bf16_encoding)
{
    if (!have_h5py())
        cr_skip_test("no " PY " with h5py");
    char path[512], out[4096];
    tmp_path(path, sizeof path, "h5py-read");
    iohw_case cs[2];
    build_dt(&SPECS[0], IOHW_F16, &cs[0]);
    build_dt(&SPECS[0], IOHW_BF16, &cs[1]);
    /* Known binary16 patterns: 1, -2.5, the smallest normal 2^-14,
     * the largest finite 65504, the smallest subnormal 2^-24. */
    const uint16_t f16[5] = {0x3C00, 0xC100, 0x0400, 0x7BFF, 0x0001};
    memcpy(cs[0].x, f16, sizeof f16);
    /* bfloat16 1.0 is 0x3F80. */
    const uint16_t bf1 = 0x3F80;
    memcpy(cs[1].x, &bf1, 2);
    write_cases(path, cs, 2);

    const char *code =
        "import sys, h5py, numpy as np\n"
        "f = h5py.File(sys.argv[1], 'r')\n"
        "assert f.attrs['iohw_schema'] == 1\n"
        "g = f['cases/r1.plain.f16']\n"
        "x = g['x']\n"
        "assert x.dtype == np.float16, x.dtype\n"
        "v = x[...]\n"
        "assert v.shape == (1, 3, 5), v.shape\n"
        "v = v.ravel()[:5]\n"
        "want = [1.0, -2.5, 2.0**-14, 65504.0, 2.0**-24]\n"
        "assert [float(a) for a in v] == want, v\n"
        "assert g['w'].dtype == np.float16 and g['y'].dtype == np.float16\n"
        "assert g['y_f64'].dtype == np.float64\n"
        "for k in g.attrs: g.attrs[k]\n"
        "assert g.attrs['data_layout'] == b'NCW', g.attrs['data_layout']\n"
        "assert int(g.attrs['seed']) == 0xFEDCBA9876543210\n"
        "assert list(g.attrs['kernel']) == [3]\n"
        "b = f['cases/r1.plain.bf16/x']\n"
        "assert b.dtype == np.uint16, b.dtype\n"
        "assert b.attrs['encoding'] == b'bf16', b.attrs['encoding']\n"
        "assert int(b[0, 0, 0]) == 0x3F80\n"
        "print('ok')\n";
    int st = run_py(code, path, out, sizeof out);
    cr_assert_eq(st, 0, "python said:\n%s", out);
    cr_assert(strstr(out, "ok") != NULL, "%s", out);
    iohw_case_free(&cs[0]);
    iohw_case_free(&cs[1]);
    remove(path);
}

Test(case_h5py, a_user_case_written_by_h5py_is_read)
{
    if (!have_h5py())
        cr_skip_test("no " PY " with h5py");
    char path[512], out[4096];
    tmp_path(path, sizeof path, "h5py-write");
    /* Python ints become int64 attributes, str attributes are
     * variable-length UTF-8, True is h5py's bool enum. */
    const char *code =
        "import sys, h5py, numpy as np\n"
        "with h5py.File(sys.argv[1], 'w') as f:\n"
        "    f.attrs['iohw_schema'] = 1\n"
        "    g = f.create_group('cases/user.case-1')\n"
        "    g.attrs['rank'] = np.int32(2)\n"
        "    g.attrs['batch'] = 1\n"
        "    g.attrs['in_channels'] = 2\n"
        "    g.attrs['out_channels'] = 3\n"
        "    g.attrs['groups'] = 1\n"
        "    g.attrs['in_size'] = np.array([3, 4])\n"
        "    g.attrs['kernel'] = np.array([2, 3])\n"
        "    g.attrs['stride'] = np.array([2, 1])\n"
        "    g.attrs['dilation'] = np.array([1, 1])\n"
        "    g.attrs['pad_begin'] = np.array([0, 1])\n"
        "    g.attrs['pad_end'] = np.array([1, 0])\n"
        "    g.attrs['output_padding'] = np.array([1, 0])\n"
        "    g.attrs['data_layout'] = 'NCHW'\n"
        "    g.attrs['weight_layout'] = 'IOHW'\n"
        "    g.attrs['dtype'] = 'f32'\n"
        "    g.attrs['has_bias'] = True\n"
        "    g.attrs['tags'] = 'from-h5py,user'\n"
        "    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4) * 0.5\n"
        "    g.create_dataset('x', data=x)\n"
        "    w = np.arange(36, dtype=np.float32).reshape(2, 3, 2, 3) - 10\n"
        "    g.create_dataset('w', data=w)\n"
        "    g.create_dataset('bias', data=np.array([1, -1, 0.25], "
        "dtype=np.float32))\n"
        "print('ok')\n";
    int st = run_py(code, path, out, sizeof out);
    cr_assert_eq(st, 0, "python said:\n%s", out);

    iohw_error e;
    iohw_case c;
    iohw_case_file *f = iohw_case_file_open(path, &e);
    cr_assert_not_null(f, "%s", e.msg);
    cr_assert_eq(iohw_case_file_count(f), 1);
    cr_assert_str_eq(iohw_case_file_id(f, 0), "user.case-1");
    cr_assert_eq(iohw_case_file_read(f, "user.case-1", IOHW_READ_USER, &c,
                                     &e), 0, "%s", e.msg);
    /* O_H = (3-1)*2 - 0 - 1 + 1*(2-1) + 1 + 1 = 6;
     * O_W = (4-1)*1 - 1 - 0 + 1*(3-1) + 0 + 1 = 5. */
    cr_assert_eq(c.p.rank, 2);
    cr_assert_eq(c.p.in_channels, 2);
    cr_assert_eq(c.p.out_channels, 3);
    cr_assert_eq(c.p.out_size[0], 6);
    cr_assert_eq(c.p.out_size[1], 5);
    cr_assert_eq(c.p.pad_begin[1], 1);
    cr_assert_eq(c.p.has_bias, 1);
    cr_assert_eq(c.p.dtype, IOHW_F32);
    cr_assert_str_eq(c.p.data_layout, "NCHW");
    cr_assert_str_eq(c.p.weight_layout, "IOHW");
    cr_assert_str_eq(c.tags, "from-h5py,user");
    cr_assert_str_eq(c.descriptor, "");
    cr_assert_str_eq(c.fill, "user");
    const float *x = c.x, *w = c.w, *b = c.bias;
    for (int i = 0; i < 24; i++)
        cr_assert_eq(x[i], 0.5f * (float)i, "x[%d] = %g", i, x[i]);
    for (int i = 0; i < 36; i++)
        cr_assert_eq(w[i], (float)i - 10.0f, "w[%d] = %g", i, w[i]);
    cr_assert(b[0] == 1.0f && b[1] == -1.0f && b[2] == 0.25f);
    cr_assert_null(c.y);
    iohw_case_free(&c);
    iohw_case_file_close(f, NULL);
    remove(path);
}
