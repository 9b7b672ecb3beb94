/*
 * tests/test_cases_guarded.c - hostile case files, made here by code: one
 * whose corrupted variable-length string attribute makes libhdf5 1.10.8
 * loop for ever in its global-heap code (H5HG_read), small files that ask
 * for huge allocations (an output_padding that makes an axis 2^24 long,
 * tensors of 2^26 and 2^31 elements declared and never written).  Every
 * reader is bounded: the listing child, `iohw show` and `iohw oracle` give
 * up with the same message at the time limit, the reader allocates nothing
 * the file does not store, and nothing half-written is left behind.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "sandbox/guard.h"
#include "harness/listing.h"
#include "support/hostile_cases.h"
#include "test_cases_break.h"

/* --- the hostile files (tests/support/hostile_cases.h) ------------------ */

static void write_heap_loop(const char *path)
{
    write_base(path, IOHW_F32);
    cr_assert_eq(iohw_test_hostile_heap_loop(path, ID), 0, "%s", path);
}

static void write_unwritten(const char *path, int64_t width)
{
    write_base(path, IOHW_F64);
    cr_assert_eq(iohw_test_hostile_unwritten(path, ID, width), 0, "%s", path);
}

/* --- the time limit of a reader ------------------------------------------- */

Test(guard, a_small_file_gets_seconds_a_large_one_more_up_to_a_minute)
{
    const int64_t MiB = (int64_t)1 << 20;
    cr_expect_eq(iohw_guard_read_seconds(0), 5.0);
    cr_expect_eq(iohw_guard_read_seconds(10 * 1024), 5.0);
    cr_expect_eq(iohw_guard_read_seconds(MiB - 1), 5.0);
    cr_expect_eq(iohw_guard_read_seconds(MiB), 6.0);
    cr_expect_eq(iohw_guard_read_seconds(20 * MiB + 5), 25.0);
    cr_expect_eq(iohw_guard_read_seconds(55 * MiB), 60.0);
    cr_expect_eq(iohw_guard_read_seconds(100 * MiB), 60.0);
    cr_expect_eq(iohw_guard_read_seconds(INT64_MAX), 60.0);
}

Test(guard, the_limits_of_a_path_follow_its_size_and_the_environment)
{
    char path[512];
    tmp_path(path, sizeof path, "sized");
    FILE *o = fopen(path, "w");
    cr_assert_not_null(o);
    cr_assert_eq(fseek(o, 3 * ((long)1 << 20) + 17, SEEK_SET), 0);
    fputc('x', o);
    fclose(o);
    unsetenv("IOHW_READ_TIMEOUT");
    cr_expect_eq(iohw_guard_read_limits(path).seconds, 8.0);
    cr_expect_eq(iohw_guard_read_limits(path).memory_mb, 4096);
    cr_expect_eq(iohw_guard_read_limits("/nonexistent/iohw.h5").seconds, 60.0);
    setenv("IOHW_READ_TIMEOUT", "2.5", 1);
    cr_expect_eq(iohw_guard_read_limits(path).seconds, 2.5);
    unsetenv("IOHW_READ_TIMEOUT");
    remove(path);
}

/* --- reading them in a guarded child ------------------------------------- */

typedef struct read_job {
    const char *path;
    unsigned what;
} read_job;

/* Sends the reader's message (or "ok"). */
static int read_child(void *arg, int fd)
{
    const read_job *j = arg;
    iohw_error e = {{0}};
    iohw_case_file *f = iohw_case_file_open(j->path, &e);
    int rc = -1;
    if (f != NULL) {
        iohw_case c;
        rc = iohw_case_file_read(f, ID, j->what, &c, &e);
        if (rc == 0)
            iohw_case_free(&c);
        iohw_case_file_close(f, NULL);
    }
    const char *msg = rc == 0 ? "ok" : e.msg;
    (void)!write(fd, msg, strlen(msg));
    return 0;
}

/* Reads case ID of path with `what` under 30 s and 1024 MB: it must end by
 * itself, refuse the case naming `needle`, and stay small. */
