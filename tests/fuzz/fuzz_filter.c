/* tests/fuzz/fuzz_filter.c - the --filter parser (harness/filter.h): any
 * expression is parsed or refused with a message; what parses is matched
 * against a case without harm. */
#include "fuzz.h"

#include "harness/filter.h"
#include "oracle/problem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    iohw_error err = {{0}};
    iohw_filter *f = iohw_filter_parse(text, &err);
    if (f == NULL) {
        FUZZ_ASSERT(err.msg[0] != '\0');
    } else {
        iohw_case c;
        memset(&c, 0, sizeof c);
        strcpy(c.id, "ct2d.pairwise.f32.0001");
        iohw_problem_init(&c.p);
        c.p.rank = 2;
        char tags[] = "rank2,f32,grouped", desc[] = "ci=4 co=4 g=2 in=3x3 k=2x2";
        c.tags = tags;
        c.descriptor = desc;
        int m = iohw_filter_match(f, &c);
        FUZZ_ASSERT(m == 0 || m == 1);
        iohw_filter_free(f);
    }
    free(text);
    return 0;
}
