/* tests/fuzz/fuzz_baseline.c - the baseline reader (reports/reports.h,
 * through its public function): any text is read or refused with a
 * message naming the line. */
#include "fuzz.h"

#include "reports/reports.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    iohw_baseline b;
    iohw_error err = {{0}};
    if (iohw_baseline_parse(text, "fuzz", &b, &err) == 0)
        iohw_baseline_free(&b);
    else
        FUZZ_ASSERT(err.msg[0] != '\0');
    free(text);
    return 0;
}
