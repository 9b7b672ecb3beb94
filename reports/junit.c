/*
 * reports/junit.c - JUnit XML (`--junit F`), the format CI systems read.
 *
 * One <testsuite> per category (reports.h iohw_report_category), in the
 * order categories first appear, one <testcase> per result (classname =
 * category, name = case id).  A bad result carries <failure> or <error>, a
 * skipped one <skipped>, each with the status and message in the message
 * attribute and the whole story (message, diagnosis, repro command, first
 * mismatches) in the text; a PASS under a declared rounding (`--rounding`)
 * carries its note in <system-out>.  The counts of every element agree with its
 * children because both come from iohw_junit_kind_of.
 */
#include "reports/reports_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The one place statuses map to JUnit. */
iohw_junit_kind iohw_junit_kind_of(iohw_result_status s)
{
    switch (s) {
    case IOHW_RESULT_PASS:
        return IOHW_JUNIT_PASSED;
    case IOHW_RESULT_FAIL:
        return IOHW_JUNIT_FAILURE;
    case IOHW_RESULT_UNSUPPORTED:
    case IOHW_RESULT_WAIVED:
        return IOHW_JUNIT_SKIPPED;
    case IOHW_RESULT_ERROR:
    case IOHW_RESULT_CRASH:
    case IOHW_RESULT_TIMEOUT:
    case IOHW_RESULT_INVALID:
    default:
        return IOHW_JUNIT_ERROR;
    }
}

typedef struct suite {
    char name[160];
    int64_t tests, kind[4];
    double time;
} suite;

/* The case's wall time; in a performance run (--repeat) the measured
 * time of run() (its median). */
static double case_time(const iohw_run_results *r, int64_t i)
{
    double t = r->items[i].repeat > 0 ? r->items[i].time_ms * 1e-3
               : r->wall != NULL && r->wall[i] > 0 ? r->wall[i]
                                                    : r->items[i].seconds;
    return isfinite(t) && t > 0 ? t : 0;
}

/* The text of a <failure>, <error> or <skipped>. */
static void write_details(FILE *f, const iohw_run_results *r, int64_t i,
                          const iohw_report_options *o)
{
    const iohw_result *c = &r->items[i];
    char line[16384];
    iohw__xml_text(f, iohw_result_status_name(c->status), 0);
    iohw__xml_text(f, ": ", 0);
    iohw__xml_text(f, c->message, 0);
    fputc('\n', f);
    if (c->diagnosis[0] != '\0') {
        iohw__xml_text(f, "diagnosis: ", 0);
        iohw__xml_text(f, c->diagnosis, 0);
        fputc('\n', f);
    }
    iohw__xml_text(f, "descriptor: ", 0);
    iohw__xml_text(f, c->descriptor, 0);
    iohw__xml_text(f, "\ntags: ", 0);
    iohw__xml_text(f, c->tags, 0);
    fputc('\n', f);
    if (c->elements > 0) {
        iohw_result_worst_error(c, line, sizeof line);
        fprintf(f, "mismatches: %lld of %lld elements (%lld unwritten), ",
                (long long)c->mismatches, (long long)c->elements,
                (long long)c->unwritten);
        iohw__xml_text(f, line, 0);
        fputs(c->exact ? " (exact case: bit equality required)\n" : "\n", f);
    }
    for (int k = 0; k < c->npoints && k < IOHW_RESULT_POINTS; k++) {
        const iohw_point *p = &c->points[k];
        fprintf(f, "  at (n=%lld, c=%lld, d=%lld, h=%lld, w=%lld): expected %.9g, "
                   "got %.9g, difference %.3g, allowed %.3g\n",
                (long long)p->coord[0], (long long)p->coord[1],
                (long long)p->coord[2], (long long)p->coord[3],
                (long long)p->coord[4], p->expected, p->got,
                p->got - p->expected, p->bound);
    }
    iohw__repro(o, c, line, sizeof line);
    if (line[0] != '\0') {
        iohw__xml_text(f, "__REPRO: ", 0);
        iohw__xml_text(f, line, 0);
        fputc('\n', f);
    }
}

