/*
 * tests/support/tags.h - whether a case's comma-separated tag list holds a
 * tag (the tags of an iohw_result or of a manifest line).
 */
#ifndef IOHW_TEST_TAGS_H
#define IOHW_TEST_TAGS_H

/* 1 when the comma-separated list tags (may be NULL) has tag exactly. */
int iohw_test_has_tag(const char *tags, const char *tag);

#endif
