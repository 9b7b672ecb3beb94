/* tests/fuzz/fuzz_report.c - the JSON report reader (reports/json_read.c):
 * what it accepts is drawn as every report (the HTML heat maps included,
 * where a tampered report once overflowed the stack) and written back as
 * JSON that reads again. */
#include "fuzz.h"

#include <stdio.h>

#include "reports/reports.h"

static void render(int (*fn)(FILE *, const iohw_run_results *, const iohw_report_options *),
                   const iohw_report *rep, char **text, size_t *len)
{
    FILE *f = open_memstream(text, len);
    FUZZ_ASSERT(f != NULL);
    fn(f, &rep->results, &rep->options);
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    iohw_report rep;
    iohw_error err = {{0}};
    if (iohw_report_parse((const char *)data, size, "fuzz", &rep, &err) != 0) {
        FUZZ_ASSERT(err.msg[0] != '\0');
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    render(iohw_report_html, &rep, &text, &len);
    free(text);
    render(iohw_report_junit, &rep, &text, &len);
    free(text);
    render(iohw_report_markdown, &rep, &text, &len);
    free(text);
    render(iohw_report_json, &rep, &text, &len);
    iohw_report again;
    FUZZ_ASSERT(iohw_report_parse(text, len, "again", &again, &err) == 0);
    FUZZ_ASSERT(again.results.count == rep.results.count);
    iohw_report_free(&again);
    free(text);
    iohw_report_free(&rep);
    return 0;
}
