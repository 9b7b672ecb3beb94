/*
 * reports/write.c - writing every report a run asked for.
 */
#include "reports/reports_internal.h"

#include <errno.h>
#include <string.h>

typedef int (*writer_fn)(FILE *f, const iohw_run_results *r,
                         const iohw_report_options *o);

static int write_one(const char *path, const char *what, writer_fn fn,
                     const iohw_run_results *r, const iohw_report_options *o,
                     iohw_error *err)
{
    if (path == NULL)
        return 0;
    if (strcmp(path, "-") == 0) {
        if (fn(stdout, r, o) != 0 || fflush(stdout) != 0)
            return iohw_error_set(err, "%s report: cannot write to stdout", what);
        return 0;
    }
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return iohw_error_set(err, "%s report %s: %s", what, path, strerror(errno));
    int rc = fn(f, r, o);
    int e = errno;
    if (fclose(f) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0)
        return iohw_error_set(err, "%s report %s: %s", what, path,
                              e != 0 ? strerror(e) : "write error");
    return 0;
}

int iohw_reports_write(const iohw_run_results *r, const iohw_report_options *o,
                       iohw_error *err)
{
    if (r == NULL || o == NULL)
        return iohw_error_set(err, "reports: %s is NULL", r == NULL ? "r" : "o");
    if (write_one(o->junit, "JUnit", iohw_report_junit, r, o, err) != 0 ||
        write_one(o->json, "JSON", iohw_report_json, r, o, err) != 0 ||
        write_one(o->html, "HTML", iohw_report_html, r, o, err) != 0 ||
        write_one(o->markdown, "Markdown", iohw_report_markdown, r, o, err) != 0)
        return -1;
    return 0;
}