static void write_case(FILE *f, const iohw_run_results *r, int64_t i,
                       const char *category, const iohw_report_options *o)
{
    static const char *const element[] = {NULL, "failure", "error", "skipped"};
    const iohw_result *c = &r->items[i];
    iohw_junit_kind kind = iohw_junit_kind_of(c->status);
    const char *message = iohw_text_fmt("%s: %s%s%s",
                                        iohw_result_status_name(c->status), c->direction,
                                        c->direction[0] != '\0' ? ": " : "", c->message);

    fputs("    <testcase classname=\"", f);
    iohw__xml_text(f, category, 1);
    fputs("\" name=\"", f);
    iohw__xml_text(f, c->case_id[0] != '\0' ? c->case_id : c->file, 1);
    fprintf(f, "\" time=\"%.6f\" file=\"", case_time(r, i));
    iohw__xml_text(f, c->file, 1);
    if (kind == IOHW_JUNIT_PASSED && !iohw_result_rounded(c)) {
        fputs("\"/>\n", f);
        return;
    }
    if (kind == IOHW_JUNIT_PASSED) { /* a declared rounding: the note */
        fputs("\">\n      <system-out>", f);
        iohw__xml_text(f, message, 0);
        fputs("</system-out>\n    </testcase>\n", f);
        return;
    }
    fprintf(f, "\">\n      <%s message=\"", element[kind]);
    iohw__xml_text(f, message, 1);
    fprintf(f, "\" type=\"%s\">", iohw_result_status_name(c->status));
    write_details(f, r, i, o);
    fprintf(f, "</%s>\n    </testcase>\n", element[kind]);
}

int iohw_report_junit(FILE *f, const iohw_run_results *r,
                      const iohw_report_options *o)
{
    static const iohw_report_options none;
    if (o == NULL)
        o = &none;
    /* Categories in the order they first appear, with their counts. */
    suite *s = calloc((size_t)(r->count > 0 ? r->count : 1), sizeof *s);
    int64_t *of = calloc((size_t)(r->count > 0 ? r->count : 1), sizeof *of);
    int64_t ns = 0;
    if (s == NULL || of == NULL) {
        free(s);
        free(of);
        return -1;
    }
    for (int64_t i = 0; i < r->count; i++) {
        char name[160];
        iohw_report_category(&r->items[i], name, sizeof name);
        int64_t k = ns - 1;
        /* Results come grouped by file and id, so the last suite usually
         * matches; otherwise search. */
        if (k < 0 || strcmp(s[k].name, name) != 0)
            for (k = 0; k < ns && strcmp(s[k].name, name) != 0; k++)
                ;
        if (k == ns)
            snprintf(s[ns++].name, sizeof s[0].name, "%s", name);
        of[i] = k;
        s[k].tests++;
        s[k].kind[iohw_junit_kind_of(r->items[i].status)]++;
        s[k].time += case_time(r, i);
    }
    int64_t total[4] = {0};
    double time = 0;
    for (int64_t k = 0; k < ns; k++) {
        for (int j = 0; j < 4; j++)
            total[j] += s[k].kind[j];
        time += s[k].time;
    }

    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<testsuites name=\"iohw\" tests=\"%lld\" failures=\"%lld\" "
               "errors=\"%lld\" skipped=\"%lld\" time=\"%.6f\">\n",
            (long long)r->count, (long long)total[IOHW_JUNIT_FAILURE],
            (long long)total[IOHW_JUNIT_ERROR], (long long)total[IOHW_JUNIT_SKIPPED],
            r->seconds > 0 && isfinite(r->seconds) ? r->seconds : time);
    for (int64_t k = 0; k < ns; k++) {
        fputs("  <testsuite name=\"", f);
        iohw__xml_text(f, s[k].name, 1);
        fprintf(f, "\" tests=\"%lld\" failures=\"%lld\" errors=\"%lld\" "
                   "skipped=\"%lld\" time=\"%.6f\">\n",
                (long long)s[k].tests, (long long)s[k].kind[IOHW_JUNIT_FAILURE],
                (long long)s[k].kind[IOHW_JUNIT_ERROR],
                (long long)s[k].kind[IOHW_JUNIT_SKIPPED], s[k].time);
        fputs("    <properties>\n      <property name=\"backend\" value=\"", f);
        iohw__xml_text(f, r->backend_name, 1);
        fputs("\"/>\n      <property name=\"backend_version\" value=\"", f);
        iohw__xml_text(f, r->backend_version, 1);
        fputs("\"/>\n      <property name=\"cpu\" value=\"", f);
        iohw__xml_text(f, r->machine.cpu, 1);
        fputs("\"/>\n      <property name=\"cpu_features\" value=\"", f);
        iohw__xml_text(f, r->machine.features, 1);
        fputs("\"/>\n    </properties>\n", f);
        for (int64_t i = 0; i < r->count; i++)
            if (of[i] == k)
                write_case(f, r, i, s[k].name, o);
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
    free(s);
    free(of);
    return ferror(f) ? -1 : 0;
}
