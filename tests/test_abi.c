/*
 * tests/test_abi.c - the backend ABI of include/iohw/backend.h as frozen by
 * specification section 5: the status codes and their one name function,
 * the version 1 layouts of iohw_problem and iohw_backend byte for byte, and
 * the append-only rules: a backend whose table holds exactly the version 1
 * members, and one whose table is longer than this host knows, both load
 * and run (tests/abi/abi_table.c).
 */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "sandbox/loader.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"

#define BACKEND(name) IOHW_BACKEND_DIR "/lib" name ".so"

Test(abi, status_codes_keep_their_version_1_values_and_names)
{
    static const struct {
        int code;
        const char *name;
    } want[] = {
        {0, "IOHW_OK"}, {1, "IOHW_UNSUPPORTED"}, {2, "IOHW_INVALID_PROBLEM"},
        {3, "IOHW_OUT_OF_MEMORY"}, {4, "IOHW_BACKEND_ERROR"},
        {5, "IOHW_INCOMPATIBLE_ABI"},
    };
    const int codes[] = {IOHW_OK, IOHW_UNSUPPORTED, IOHW_INVALID_PROBLEM,
                         IOHW_OUT_OF_MEMORY, IOHW_BACKEND_ERROR, IOHW_INCOMPATIBLE_ABI};
    for (int i = 0; i < 6; i++) {
        cr_expect_eq(codes[i], want[i].code, "%s is %d, want %d", want[i].name, codes[i],
                     want[i].code);
        cr_expect_str_eq(iohw_backend_status_name(want[i].code), want[i].name);
    }
}

Test(abi, a_code_outside_the_table_has_no_status_name)
{
    const int others[] = {-1, 6, 7, 99, -2147483647 - 1, 2147483647};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        cr_expect_str_eq(iohw_backend_status_name(others[i]), "not an iohw_status",
                         "code %d", others[i]);
}

/* Every member's offset, as the specification freezes them. */
Test(abi, the_problem_layout_is_frozen)
{
    static const struct {
        const char *member;
        size_t offset, size;
    } want[] = {
        {"struct_size", 0, 4}, {"rank", 4, 4}, {"batch", 8, 8},
        {"in_channels", 16, 8}, {"out_channels", 24, 8}, {"groups", 32, 8},
        {"in_size", 40, 24}, {"kernel", 64, 24}, {"stride", 88, 24},
        {"dilation", 112, 24}, {"pad_begin", 136, 24}, {"pad_end", 160, 24},
        {"output_padding", 184, 24}, {"out_size", 208, 24},
        {"data_layout", 232, 16}, {"weight_layout", 248, 16}, {"dtype", 264, 4},
        {"has_bias", 268, 4}, {"w_dtype", 272, 4}, {"y_dtype", 276, 4},
        {"zp_x", 280, 4}, {"zp_w", 284, 4}, {"zp_y", 288, 4}, {"rounding", 292, 4},
        {"m_form", 296, 4}, {"per_channel", 300, 4}, {"s_x", 304, 4}, {"s_y", 308, 4},
        {"auto_pad", 312, 4}, {"convention", 316, 4}, {"out_shape", 320, 24},
        {"direction", 344, 4}, {"reserved", 348, 4},
    };
    iohw_problem p;
#define AT(m) {offsetof(iohw_problem, m), sizeof p.m}
    const struct {
        size_t offset, size;
    } got[] = {
        AT(struct_size), AT(rank), AT(batch), AT(in_channels), AT(out_channels),
        AT(groups), AT(in_size), AT(kernel), AT(stride), AT(dilation),
        AT(pad_begin), AT(pad_end), AT(output_padding), AT(out_size),
        AT(data_layout), AT(weight_layout), AT(dtype), AT(has_bias),
        AT(w_dtype), AT(y_dtype), AT(zp_x), AT(zp_w), AT(zp_y), AT(rounding),
        AT(m_form), AT(per_channel), AT(s_x), AT(s_y), AT(auto_pad),
        AT(convention), AT(out_shape), AT(direction), AT(reserved),
    };
#undef AT
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cr_expect_eq(got[i].offset, want[i].offset, "%s at %zu, want %zu", want[i].member,
                     got[i].offset, want[i].offset);
        cr_expect_eq(got[i].size, want[i].size, "%s has %zu bytes, want %zu",
                     want[i].member, got[i].size, want[i].size);
    }
    cr_expect_eq(IOHW_PROBLEM_SIZE_V1, 272);
    cr_expect_eq(IOHW_PROBLEM_SIZE_QUANT, 312);
    cr_expect_eq(IOHW_PROBLEM_SIZE_CONV, 344);
    cr_expect_eq(IOHW_PROBLEM_SIZE_DIR, 352);
    cr_expect_eq(sizeof(iohw_problem), IOHW_PROBLEM_SIZE_DIR, "no implicit padding");
    cr_expect_geq(sizeof(iohw_problem), IOHW_PROBLEM_SIZE_V1);
    iohw_problem_init(&p);
    cr_expect_eq(p.struct_size, sizeof(iohw_problem), "a host sends its own size");
}

