/* tests/fuzz/fuzz_baseline.c - the baseline reader (reports/reports.h,
 * through its public function): any text is read or refused with a
 * message naming the line; what is read has its conditions evaluated. */
#include "fuzz.h"

#include <stdio.h>

#include "reports/reports.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    iohw_baseline b;
    iohw_error err = {{0}};
    if (iohw_baseline_parse(text, "fuzz", &b, &err) == 0) {
        /* Its conditions are evaluated against a machine and a version. */
        iohw_run_results r;
        memset(&r, 0, sizeof r);
        r.backend_version = "oneDNN 2.6.3 (ISA avx2)";
        snprintf(r.machine.features, sizeof r.machine.features, "fma avx2 avx512_vnni");
        iohw_baseline_apply(&b, &r);
        FUZZ_ASSERT(iohw_baseline_stale_count(&b) <= b.count);
        iohw_baseline_free(&b);
    } else
        FUZZ_ASSERT(err.msg[0] != '\0');
    free(text);
    return 0;
}
