/*
 * tests/test_run_pieces.c - the pieces of `iohw run` that need no suite:
 * the repro command of a result (harness/run.h), the description of a
 * worker's death and the sentinels the worker fills y with
 * (sandbox/worker.h).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "harness/run.h"
#include "sandbox/worker.h"
#include "iohw/backend.h"

/* --- the repro command ------------------------------------------------- */

static void result_of(iohw_result *r, const char *case_id, const char *file)
{
    iohw_result_init(r);
    r->case_id = iohw_text_keep(case_id);
    r->file = iohw_text_keep(file);
}

Test(run_pieces, the_repro_command_quotes_paths_for_the_shell)
{
    iohw_result r;
    char buf[512];
    result_of(&r, "ct2d.0001", "my suite/it's.h5");
    int n = iohw_repro_command("/opt/lib.so", &r, buf, (int)sizeof buf);
    const char *want =
        "iohw run --backend /opt/lib.so 'my suite/it'\\''s.h5' --filter 'id=ct2d.0001'";
    cr_assert_str_eq(buf, want);
    cr_assert_eq(n, (int)strlen(want));
}

Test(run_pieces, a_repro_command_that_does_not_fit_the_buffer_is_minus_1)
{
    iohw_result r;
    char buf[512];
    result_of(&r, "ct2d.0001", "my suite/it's.h5");
    cr_assert_eq(iohw_repro_command("/opt/lib.so", &r, buf, 20), -1);
}

Test(run_pieces, the_repro_command_of_a_result_without_a_case_runs_its_whole_file)
{
    iohw_result r;
    char buf[512];
    result_of(&r, "", "bad.h5");
    iohw_repro_command("/opt/lib.so", &r, buf, (int)sizeof buf);
    cr_assert_str_eq(buf, "iohw run --backend /opt/lib.so bad.h5");
}

/* --- how a worker died --------------------------------------------------- */

/* A death: the wait status (Linux: exit code in bits 8-15, signal in bits
 * 0-6), what the worker's note says, and the message it must give. */
typedef struct death {     /* copied into the test's process: no pointers */
    char name[72];         /* the scenario, named in a failure */
    int status;
    int noted;             /* 0: no note */
    int call;              /* IOHW_CALL_* in progress */
    int in_w;              /* the note holds a SIGSEGV at fault_addr, near w */
    uintptr_t fault_addr;
    char want[72];
    int whole;             /* 1: want is the whole message, 0: a part of it */
} death;

/* w's mapping is 0x10000-0x14000 with its data at 0x11f00-0x13000. */
static death deaths[] = {
    {"an exit status", 3 << 8, 0, 0, 0, 0, "exited with status 3", 1},
    {"a signal", SIGSEGV, 0, 0, 0, 0, "killed by signal SIGSEGV (Segmentation fault)", 1},
    {"a signal in run()", SIGABRT, 1, IOHW_CALL_RUN, 0, 0,
     "killed by signal SIGABRT (Aborted) in run()", 1},
    {"an exit status in supports()", 3 << 8, 1, IOHW_CALL_SUPPORTS, 0, 0,
     "exited with status 3 in supports()", 1},
    {"a signal outside the backend: the harness's own work is named", SIGKILL, 1,
     IOHW_CALL_NONE, 0, 0, "not in a backend call", 0},
    {"a fault inside w's data: a write to an input", SIGSEGV, 1, IOHW_CALL_RUN, 1, 0x12000,
     "inside w, an input mapped read-only: looks like a write to an input", 0},
    {"a fault 16 bytes past the end of w: its guard page", SIGSEGV, 1, IOHW_CALL_RUN, 1,
     0x1300f, "16 bytes past the end of w", 0},
    {"a fault at address 0", SIGSEGV, 1, IOHW_CALL_RUN, 1, 0, "NULL pointer", 0},
};

ParameterizedTestParameters(run_pieces, a_worker_death_is_described_by_its_signal_or_exit_status)
{
    return cr_make_param_array(death, deaths, sizeof deaths / sizeof deaths[0]);
}

ParameterizedTest(death *d, run_pieces, a_worker_death_is_described_by_its_signal_or_exit_status)
{
    char buf[512];
    iohw_worker_note note;
    memset(&note, 0, sizeof note);
    note.call = d->call;
    if (d->in_w) {
        note.regions[IOHW_REGION_W] = (iohw_worker_region){0x10000, 0x14000, 0x11f00, 0x13000};
        note.signo = SIGSEGV;
        note.addr_valid = 1;
        note.fault_addr = d->fault_addr;
    }
    iohw_worker_death_message(d->status, d->noted ? &note : NULL, buf, (int)sizeof buf);
    if (d->whole)
        cr_assert_str_eq(buf, d->want, "%s", d->name);
    else
        cr_assert_not_null(strstr(buf, d->want), "%s: '%s' lacks '%s'", d->name, buf, d->want);
}

/* --- the sentinels ------------------------------------------------------- */

/* A signalling NaN of a format: exponent all ones, the quiet bit (the top
 * bit of the mantissa) clear, the rest of the mantissa non-zero. */
typedef struct snan_format {   /* copied into the test's process: no pointers */
    char name[8];
    int dtype;
    int size;
    uint64_t exponent, quiet, mantissa;
} snan_format;

static snan_format snan_formats[] = {
    {"f32", IOHW_F32, 4, 0x7F800000u, 0x00400000u, 0x003FFFFFu},
    {"f64", IOHW_F64, 8, 0x7FF0000000000000ull, 0x0008000000000000ull, 0x0007FFFFFFFFFFFFull},
    {"f16", IOHW_F16, 2, 0x7C00, 0x0200, 0x01FF},
    {"bf16", IOHW_BF16, 2, 0x7F80, 0x0040, 0x003F},
};

ParameterizedTestParameters(run_pieces, the_sentinel_is_a_signalling_nan)
{
    return cr_make_param_array(snan_format, snan_formats,
                               sizeof snan_formats / sizeof snan_formats[0]);
}

ParameterizedTest(snan_format *f, run_pieces, the_sentinel_is_a_signalling_nan)
{
    unsigned char b[8];
    uint64_t u = 0;
    cr_assert_eq(iohw_worker_sentinel(f->dtype, b), f->size, "%s: size", f->name);
    memcpy(&u, b, (size_t)f->size);   /* x86-64: little-endian */
    cr_assert_eq(u & f->exponent, f->exponent, "%s: %#llx, exponent not all ones", f->name,
                 (unsigned long long)u);
    cr_assert_eq(u & f->quiet, 0, "%s: %#llx, quiet bit set", f->name, (unsigned long long)u);
    cr_assert_neq(u & f->mantissa, 0, "%s: %#llx, mantissa zero", f->name,
                  (unsigned long long)u);
}

Test(run_pieces, an_unknown_dtype_has_no_sentinel)
{
    unsigned char b[8];
    cr_assert_eq(iohw_worker_sentinel(99, b), 0);
}