static void expect_bounded_refusal(const char *path, unsigned what, const char *needle)
{
    read_job j = {path, what};
    iohw_guard_limits lim = {30, 1024};
    iohw_guard_outcome out;
    cr_assert_eq(iohw_guard_run(read_child, &j, path, &lim, &out, NULL), 0);
    cr_expect_eq(out.end, IOHW_GUARD_EXITED, "%s: the reader was stopped (%d), peak %lld KB",
                 path, (int)out.end, (long long)out.peak_kb);
    cr_expect_not_null(strstr(out.output, needle), "%s: '%s' not in '%s'", path, needle,
                       out.output);
    /* The process itself (with AddressSanitizer) is some tens of MB; what
     * the file declares is hundreds of MB to tens of GB. */
    cr_expect_lt(out.peak_kb, 160 * 1024, "%s: peak %lld KB", path, (long long)out.peak_kb);
    iohw_guard_outcome_free(&out);
}

Test(hostile_sizes, a_wide_output_padding_costs_nothing_before_the_missing_dataset)
{
    char path[512];
    tmp_path(path, sizeof path, "wide-op");
    write_base(path, IOHW_F32);
    cr_assert_eq(iohw_test_hostile_wide_padding(path, ID), 0);
    expect_bounded_refusal(path, IOHW_READ_ATTRS, "dataset 'y' is missing");
    expect_bounded_refusal(path, IOHW_READ_ALL, "dataset 'y' is missing");
    remove(path);
}

Test(hostile_sizes, tensors_declared_but_never_written_are_refused_before_allocating)
{
    char path[512];
    tmp_path(path, sizeof path, "unwritten-2e26");
    write_unwritten(path, 559236);  /* y: 2^26 f64 elements */
    expect_bounded_refusal(path, IOHW_READ_ALL, "dataset 'x' stores 0 bytes but its "
                                                "shape needs 178955520");
    expect_bounded_refusal(path, IOHW_READ_ATTRS, "dataset 'x' stores 0 bytes");
    expect_bounded_refusal(path, IOHW_READ_USER | IOHW_READ_INPUTS, "dataset 'x' stores 0");
    remove(path);

    tmp_path(path, sizeof path, "unwritten-2e31");
    write_unwritten(path, 17895693);  /* y: 2^31 - 8 f64 elements */
    expect_bounded_refusal(path, IOHW_READ_ALL, "a reader allocates at most 4294967296");
    expect_bounded_refusal(path, IOHW_READ_ATTRS, "IOHW_CASE_TENSOR_BYTES_MAX");
    remove(path);
}

/* Found by the case-file fuzz harness: a case whose group cannot be opened
 * (a metadata checksum broken; here a dataset where the group belongs) left
 * the id in the case. */
Test(hostile_sizes, a_case_group_that_cannot_be_opened_leaves_the_case_zeroed)
{
    char path[512];
    tmp_path(path, sizeof path, "not-a-group");
    write_base(path, IOHW_F32);
    hid_t fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert_geq(fid, 0);
    hid_t cases = H5Gopen2(fid, "/cases", H5P_DEFAULT);
    cr_assert_geq(H5Ldelete(cases, ID, H5P_DEFAULT), 0);
    hsize_t one = 1;
    replace_ds(cases, ID, H5T_STD_I32LE, 1, &one);
    H5Gclose(cases);
    cr_assert_geq(H5Fclose(fid), 0);
    expect_error(path, ID, IOHW_READ_ATTRS, "group", "not-a-group");
    remove(path);
}

/* --- the listing child --------------------------------------------------- */

