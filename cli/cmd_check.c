/*
 * cli/cmd_check.c - `iohw check`: the judge's verdict on an output computed
 * elsewhere (a Python function, a notebook), read from an answer file in
 * the exec protocol's OUT.h5 form (docs/EXEC_PROTOCOL.md), with the rules
 * of `iohw run` (specification section 3 for float cases, 11 for quantized
 * ones, 13 for backward ones) and its diagnosis.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/answer.h"
#include "cases/case.h"
#include "cli/cli.h"
#include "judge/judge.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"
#include "results/result.h"

const char iohw_cli_check_help[] =
    "Usage: iohw check CASEFILE --id CASE --y OUT.h5 [--json] [--backend NAME]\n"
    "\n"
    "Judges an output computed outside `iohw run` against the case CASE of\n"
    "CASEFILE, as `iohw run` would (comparison, diagnosis of a failure).\n"
    "OUT.h5 is an answer file in the exec protocol's form (docs/EXEC_PROTOCOL.md,\n"
    "section OUT.h5): the dataset /y (backward: /dx, or /dw and /db) in the\n"
    "case's dtype and layouts.\n"
    "\n"
    "Options:\n"
    "  --id CASE       the case's id in CASEFILE\n"
    "  --y OUT.h5      the answer file\n"
    "  --json          print the result as one JSON object (status, message,\n"
    "                  diagnosis, worst_ratio, counts, points, repro)\n"
    "  --backend NAME  the backend named in the repro line (default: LIB)\n"
    "\n"
    "Prints the failure block of `iohw run` (or PASS and the case id).  Exit\n"
    "status 0 for a PASS, 1 for any other verdict, 2 for bad usage or input.\n";

typedef struct check_args {
    const char *file, *id, *y, *backend;
    int json;
} check_args;

static int parse(int argc, char **argv, check_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int has = i + 1 < argc;
        if (strcmp(s, "--json") == 0) {
            a->json = 1;
        } else if (strcmp(s, "--id") == 0 && has) {
            a->id = argv[++i];
        } else if (strcmp(s, "--y") == 0 && has) {
            a->y = argv[++i];
        } else if (strcmp(s, "--backend") == 0 && has) {
            a->backend = argv[++i];
        } else if (s[0] == '-' || a->file != NULL) {
            fprintf(stderr, "iohw: check: unexpected argument '%s' "
                    "(see `iohw help check`)\n", s);
            return -1;
        } else {
            a->file = s;
        }
    }
    if (a->file == NULL || a->id == NULL || a->y == NULL) {
        fprintf(stderr, "iohw: check: needs CASEFILE, --id CASE and --y OUT.h5 "
                "(see `iohw help check`)\n");
        return -1;
    }
    return 0;
}

static void json_str(FILE *out, const char *key, const char *s)
{
    fprintf(out, "\"%s\": \"", key);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputs("\", ", out);
}

/* The failure block of `iohw run` (its console's form): status, case,
 * problem, message, diagnosis, first mismatches, repro line. */
static void print_block(FILE *out, const char *backend, const iohw_result *r)
{
    char repro[16384];
    fprintf(out, "%s ", iohw_result_status_name(r->status));
    if (r->direction[0] != '\0')
        fprintf(out, "%s ", r->direction);
    fprintf(out, "%s (%s)\n", r->case_id, r->file);
    fprintf(out, "  problem:   %s\n", r->descriptor);
    if (r->message[0] != '\0')
        fprintf(out, "  message:   %s\n", r->message);
    if (r->diagnosis[0] != '\0')
        fprintf(out, "  diagnosis: %s\n", r->diagnosis);
    if (r->npoints > 0)
        fprintf(out, "  first mismatches (of %lld):\n"
                "    %5s %5s %5s %5s %5s %16s %16s %12s %12s\n",
                (long long)r->mismatches, "n", "c", "d", "h", "w", "expected",
                "got", "diff", "bound");
    for (int i = 0; i < r->npoints && i < IOHW_RESULT_POINTS; i++) {
        const iohw_point *p = &r->points[i];
        const int digits = r->exact && p->expected == floor(p->expected) ? 17 : 9;
        fprintf(out, "    %5lld %5lld %5lld %5lld %5lld %16.*g %16.*g %12.4g %12.4g\n",
                (long long)p->coord[0], (long long)p->coord[1],
                (long long)p->coord[2], (long long)p->coord[3],
                (long long)p->coord[4], digits, p->expected, digits, p->got,
                p->got - p->expected, p->bound);
    }
    if (iohw_repro_command(backend, r, repro, (int)sizeof repro) >= 0)
        fprintf(out, "  __REPRO: %s\n", repro);
}

