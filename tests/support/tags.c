/*
 * tests/support/tags.c - tag lists (tags.h).
 */
#include "support/tags.h"
#include <string.h>

int iohw_test_has_tag(const char *tags, const char *tag)
{
    const size_t n = strlen(tag);
    for (const char *s = tags; s != NULL && *s != '\0';) {
        const char *comma = strchr(s, ',');
        const size_t len = comma != NULL ? (size_t)(comma - s) : strlen(s);
        if (len == n && strncmp(s, tag, n) == 0)
            return 1;
        s = comma != NULL ? comma + 1 : NULL;
    }
    return 0;
}