Test(hostile_loop, a_file_that_makes_libhdf5_loop_is_invalid_and_the_run_goes_on)
{
    char good[512], loop[512];
    tmp_path(good, sizeof good, "loop-good");
    tmp_path(loop, sizeof loop, "loop-heap");
    write_base(good, IOHW_F32);
    write_heap_loop(loop);
    const char *inputs[] = {good, loop};
    iohw_guard_limits lim = {1.0, 1024};
    iohw_listing s;
    iohw_error e = {{0}};
    cr_assert_eq(iohw_listing_build_limited(inputs, 2, NULL, 1, 1, &lim, &s, &e), 0, "%s", e.msg);
    cr_assert_eq(s.count, 2);
    cr_expect_str_eq(s.entries[0].id, ID);
    cr_expect_null(s.entries[0].invalid, "%s", s.entries[0].invalid);
    cr_assert_not_null(s.entries[1].invalid);
    cr_expect_not_null(strstr(s.entries[1].invalid, loop), "%s", s.entries[1].invalid);
    cr_expect_not_null(strstr(s.entries[1].invalid, "took longer than 1 s (killed)"), "%s",
                       s.entries[1].invalid);
    iohw_listing_free(&s);

    remove(good);
    remove(loop);
}

/* --- the guard itself ---------------------------------------------------- */

/* Touches 512 MB, 1 MB at a time, then waits. */
static int hog(void *arg, int fd)
{
    (void)arg;
    for (int i = 0; i < 512; i++) {
        char *p = malloc(1 << 20);
        if (p == NULL)
            return 3;
        memset(p, i + 1, 1 << 20);
        (void)!write(fd, "", 0);
    }
    sleep(30);
    return 0;
}

static int says(void *arg, int fd)
{
    (void)!write(fd, arg, strlen(arg));
    return 7;
}

/* Writes 4 MB and exits at once: the parent must still get all of it. */
static int floods(void *arg, int fd)
{
    (void)arg;
    static char block[1 << 16];
    memset(block, 'z', sizeof block);
    for (int i = 0; i < 64; i++)
        if (write(fd, block, sizeof block) != (ssize_t)sizeof block)
            return 1;
    return 0;
}

Test(guard, hands_back_everything_the_child_wrote)
{
    iohw_guard_outcome out;
    iohw_guard_limits lim = {20.0, 0};
    cr_assert_eq(iohw_guard_run(floods, NULL, "f.h5", &lim, &out, NULL), 0);
    cr_expect(iohw_guard_ok(&out));
    cr_expect_eq(out.output_len, (size_t)64 << 16);
    cr_expect_eq(out.output[out.output_len - 1], 'z');
    iohw_guard_outcome_free(&out);
}

Test(guard, reports_the_exit_code_and_output_of_the_reader)
{
    iohw_guard_outcome out;
    iohw_guard_limits lim = {20.0, 64};
    cr_assert_eq(iohw_guard_run(says, "hello", "x.h5", &lim, &out, NULL), 0);
    cr_expect_eq(out.end, IOHW_GUARD_EXITED);
    cr_expect_eq(out.code, 7);
    cr_expect_str_eq(out.output, "hello");
    cr_expect(!iohw_guard_ok(&out));
    iohw_guard_outcome_free(&out);
}

Test(guard, kills_a_reader_that_needs_more_memory_than_the_limit)
{
    iohw_guard_outcome out;
    iohw_guard_limits lim = {20.0, 64};
    cr_assert_eq(iohw_guard_run(hog, NULL, "big.h5", &lim, &out, NULL), 0);
    cr_expect_eq(out.end, IOHW_GUARD_MEMORY, "end %d, peak %lld KB", (int)out.end,
                 (long long)out.peak_kb);
    cr_expect_lt(out.seconds, 10.0);
    char why[512];
    iohw_guard_describe(&out, &lim, "big.h5", why, sizeof why);
    cr_expect_not_null(strstr(why, "big.h5: reading the file needed more than 64 MB (killed)"),
                       "%s", why);
    iohw_guard_outcome_free(&out);
}

