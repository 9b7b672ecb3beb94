/*
 * tests/test_reports_fixture.h - the runs the report tests (test_reports.c,
 * test_report_json_hostile.c, test_report_baseline.c,
 * test_report_factors.c) are built from, by hand in memory.
 *
 * The sample run has one result of each status, so the JUnit counts follow
 * from the mapping of the issue: failures 1 (FAIL), errors 4 (ERROR, CRASH,
 * TIMEOUT, INVALID), skipped 2 (UNSUPPORTED, WAIVED), and per category
 * (id up to the second '.', or the file name):
 *   ct2d.basic    PASS FAIL WAIVED      tests 3 failures 1 errors 0 skipped 1
 *   ct2d.grouped  ERROR CRASH           tests 2 failures 0 errors 2 skipped 0
 *   ct3d.f16      TIMEOUT UNSUPPORTED   tests 2 failures 0 errors 1 skipped 1
 *   broken-file   INVALID (id "lonely") tests 1 failures 0 errors 1 skipped 0
 */
#ifndef IOHW_TEST_REPORTS_FIXTURE_H
#define IOHW_TEST_REPORTS_FIXTURE_H

#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/run.h"
#include "reports/reports.h"

#define D1 "n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1 " \
           "dt=f32 xl=NHWC wl=OIHW fill=normal seed=7"
#define D2 "ci=4 co=4 g=4 in=3x4x5 k=2x3x2 s=2 d=2x1x1 dt=bf16 xl=NDHWC " \
           "wl=GOIDHW fill=exact"
#define HOSTILE "bad <tag> & \"quotes\" 'apos' | pipe \x01\x1b ctrl \xff\xfe " \
                "]]> </script> end"

static inline iohw_result make(const char *id, const char *file, const char *desc,
                               iohw_result_status s)
{
    iohw_result r;
    iohw_result_init(&r);
    r.case_id = iohw_text_fmt("%s", id);
    r.file = iohw_text_fmt("%s", file);
    r.descriptor = iohw_text_fmt("%s", desc);
    r.tags = iohw_text_fmt("rank2,f32,grouped");
    r.status = s;
    r.message = iohw_text_fmt("%s", iohw_result_status_meaning(s));
    r.elements = 480;
    r.worst_ratio = 0.25;
    r.seconds = 0.001;
    return r;
}

/* The sample run: one result of each status. */
static inline iohw_run_results sample(void)
{
    static iohw_result items[8];
    items[0] = make("ct2d.basic.0001", "suite/a.h5", D1, IOHW_RESULT_PASS);
    items[1] = make("ct2d.basic.0002", "suite/a.h5", D1, IOHW_RESULT_FAIL);
    items[1].message = iohw_text_fmt("%s", HOSTILE);
    items[1].diagnosis = iohw_text_fmt(
             "matches the oracle with weight I and O exchanged");
    items[1].mismatches = 12;
    items[1].worst_ratio = INFINITY;
    items[1].npoints = 2;
    items[1].points[0] = (iohw_point){7, {0, 1, 0, 2, 3}, 1.5, 2.0, 1e-6};
    items[1].points[1] = (iohw_point){9, {1, 5, 0, 10, 7}, -0.25, NAN, 2e-6};
    items[1].errmap[2 * IOHW_RESULT_ERRMAP + 3] = 11;
    items[1].errmap[15 * IOHW_RESULT_ERRMAP + 15] = 255;
    items[2] = make("ct2d.grouped.0001", "suite/a.h5", D1, IOHW_RESULT_ERROR);
    items[3] = make("ct2d.grouped.0002", "suite/a.h5", D1, IOHW_RESULT_CRASH);
    items[4] = make("ct3d.f16.0001", "suite/b.h5", D2, IOHW_RESULT_TIMEOUT);
    items[5] = make("lonely", "suite/broken-file.h5", "", IOHW_RESULT_INVALID);
    items[5].elements = 0;
    items[6] = make("ct3d.f16.0002", "suite/b.h5", D2, IOHW_RESULT_UNSUPPORTED);
    items[6].elements = 0;
    items[7] = make("ct2d.basic.0003", "suite/a.h5", D1, IOHW_RESULT_WAIVED);
    items[7].worst_ratio = NAN;

    iohw_run_results r;
    memset(&r, 0, sizeof r);
    r.items = items;
    r.count = 8;
    r.backend_name = "naive";
    r.backend_version = "1.0";
    r.seconds = 2.5;
    return r;
}

static inline iohw_report_options sample_options(void)
{
    static const char *const sample_inputs[] = {"suite", "extra dir/c.h5"};
    iohw_report_options o;
    memset(&o, 0, sizeof o);
    o.backend_path = "/opt/lib naive.so";
    o.inputs = sample_inputs;
    o.ninputs = 2;
    o.filter = "rank=2,tag=grouped";
    o.shard_index = 2, o.shard_count = 3;
    o.jobs = 4;
    o.timeout = 30;
    o.start_time = 1796209786;  /* 2026-12-02T11:09:46Z */
    return o;
}

/* Runs a writer into memory; the text is malloc'd. */
static inline char *render(int (*fn)(FILE *, const iohw_run_results *,
                                     const iohw_report_options *),
                           const iohw_run_results *r, const iohw_report_options *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    cr_assert_eq(fn(f, r, o), 0);
    fclose(f);
    return buf;
}

static inline void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/reports-%d-%s", IOHW_TEST_TMP, (int)getpid(), name);
}

/* A one-result run on a machine described by hand. */
static inline iohw_run_results machine_sample(void)
{
    static iohw_result one_result;
    iohw_run_results r;
    memset(&r, 0, sizeof r);
    one_result = make("ct1d.basic.0001", "suite/a.h5", D1, IOHW_RESULT_FAIL);
    r.items = &one_result;
    r.count = 1;
    r.backend_name = "onednn";
    r.backend_version = "oneDNN 2.6.3 (C API)";
    snprintf(r.machine.cpu, sizeof r.machine.cpu, "Test CPU <9000> & co");
    snprintf(r.machine.features, sizeof r.machine.features,
             "fma f16c avx2 avx512f avx512bw avx512_bf16");
    return r;
}

#endif