Test(abi, the_table_layout_is_frozen)
{
    cr_expect_eq(offsetof(iohw_backend, abi_version), 0);
    cr_expect_eq(offsetof(iohw_backend, struct_size), 4);
    cr_expect_eq(offsetof(iohw_backend, name), 8);
    cr_expect_eq(offsetof(iohw_backend, version), 16);
    cr_expect_eq(offsetof(iohw_backend, init), 24);
    cr_expect_eq(offsetof(iohw_backend, fini), 32);
    cr_expect_eq(offsetof(iohw_backend, supports), 40);
    cr_expect_eq(offsetof(iohw_backend, run), 48);
    cr_expect_eq(offsetof(iohw_backend, last_error), 56);
    cr_expect_eq(IOHW_BACKEND_SIZE_V1, 64);
    cr_expect_eq(offsetof(iohw_backend, run_quant), 64, "appended after last_error");
    cr_expect_eq(offsetof(iohw_backend, run_bwd_data), 72, "appended after run_quant");
    cr_expect_eq(offsetof(iohw_backend, run_bwd_weights), 80);
}

Test(abi, has_member_follows_struct_size)
{
    iohw_problem p;
    memset(&p, 0, sizeof p);
    p.struct_size = (uint32_t)IOHW_PROBLEM_SIZE_V1;
    cr_expect(IOHW_HAS_MEMBER(&p, iohw_problem, has_bias));
    p.struct_size = (uint32_t)offsetof(iohw_problem, has_bias);
    cr_expect(!IOHW_HAS_MEMBER(&p, iohw_problem, has_bias));
    cr_expect(IOHW_HAS_MEMBER(&p, iohw_problem, dtype));
}

/* Loads a test backend; checks the table it declares. */
static void expect_loads(const char *path, const char *name, int longer)
{
    iohw_loaded_backend lb;
    iohw_error err;
    cr_assert_eq(iohw_backend_load(path, &lb, &err), 0, "%s", err.msg);
    cr_expect_str_eq(lb.table->name, name);
    if (longer)
        cr_expect_gt(lb.table->struct_size, sizeof(iohw_backend));
    else
        cr_expect_eq(lb.table->struct_size, IOHW_BACKEND_SIZE_V1);
    iohw_desc d;
    cr_assert_eq(iohw_desc_parse("ci=2 co=3 in=4x5 k=3x2 s=2x1", &d, &err), 0);
    cr_expect_eq(lb.table->supports(lb.ctx, &d.p), IOHW_OK);
    iohw_backend_unload(&lb);
}

/* `iohw run` of a case file on a backend: the exit status, and the output
 * must report every case PASS. */
static void expect_runs(const char *backend, const char *tag)
{
    char cases[512], log[512], cmd[2048];
    mkdir(IOHW_TEST_TMP, 0777);
    snprintf(cases, sizeof cases, IOHW_TEST_TMP "/abi_%s.h5", tag);
    snprintf(log, sizeof log, IOHW_TEST_TMP "/abi_%s.log", tag);
    snprintf(cmd, sizeof cmd,
             "'%s' gen --problem 'ci=2 co=3 in=4x5 k=3x2 s=2x1 bias=1' "
             "--problem 'ci=4 co=2 g=2 in=5 k=3 d=2 dt=f64' "
             "--problem 'ci=1 co=1 in=3x3x3 k=2 dt=bf16 xl=NDHWC wl=OIDHW' -o '%s' "
             ">/dev/null && '%s' run --backend '%s' '%s' >'%s' 2>&1",
             IOHW_BIN, cases, IOHW_BIN, backend, cases, log);
    const int st = system(cmd);
    char text[8192] = "";
    FILE *f = fopen(log, "r");
    if (f != NULL) {
        text[fread(text, 1, sizeof text - 1, f)] = '\0';
        fclose(f);
    }
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: exit status %d:\n%s", backend,
              st, text);
    cr_expect(strstr(text, "OK: nothing failed") != NULL, "%s:\n%s", backend, text);
    cr_expect(strstr(text, "PASS                3") != NULL, "%s:\n%s", backend, text);
    remove(cases);
    remove(log);
}

Test(abi, a_backend_with_exactly_the_version_1_table_loads_and_runs)
{
    expect_loads(BACKEND("iohw_abi_v1_table"), "abi_v1_table", 0);
    expect_runs(BACKEND("iohw_abi_v1_table"), "v1");
}

Test(abi, a_backend_with_a_longer_table_than_the_host_knows_loads_and_runs)
{
    expect_loads(BACKEND("iohw_abi_longer_table"), "abi_longer_table", 1);
    expect_runs(BACKEND("iohw_abi_longer_table"), "longer");
}
