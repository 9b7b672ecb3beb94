/*
 * reports/write.c - writing every report a run asked for, each under a
 * temporary name renamed into place when complete (cases/atomic.h): a
 * failed or killed run leaves an existing report as it was.
 */
#include "reports/reports_internal.h"

#include "cases/atomic.h"

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
    /* Under a temporary name, renamed into place once whole. */
    char tmp[4200];
    iohw_error e = {{0}};
    FILE *f = iohw_atomic_fopen(path, tmp, sizeof tmp, &e);
    if (f == NULL)
        return iohw_error_set(err, "%s report %s", what, e.msg);
    errno = 0;
    int rc = fn(f, r, o);
    int code = errno;
    if (rc != 0) {
        iohw_atomic_fclose(f, 0, tmp, path, NULL);
        return iohw_error_set(err, "%s report %s: %s", what, path,
                              code != 0 ? strerror(code) : "write error");
    }
    if (iohw_atomic_fclose(f, 1, tmp, path, &e) != 0)
        return iohw_error_set(err, "%s report %s", what, e.msg);
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
