/* tests/fuzz/fuzz_journal.c - the journal's line, the result record
 * (results/record.h): what decodes encodes and decodes back to itself,
 * and draws as a heat map (what `iohw run --resume` feeds the reports). */
#include "fuzz.h"

#include <stdio.h>

#include "results/journal.h"
#include "reports/reports.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    iohw_result r, back;
    iohw_error err = {{0}};
    if (iohw_record_decode((const char *)data, size, &r, &err) != 0) {
        FUZZ_ASSERT(err.msg[0] != '\0');
        return 0;
    }
    /* A decoded record encodes and decodes to itself (bytes that are not
     * UTF-8 became U+FFFD on the first round), every member kept. */
    static iohw_result back2;
    size_t room = iohw_record_size(&r) + 1;
    char *line = malloc(room);
    FUZZ_ASSERT(line != NULL);
    FUZZ_ASSERT(iohw_journal_format(&r, line, room) > 0);
    FUZZ_ASSERT(iohw_journal_parse(line, &back, &err) == 0);
    FUZZ_ASSERT(back.npoints == r.npoints && back.status == r.status);
    FUZZ_ASSERT(memcmp(back.errmap, r.errmap, sizeof r.errmap) == 0);
    free(line);
    room = iohw_record_size(&back) + 1;
    line = malloc(room);
    FUZZ_ASSERT(line != NULL);
    FUZZ_ASSERT(iohw_journal_format(&back, line, room) > 0);
    FUZZ_ASSERT(iohw_journal_parse(line, &back2, &err) == 0);
    FUZZ_ASSERT(memcmp(&back, &back2, sizeof back) == 0);
    free(line);
    iohw_run_results rr = {.items = &r, .count = 1};
    char *html = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&html, &len);
    FUZZ_ASSERT(f != NULL);
    iohw_report_html(f, &rr, NULL);
    fclose(f);
    free(html);
    return 0;
}
