/*
 * bench/bench_exec.c - the exec backend's cost per case, protocol 1 (a
 * process per case) beside protocol 2 (one program serving requests), in
 * one run, with a trivial program, next to the in-process oracle's time
 * for the same problem.
 *
 * The trivial program is this file (started as `bench_exec --program`): it
 * computes nothing and answers a run by copying IN.h5 to OUT.h5, whose
 * /cases/case/y placeholder has the right type and shape (docs/
 * EXEC_PROTOCOL.md, OUT.h5 form 2).  So the time per case is what the
 * protocol costs: writing IN.h5, starting (1) or asking (2) the program,
 * its copy, reading OUT.h5.  The outputs are NaN and are not judged.
 *
 * Usage: bench_exec [--reps N] [--backends DIR]
 *   default: 50 runs per problem and protocol (after one warm-up run), the
 *   backends built next to this program (../backends).
 */
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"
#include "cases/case.h"
#include "generators/generators.h"
#include "sandbox/loader.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"

#define MAX_REPS 1000

static const char *const PROBLEMS[] = {
    "ci=2 co=3 in=5x4 k=3",
    "n=1 ci=16 co=16 in=32x32 k=4 s=2 pad=1 bias=1",
    "n=1 ci=64 co=32 in=32x32 k=4 s=2 pad=1 bias=1",
};

/* --- the trivial program ------------------------------------------------- */

static int copy_file(const char *from, const char *to)
{
    char buf[65536];
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC,
                                              0600);
    ssize_t k = 0;
    while (in >= 0 && out >= 0 && (k = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)k) != k)
            k = -1;
    int rc = in >= 0 && out >= 0 && k == 0 ? 0 : -1;
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
    return rc;
}

static void reply(const char *text)
{
    uint32_t n = (uint32_t)strlen(text);  /* little-endian on x86-64 */
    if (write(1, &n, 4) != 4 || write(1, text, n) != (ssize_t)n)
        exit(1);
}

/* Protocol 2: requests on stdin until end of file. */
static int serve(void)
{
    static char req[65536 + 1];
    uint32_t n;
    while (read(0, &n, 4) == 4 && n < sizeof req) {
        size_t got = 0;
        while (got < n) {
            ssize_t k = read(0, req + got, n - got);
            if (k <= 0)
                return 1;
            got += (size_t)k;
        }
        req[n] = '\0';
        char *in = strchr(req, '\n'), *out = in != NULL ? strchr(in + 1, '\n')
                                                        : NULL;
        if (in != NULL)
            *in++ = '\0';
        if (out != NULL)
            *out++ = '\0';
        if (strcmp(req, "describe") == 0)
            reply("ok\nname=bench_exec\nversion=trivial\nprotocols=1 2\n");
        else if (strcmp(req, "run") == 0 && out != NULL)
            reply(copy_file(in, out) == 0 ? "ok" : "error\ncannot copy");
        else
            reply("ok");
    }
    return 0;
}

static int program(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[2], "--describe") == 0) {
        printf("name=bench_exec\nversion=trivial\nprotocols=1 2\n");
        return 0;
    }
    if (argc == 3 && strcmp(argv[2], "--serve") == 0)
        return serve();
    if (argc == 5 && strcmp(argv[2], "--supports") == 0)
        return 0;
    return argc == 4 ? copy_file(argv[2], argv[3]) != 0 : 2;
}

/* --- the benchmark -------------------------------------------------------- */

/* Median ms of reps runs after a warm-up; < 0 when a run fails. */
static double time_runs(const iohw_loaded_backend *lb, const iohw_case *c,
                        int reps)
{
    static double t[MAX_REPS];
    const iohw_problem *p = &c->p;
    void *y = malloc((size_t)iohw_problem_y_count(p) * iohw_dtype_size(p->dtype));
    double ms = -1.0;
    if (y == NULL || lb->table->supports(lb->ctx, p) != IOHW_OK ||
        lb->table->run(lb->ctx, p, c->x, c->w, c->bias, y) != IOHW_OK) {
        fprintf(stderr, "bench_exec: %s: %s\n", lb->table->name,
                iohw_backend_last_error(lb));
        free(y);
        return ms;
    }
    for (int k = 0; k < reps; k++) {
        double t0 = bench_now();
        if (lb->table->run(lb->ctx, p, c->x, c->w, c->bias, y) != IOHW_OK)
            break;
        t[k] = bench_now() - t0;
        if (k == reps - 1) {
            qsort(t, (size_t)reps, sizeof t[0], bench_cmp_double);
            ms = 1e3 * t[reps / 2];
        }
    }
    free(y);
    return ms;
}

/* Loads lib<name>.so from dir, for exec with protocol (NULL: not exec). */
static int load(const char *dir, const char *name, const char *protocol,
                iohw_loaded_backend *lb)
{
    char path[1200];
    iohw_error err;
    if (protocol != NULL)
        setenv("IOHW_EXEC_PROTOCOL", protocol, 1);
    snprintf(path, sizeof path, "%s/lib%s.so", dir, name);
    if (iohw_backend_load(path, lb, &err) != 0) {
        fprintf(stderr, "bench_exec: %s\n", err.msg);
        return -1;
    }
    printf("%-12s %s %s\n", protocol == NULL ? "oracle" : protocol[0] == '1'
           ? "protocol 1" : "protocol 2", lb->table->name, lb->table->version);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--program") == 0)
        return program(argc, argv);
    int reps = 50;
    char dir[1024] = "", self[1024], command[1100];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--backends") == 0 && i + 1 < argc) {
            snprintf(dir, sizeof dir, "%s", argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--reps N] [--backends DIR]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "bench_exec: --reps must be 1 to %d\n", MAX_REPS);
        return 2;
    }
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) {
        fprintf(stderr, "bench_exec: cannot find itself\n");
        return 2;
    }
    self[k] = '\0';
    snprintf(command, sizeof command, "%s --program", self);
    setenv("IOHW_EXEC_COMMAND", command, 1);
    if (dir[0] == '\0')
        snprintf(dir, sizeof dir, "%s/../backends", dirname(self));

    iohw_loaded_backend lb[3];
    if (load(dir, "iohw_reference", NULL, &lb[0]) != 0 ||
        load(dir, "iohw_exec", "1", &lb[1]) != 0 ||
        load(dir, "iohw_exec", "2", &lb[2]) != 0)
        return 2;
    printf("\nmedian of %d runs, ms per case; the exec columns are the whole "
           "run() with a program that computes nothing\n", reps);
    printf("%-50s %10s %12s %12s\n", "problem", "oracle", "protocol 1",
           "protocol 2");
    for (size_t i = 0; i < sizeof PROBLEMS / sizeof PROBLEMS[0]; i++) {
        iohw_desc d;
        iohw_case c;
        iohw_error err;
        if (iohw_desc_parse(PROBLEMS[i], &d, &err) != 0 ||
            iohw_make_case(&d, "bench", NULL, 1, &c, &err) != 0) {
            fprintf(stderr, "bench_exec: '%s': %s\n", PROBLEMS[i], err.msg);
            return 1;
        }
        printf("%-50s", PROBLEMS[i]);
        for (int b = 0; b < 3; b++)
            printf(" %*.3f", b == 0 ? 10 : 12, time_runs(&lb[b], &c, reps));
        printf("\n");
        iohw_case_free(&c);
    }
    for (int b = 0; b < 3; b++)
        iohw_backend_unload(&lb[b]);
    return 0;
}
