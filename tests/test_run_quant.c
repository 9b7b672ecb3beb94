/*
 * tests/test_run_quant.c - quantized cases through `iohw run` (specification
 * section 11.4): the reference backend passes every one; a backend without
 * run_quant (or with a version 1 table) is UNSUPPORTED on them, saying so;
 * a backend one unit off in one element FAILs with exactly that element,
 * its integer values in the console block; the reports name the types.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/case.h"
#include "generators/generators.h"
#include "harness/console.h"
#include "sandbox/loader.h"
#include "harness/run.h"
#include "explore/shrink.h"
#include "reports/reports.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"
#include "support/case_folder.h"
#include "support/run_options.h"

static const char *const quant_specs[] = {
    "n=2 ci=4 co=6 g=2 in=5x4 k=3x2 s=2 bias=1 dt=u8 wdt=s8 ydt=u8 zp=3,-2,0 pc=1 sx=0.5",
    "ci=3 co=4 in=6x3 k=2 s=2 dt=s8 wdt=u8 round=gemmlowp pc=1 zp=1,128,0 xl=NHWC wl=OHWI",
    "ci=3 co=2 in=7 k=3 s=3 dt=s8 ydt=s32 zp=1,2,0 bias=1",
    "ci=2 co=3 in=4x4 k=3 d=2 pad=1 dt=u8 ydt=s8 round=half_up m=fixed zp=128,0,0",
    "ci=4 co=4 g=4 in=2x3x3 k=2 s=2 op=1 dt=s8 round=half_away bias=1",
};
#define NQUANT (int)(sizeof quant_specs / sizeof quant_specs[0])

static void make_suite(iohw_test_folder *s, const char *name)
{
    char dir[400];
    snprintf(dir, sizeof dir, "%s/runq-%d-%s", IOHW_TEST_TMP, (int)getpid(), name);
    iohw_test_folder_make(s, dir, quant_specs, NQUANT, "ci=2 co=3 in=5 k=3 s=2");
}

static void run_with(const iohw_test_folder *s, const char *backend, iohw_run_results *res)
{
    char path[512];
    iohw_error err = {{0}};
    snprintf(path, sizeof path, "%s/libiohw_%s.so", IOHW_BACKEND_DIR, backend);
    iohw_run_options o = iohw_test_run_options(path, s->inputs);
    cr_assert_eq(iohw_run(&o, res, &err), 0, "%s", err.msg);
    cr_assert_eq(res->count, NQUANT + 1);
}

static int is_quant(const iohw_result *r)
{
    return strncmp(r->case_id, "q.", 2) == 0;
}

Test(run_quant, the_reference_backend_passes_every_quantized_case)
{
    iohw_test_folder s;
    iohw_run_results res;
    make_suite(&s, "ref");
    run_with(&s, "reference", &res);
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *r = &res.items[i];
        cr_expect_eq(r->status, IOHW_RESULT_PASS, "%s: %s %s", r->case_id,
                     iohw_result_status_name(r->status), r->message);
        if (is_quant(r))
            cr_expect_eq(r->exact, 1, "%s: a quantized case is exact", r->case_id);
    }
    iohw_run_results_free(&res);
    iohw_test_folder_remove(&s);
}

Test(run_quant, a_backend_without_run_quant_is_unsupported_on_quantized_cases)
{
    /* (exec and torch have run_quant: test_exec_quant.c and
     * test_adapter_torch_quant.c test their refusals.) */
    const char *backends[] = {"naive", "abi_v1_table", "fault_io_swap", "narrow"};
    iohw_test_folder s;
    make_suite(&s, "norq");
    for (size_t b = 0; b < sizeof backends / sizeof backends[0]; b++) {
        iohw_run_results res;
        run_with(&s, backends[b], &res);
        for (int64_t i = 0; i < res.count; i++) {
            const iohw_result *r = &res.items[i];
            if (!is_quant(r))
                continue;
            cr_expect_eq(r->status, IOHW_RESULT_UNSUPPORTED, "%s %s: %s %s", backends[b],
                         r->case_id, iohw_result_status_name(r->status), r->message);
            cr_expect(strstr(r->message, "the backend has no run_quant") != NULL,
                      "%s %s: %s", backends[b], r->case_id, r->message);
        }
        iohw_run_results_free(&res);
    }
    iohw_test_folder_remove(&s);
}

