/*
 * tests/test_cli_messages.c - the messages a new user meets when a word is
 * slightly wrong: "did you mean" for a mistyped option of every subcommand
 * and a mistyped subcommand, an unknown filter tag with the nearest tag the
 * cases carry, a descriptor written with commas, `iohw help report merge`,
 * and `iohw help` naming where the documentation is.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/shell.h"

/* Runs "iohw ARGS", expects status want and each fragment in the output. */
static void expect(int want, const char *args, const char *frag1, const char *frag2)
{
    char *out = NULL;
    int rc = iohw_test_sh(&out, "'%s' %s", IOHW_BIN, args);
    cr_expect_eq(rc, want, "iohw %s: status %d:\n%s", args, rc, out);
    if (frag1 != NULL)
        cr_expect(strstr(out, frag1) != NULL, "iohw %s: no '%s' in:\n%s", args, frag1, out);
    if (frag2 != NULL)
        cr_expect(strstr(out, frag2) != NULL, "iohw %s: no '%s' in:\n%s", args, frag2, out);
    free(out);
}

Test(cli_messages, a_mistyped_option_of_every_subcommand_gets_the_nearest_one)
{
    expect(2, "run --backnd x.so suite", "unknown option '--backnd'; did you mean '--backend'?",
           NULL);
    expect(2, "run suite --jsn=r.json", "did you mean '--json'?", NULL);
    expect(2, "gen --profil smoke -o s", "did you mean '--profile'?", NULL);
    expect(2, "show --hlep x.h5", "did you mean '--help'?", NULL);
    expect(2, "oracle in.h5 --definitoin -o out.h5", "did you mean '--definition'?", NULL);
    expect(2, "shrink --backnd x.so c.h5", "did you mean '--backend'?", NULL);
    expect(2, "fuzz --backnd x.so -o d", "did you mean '--backend'?", NULL);
    expect(2, "report merge a.json --junt j.xml -o m.json", "did you mean '--junit'?", NULL);
    expect(2, "report diff a.json b.json --flor 2", "did you mean '--floor'?", NULL);
    expect(2, "rn", "unknown subcommand 'rn'; did you mean 'run'?", NULL);
}

Test(cli_messages, an_option_far_from_every_known_one_gets_no_guess)
{
    char *out = NULL;
    int rc = iohw_test_sh(&out, "'%s' run --zzzzzzzz x", IOHW_BIN);
    cr_expect_eq(rc, 2);
    cr_expect(strstr(out, "unknown option '--zzzzzzzz'") != NULL, "%s", out);
    cr_expect(strstr(out, "did you mean") == NULL, "%s", out);
    free(out);
}

Test(cli_messages, an_unknown_filter_tag_is_named_with_the_nearest_known_tag)
{
    const char *file = IOHW_TEST_TMP "/messages_dilated.h5";
    char *out = NULL;
    int rc = iohw_test_sh(&out, "'%s' gen --problem 'ci=2 co=2 in=5 k=3 d=2' -o '%s'",
                          IOHW_BIN, file);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char args[512];
    snprintf(args, sizeof args, "run --list '%s' --filter 'rank=1, tag = dilate'", file);
    expect(0, args, "unknown tag 'dilate'; did you mean 'dilated'?", "no case selected");
    snprintf(args, sizeof args, "run --backend '%s/libiohw_reference.so' '%s' --quiet "
             "--filter tag=dilate", IOHW_BACKEND_DIR, file);
    expect(1, args, "unknown tag 'dilate'; did you mean 'dilated'?", "no case selected");
    /* A tag the case carries, with another condition selecting nothing,
     * is no typo; a tag near none of them gets no guess. */
    snprintf(args, sizeof args, "run --list '%s' --filter tag=dilated,rank=2", file);
    rc = iohw_test_sh(&out, "'%s' %s", IOHW_BIN, args);
    cr_expect(strstr(out, "unknown tag") == NULL, "%s", out);
    cr_expect(strstr(out, "no case selected") != NULL, "%s", out);
    free(out);
    snprintf(args, sizeof args, "run --list '%s' --filter tag=zzzzzz", file);
    expect(0, args, "unknown tag 'zzzzzz': no case carries it", NULL);
}

Test(cli_messages, a_descriptor_with_commas_says_keys_are_separated_by_spaces)
{
    expect(2, "gen --problem 'ci=4,co=6,in=5,k=3' -o " IOHW_TEST_TMP "/messages_commas.h5",
           "keys are separated by spaces, not commas", NULL);
}

Test(cli_messages, help_of_a_report_action_prints_the_report_help)
{
    expect(0, "help report merge", "Usage: iohw report merge", "merge: unites");
    expect(2, "help report mrge", "expected a subcommand and at most one of its actions",
           NULL);
    expect(2, "help run merge", NULL, NULL);
}

Test(cli_messages, help_names_a_documentation_folder_that_exists)
{
    char *out = NULL;
    int rc = iohw_test_sh(&out, "'%s' help", IOHW_BIN);
    cr_assert_eq(rc, 0, "%s", out);
    const char *at = strstr(out, "to test your own kernel): ");
    cr_assert(at != NULL, "%s", out);
    char dir[1024];
    cr_assert_eq(sscanf(at + strlen("to test your own kernel): "), "%1023s", dir), 1);
    free(out);
    rc = iohw_test_sh(&out, "test -f '%s/WRITING_A_BACKEND.md'", dir);
    cr_expect_eq(rc, 0, "'%s' has no WRITING_A_BACKEND.md", dir);
    free(out);
}