static void print_json(FILE *out, const check_args *a, const iohw_result *r)
{
    char repro[16384] = "";
    if (iohw_repro_command(a->backend, r, repro, (int)sizeof repro) < 0)
        repro[0] = '\0';
    fputc('{', out);
    json_str(out, "status", iohw_result_status_name(r->status));
    json_str(out, "case_id", r->case_id);
    json_str(out, "file", r->file);
    json_str(out, "descriptor", r->descriptor);
    json_str(out, "message", r->message);
    json_str(out, "diagnosis", r->diagnosis);
    json_str(out, "repro", repro);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem != NULL) {
        print_block(mem, a->backend, r);
        fclose(mem);
        json_str(out, "block", text);
        free(text);
    }
    fprintf(out, "\"exact\": %d, \"elements\": %lld, \"mismatches\": %lld, "
            "\"unwritten\": %lld, \"worst_ratio\": %.17g, \"points\": [",
            r->exact, (long long)r->elements, (long long)r->mismatches,
            (long long)r->unwritten, r->worst_ratio);
    for (int i = 0; i < r->npoints; i++) {
        const iohw_point *p = &r->points[i];
        fprintf(out, "%s{\"index\": %lld, \"coord\": [%lld, %lld, %lld, %lld, "
                "%lld], \"expected\": %.17g, \"got\": %.17g, \"bound\": %.17g}",
                i ? ", " : "", (long long)p->index, (long long)p->coord[0],
                (long long)p->coord[1], (long long)p->coord[2],
                (long long)p->coord[3], (long long)p->coord[4], p->expected,
                p->got, p->bound);
    }
    fputs("]}\n", out);
}

/* Reads the answer and judges it into r; -1 when the answer file is not
 * one (r INVALID with err's message is not wanted: bad input is exit 2). */
static int judge_answer(const check_args *a, const iohw_case *c, iohw_result *r)
{
    int64_t n = iohw_problem_out_count(&c->p);
    void *y = calloc((size_t)(n > 0 ? n : 1), 8);
    char *why = NULL;
    iohw_error err = {{0}};
    if (y == NULL) {
        fprintf(stderr, "iohw: check: out of memory for y\n");
        return -1;
    }
    int rc = iohw_answer_read(a->y, &c->p, a->id, 1, y, &why, &err);
    iohw_judge_options o = {1, 0, 0};
    if (rc == 1) {
        r->status = IOHW_RESULT_UNSUPPORTED;
        r->message = iohw_text_keep(why ? why : "");
    } else if (rc == 2) {
        r->status = IOHW_RESULT_ERROR;
        r->message = iohw_text_keep(err.msg);
        iohw_judge_call_error(c, y, NULL, err.msg, &o, r);
    } else if (rc == 0) {
        iohw_judge(c, y, NULL, &o, r);
    } else {
        fprintf(stderr, "iohw: check: %s\n", err.msg);
    }
    free(why);
    free(y);
    return rc < 0 ? -1 : 0;
}

static int check_case(const check_args *a, iohw_result *r)
{
    iohw_error err = {{0}};
    iohw_case c;
    memset(&c, 0, sizeof c);
    iohw_case_file *f = iohw_case_file_open(a->file, &err);
    if (f == NULL || iohw_case_file_read(f, a->id, IOHW_READ_ALL, &c, &err) != 0) {
        fprintf(stderr, "iohw: check: %s\n", err.msg);
        if (f != NULL)
            iohw_case_file_close(f, NULL);
        return -1;
    }
    r->case_id = iohw_text_keep(a->id);
    r->file = iohw_text_keep(a->file);
    r->descriptor = iohw_text_keep(c.descriptor);
    r->tags = iohw_text_keep(c.tags);
    int rc = judge_answer(a, &c, r);
    iohw_case_free(&c);
    iohw_case_file_close(f, NULL);
    return rc;
}

int iohw_cli_check(int argc, char **argv)
{
    check_args a;
    if (parse(argc, argv, &a) != 0)
        return IOHW_EXIT_USAGE;
    iohw_result *r = calloc(1, sizeof *r);
    if (r != NULL)
        iohw_result_init(r);
    if (r == NULL || check_case(&a, r) != 0) {
        free(r);
        return IOHW_EXIT_USAGE;
    }
    if (a.json)
        print_json(stdout, &a, r);
    else if (iohw_result_status_bad(r->status))
        print_block(stdout, a.backend, r);
    else
        printf("%s %s\n", iohw_result_status_name(r->status), r->case_id);
    int bad = r->status != IOHW_RESULT_PASS;
    free(r);
    return bad;
}
