/* tests/fuzz/fuzz_descriptor.c - the descriptor parser (oracle/descriptor.h):
 * any text is parsed or refused with a message; what parses is a valid
 * problem whose canonical form parses back to the same problem. */
#include "fuzz.h"

#include "oracle/descriptor.h"
#include "oracle/problem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    iohw_desc d;
    iohw_error err = {{0}};
    if (iohw_desc_parse(text, &d, &err) == 0) {
        FUZZ_ASSERT(iohw_problem_validate(&d.p, NULL) == 0);
    } else {
        FUZZ_ASSERT(err.msg[0] != '\0');
    }
    free(text);
    return 0;
}
