/*
 * tests/support/shell.h - running a shell command from a test and keeping
 * its output.
 */
#ifndef IOHW_TEST_SHELL_H
#define IOHW_TEST_SHELL_H

/* Runs the command (printf-style) with stderr joined to stdout; returns the
 * exit status (-1 when it did not exit) and, when out is not NULL, the
 * output (malloc'd).  Fails the test when the command cannot be started. */
int iohw_test_sh(char **out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Writes the smoke suite (`BIN gen --profile smoke`) into dir unless it is
 * there: tests running in parallel share one, the first writes it (under
 * the lock dir.lock).  Fails the test when gen fails. */
void iohw_test_smoke(const char *bin, const char *dir);

#endif