static void expect_one_off(const char *backend, int last)
{
    iohw_test_folder s;
    iohw_run_results res;
    make_suite(&s, backend);
    run_with(&s, backend, &res);
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *r = &res.items[i];
        if (!is_quant(r)) {
            cr_expect_eq(r->status, IOHW_RESULT_UNSUPPORTED, "%s", r->case_id);
            continue;
        }
        cr_expect_eq(r->status, IOHW_RESULT_FAIL, "%s: %s %s", r->case_id,
                     iohw_result_status_name(r->status), r->message);
        cr_expect_eq(r->mismatches, 1, "%s: %lld mismatches", r->case_id,
                     (long long)r->mismatches);
        cr_expect_eq(r->unwritten, 0, "%s", r->case_id);
        cr_assert_eq(r->npoints, 1, "%s", r->case_id);
        const iohw_point *p = &r->points[0];
        cr_expect_eq(p->index, last ? r->elements - 1 : 0, "%s: element %lld", r->case_id,
                     (long long)p->index);
        cr_expect(p->got - p->expected == 1.0 || p->got - p->expected == -1.0,
                  "%s: expected %g, got %g", r->case_id, p->expected, p->got);
        char needle[96];
        snprintf(needle, sizeof needle, "1 of %lld output elements differ", (long long)r->elements);
        cr_expect(strstr(r->message, needle) != NULL, "%s: %s", r->case_id, r->message);

        /* The console block shows both integers in full. */
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        iohw_console_block(out, backend, r);
        fclose(out);
        char row[64];
        snprintf(row, sizeof row, " %.0f ", p->expected);
        cr_expect(strstr(text, row) != NULL, "%s: no '%s' in\n%s", r->case_id, row, text);
        cr_expect(strstr(text, "first mismatches (of 1)") != NULL, "%s", text);
        free(text);
    }
    iohw_run_results_free(&res);
    iohw_test_folder_remove(&s);
}

Test(run_quant, one_unit_off_in_the_first_element_is_a_fail)
{
    expect_one_off("quant_off_by_one_first", 0);
}

Test(run_quant, one_unit_off_in_the_last_element_is_a_fail)
{
    expect_one_off("quant_off_by_one_last", 1);
}

/* The text of one report. */
static char *report(int (*writer)(FILE *, const iohw_run_results *,
                                  const iohw_report_options *),
                    const iohw_run_results *res)
{
    char *text = NULL;
    size_t len = 0;
    iohw_report_options o;
    memset(&o, 0, sizeof o);
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(writer(f, res, &o), 0);
    fclose(f);
    return text;
}

Test(run_quant, every_report_names_the_quantized_types)
{
    iohw_test_folder s;
    iohw_run_results res;
    make_suite(&s, "reports");
    run_with(&s, "quant_off_by_one_first", &res);
    int (*writers[])(FILE *, const iohw_run_results *, const iohw_report_options *) = {
        iohw_report_json, iohw_report_junit, iohw_report_html, iohw_report_markdown};
    const char *names[] = {"json", "junit", "html", "markdown"};
    for (size_t k = 0; k < sizeof writers / sizeof writers[0]; k++) {
        char *text = report(writers[k], &res);
        /* The descriptor (every format but Markdown) or the dtype factor. */
        cr_expect(strstr(text, "dt=u8 wdt=s8 ydt=u8") != NULL
                  || strstr(text, "u8/s8/u8") != NULL, "%s: no u8/s8", names[k]);
        cr_expect(strstr(text, "ydt=s32") != NULL || strstr(text, "s8/s8/s32") != NULL,
                  "%s: no s32", names[k]);
        cr_expect(strstr(text, "q.2") != NULL, "%s: no case q.2", names[k]);
        free(text);
    }
    iohw_run_results_free(&res);
    iohw_test_folder_remove(&s);
}