Test(guard, kills_a_reader_that_takes_longer_than_the_limit)
{
    iohw_guard_outcome out;
    char why[512];
    setenv("IOHW_TEST_HOOK", "hang:read:slow.h5", 1);
    iohw_guard_limits quick = {0.5, 0};
    cr_assert_eq(iohw_guard_run(says, "x", "slow.h5", &quick, &out, NULL), 0);
    unsetenv("IOHW_TEST_HOOK");
    cr_expect_eq(out.end, IOHW_GUARD_TIMEOUT);
    iohw_guard_describe(&out, &quick, "slow.h5", why, sizeof why);
    cr_expect_not_null(strstr(why, "took longer than 0.5 s (killed)"), "%s", why);
    iohw_guard_outcome_free(&out);
}

/* --- the commands -------------------------------------------------------- */

/* Runs "iohw ARGS" with the environment assignments env (may be ""),
 * stderr joined; returns the exit status, the output in *out. */
static int run(char **out, const char *env, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int run(char **out, const char *env, const char *fmt, ...)
{
    char args[4096], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    /* A command given a test hook runs the copy that has the hooks. */
    const char *bin = strstr(env, "IOHW_TEST_HOOK=") ? IOHW_HOOKED_BIN : IOHW_BIN;
    snprintf(cmd, sizeof cmd, "%s '%s' %s 2>&1", env, bin, args);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t cap = 1 << 20;
    char *buf = malloc(cap);
    size_t n = fread(buf, 1, cap - 1, p);
    buf[n] = '\0';
    int st = pclose(p);
    cr_assert(WIFEXITED(st), "%s did not exit", cmd);
    *out = buf;
    return WEXITSTATUS(st);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = calloc(1, 4096);
    size_t n = fread(buf, 1, 4095, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Files in IOHW_TEST_TMP whose names start with prefix. */
static int count_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

/* The files of the command tests: a file whose reading loops, a good one,
 * and an output that holds "keep me" before the command runs. */
typedef struct cmd_files {
    char loop[512], good[512], out[512];
} cmd_files;

static void make_cmd_files(cmd_files *f)
{
    tmp_path(f->loop, sizeof f->loop, "cmd-loop");
    tmp_path(f->good, sizeof f->good, "cmd-good");
    tmp_path(f->out, sizeof f->out, "cmd-out");
    write_heap_loop(f->loop);
    write_base(f->good, IOHW_F32);
    FILE *o = fopen(f->out, "w");
    cr_assert_not_null(o, "cannot write %s", f->out);
    fputs("keep me", o);
    fclose(o);
}

static void remove_cmd_files(const cmd_files *f)
{
    remove(f->loop);
    remove(f->good);
    remove(f->out);
}

static void expect_output_kept(const cmd_files *f)
{
    char *kept = slurp(f->out);
    cr_expect_str_eq(kept, "keep me");
    free(kept);
}

/* show: the looping file is reported, the good one still shown. */
Test(hostile_loop, show_stops_at_the_time_limit_and_still_shows_the_good_file)
{
    cmd_files f;
    char *text;
    make_cmd_files(&f);
    int st = run(&text, "IOHW_READ_TIMEOUT=1", "show '%s' '%s'", f.loop, f.good);
    cr_expect_eq(st, 2, "%s", text);
    cr_expect_not_null(strstr(text, "took longer than 1 s (killed)"), "%s", text);
    cr_expect_not_null(strstr(text, ID), "%s", text);
    free(text);
    remove_cmd_files(&f);
}

/* Without IOHW_READ_TIMEOUT the limit follows the file's size: the small
 * looping file is given up at 5 s, not at the 60 s of a large file. */
Test(hostile_loop, show_gives_up_a_small_looping_file_in_seconds)
{
    cmd_files f;
    char *text;
    make_cmd_files(&f);
    int st = run(&text, "", "show '%s'", f.loop);
    cr_expect_eq(st, 2, "%s", text);
    cr_expect_not_null(strstr(text, "took longer than 5 s (killed)"), "%s", text);
    free(text);
    remove_cmd_files(&f);
}

/* oracle: the same message; an existing output is left as it was. */
Test(hostile_loop, oracle_stops_at_the_time_limit_and_leaves_the_output_as_it_was)
{
    cmd_files f;
    char *text;
    make_cmd_files(&f);
    int st = run(&text, "IOHW_READ_TIMEOUT=1", "oracle '%s' -o '%s'", f.loop, f.out);
    cr_expect_eq(st, 2, "%s", text);
    cr_expect_not_null(strstr(text, "took longer than 1 s (killed)"), "%s", text);
    expect_output_kept(&f);
    free(text);
    remove_cmd_files(&f);
}

/* A crash while reading gets the message `iohw run` gives. */
static int run_crashing(char **text, const cmd_files *f, const char *command)
{
    char env[700];
    snprintf(env, sizeof env, "IOHW_TEST_HOOK='crash:read:%s'", f->good);
    if (strcmp(command, "show") == 0)
        return run(text, env, "show '%s'", f->good);
    return run(text, env, "oracle '%s' -o '%s'", f->good, f->out);
}

Test(hostile_loop, show_names_a_crash_while_reading_as_run_does)
{
    cmd_files f;
    char *text;
    make_cmd_files(&f);
    int st = run_crashing(&text, &f, "show");
    cr_expect_eq(st, 2, "%s", text);
    cr_expect_not_null(strstr(text, "crashed the HDF5 library"), "%s", text);
    free(text);
    remove_cmd_files(&f);
}

Test(hostile_loop, oracle_names_a_crash_while_reading_and_leaves_the_output_as_it_was)
{
    cmd_files f;
    char *text;
    make_cmd_files(&f);
    int st = run_crashing(&text, &f, "oracle");
    cr_expect_eq(st, 2, "%s", text);
    cr_expect_not_null(strstr(text, "crashed the HDF5 library"), "%s", text);
    expect_output_kept(&f);
    free(text);
    remove_cmd_files(&f);
}

/* A run that completes no case leaves the output as it was too. */
Test(hostile_loop, an_oracle_run_that_completes_no_case_leaves_the_output_as_it_was)
{
    cmd_files f;
    char *text, bad[512];
    make_cmd_files(&f);
    tmp_path(bad, sizeof bad, "cmd-unwritten");
    write_unwritten(bad, 559236);
    int st = run(&text, "", "oracle '%s' -o '%s'", bad, f.out);
    cr_expect_eq(st, 2, "%s", text);
    cr_expect_not_null(strstr(text, "stores 0 bytes"), "%s", text);
    expect_output_kept(&f);
    free(text);
    remove(bad);
    remove_cmd_files(&f);
}

/* A finished oracle run replaces the output, and leaves no temporary file
 * behind. */
Test(hostile_loop, a_finished_oracle_run_replaces_the_output_and_leaves_no_temporary_file)
{
    cmd_files f;
    char *text;
    make_cmd_files(&f);
    int st = run(&text, "", "oracle '%s' -o '%s'", f.good, f.out);
    cr_expect_eq(st, 0, "%s", text);
    free(text);
    st = run(&text, "", "show '%s'", f.out);
    cr_expect_eq(st, 0, "%s", text);
    free(text);
    char prefix[128];
    snprintf(prefix, sizeof prefix, "hostile-%ld-cmd-out.h5.tmp-", (long)getpid());
    cr_expect_eq(count_prefixed(IOHW_TEST_TMP, prefix), 0);
    remove_cmd_files(&f);
}

Test(hostile_loop, a_run_reports_the_looping_file_invalid_and_runs_the_rest)
{
    char loop[512], good[512];
    tmp_path(loop, sizeof loop, "run-loop");
    tmp_path(good, sizeof good, "run-good");
    write_heap_loop(loop);
    write_base(good, IOHW_F32);
    char *text;
    int st = run(&text, "IOHW_READ_TIMEOUT=1",
                 "run --backend '%s/libiohw_reference.so' '%s' '%s' --jobs 1", IOHW_BACKEND_DIR,
                 good, loop);
    cr_expect_eq(st, 1, "%s", text);
    cr_expect_not_null(strstr(text, "took longer than 1 s (killed)"), "%s", text);
    cr_expect_not_null(strstr(text, "PASS"), "%s", text);
    free(text);
    remove(loop);
    remove(good);
}