/* Asked directly (as `iohw gen --for-backend` or another host might), every
 * bundled backend without run_quant refuses a quantized problem in
 * supports(), and run() of a reference build refuses one too. */
Test(run_quant, backends_without_run_quant_refuse_quantized_problems_in_supports)
{
    const char *backends[] = {"naive", "narrow", "torch", "flush",
                              "fault_io_swap", "fault_saturate", "fault_crash"};
    for (size_t b = 0; b < sizeof backends / sizeof backends[0]; b++) {
        char path[512];
        iohw_loaded_backend lb;
        iohw_error err = {{0}};
        snprintf(path, sizeof path, "%s/libiohw_%s.so", IOHW_BACKEND_DIR, backends[b]);
        if (access(path, R_OK) != 0)
            continue; /* not built here */
        cr_assert_eq(iohw_backend_load(path, &lb, &err), 0, "%s", err.msg);
        for (int i = 0; i < NQUANT; i++) {
            iohw_desc d;
            cr_assert_eq(iohw_desc_parse(quant_specs[i], &d, &err), 0, "%s", err.msg);
            const int rc = lb.table->supports(lb.ctx, &d.p);
            cr_expect_eq(rc, IOHW_UNSUPPORTED, "%s claims %s", backends[b], quant_specs[i]);
            cr_expect_neq(iohw_backend_last_error(&lb)[0], '\0', "%s: no reason", backends[b]);
        }
        iohw_backend_unload(&lb);
    }
}

Test(run_quant, the_reference_run_refuses_a_quantized_problem)
{
    char path[512];
    iohw_loaded_backend lb;
    iohw_desc d;
    iohw_error err = {{0}};
    unsigned char buf[4096] = {0};
    snprintf(path, sizeof path, "%s/libiohw_reference.so", IOHW_BACKEND_DIR);
    cr_assert_eq(iohw_desc_parse(quant_specs[0], &d, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_backend_load(path, &lb, &err), 0, "%s", err.msg);
    cr_expect_eq(lb.table->supports(lb.ctx, &d.p), IOHW_OK);
    cr_expect_eq(lb.table->run(lb.ctx, &d.p, buf, buf, buf, buf), IOHW_INVALID_PROBLEM);
    cr_expect(strstr(iohw_backend_last_error(&lb), "goes to run_quant") != NULL, "%s",
              iohw_backend_last_error(&lb));
    iohw_backend_unload(&lb);
}

/* A quantized failure shrinks to a smaller quantized case that still
 * fails the same way, and the reference backend passes it. */
Test(run_quant, a_quantized_failure_shrinks_to_a_smaller_quantized_case)
{
    iohw_test_folder s;
    char path[512];
    iohw_shrink_options o;
    iohw_shrink_result out;
    iohw_error err = {{0}};
    make_suite(&s, "shrink");
    snprintf(path, sizeof path, "%s/libiohw_quant_off_by_one_first.so", IOHW_BACKEND_DIR);
    iohw_shrink_options_init(&o);
    o.backend = path;
    o.tmpdir = s.dir;
    cr_assert_eq(iohw_shrink_case(&o, s.file, "q.0", &out, &err), 0, "%s", err.msg);
    const iohw_case *c = &out.minimal_case;
    cr_expect_eq(out.minimal.status, IOHW_RESULT_FAIL);
    cr_expect_eq(out.minimal.mismatches, 1);
    cr_expect(iohw_problem_is_quant(&c->p), "%s", c->descriptor);
    cr_expect_lt(iohw_problem_y_count(&c->p), out.original.elements, "%s", c->descriptor);
    uint8_t y[64];
    cr_assert_leq(iohw_problem_y_count(&c->p), 64, "%s", c->descriptor);
    cr_assert_eq(iohw_quant_run(&c->p, c->x, c->w, c->bias, c->requant, y, &err), 0, "%s",
                 err.msg);
    cr_expect_eq(memcmp(y, c->y, (size_t)iohw_problem_y_count(&c->p)), 0,
                 "the minimal case's y is the oracle's");
    iohw_case_free(&out.minimal_case);
    iohw_test_folder_remove(&s);
}
