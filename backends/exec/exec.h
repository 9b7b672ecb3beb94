/*
 * backends/exec/exec.h - the exec adapter's internal interface: the
 * command, running it, and the two files of the protocol
 * (docs/EXEC_PROTOCOL.md).
 */
#ifndef IOHW_EXEC_H
#define IOHW_EXEC_H

#include "iohw/backend.h"
#include "oracle/error.h"

/* Most words in IOHW_EXEC_COMMAND. */
#define EXEC_MAX_WORDS 32

/* The case id the adapter writes into IN.h5. */
#define EXEC_CASE_ID "case"

/* A command split into words; argv has room for 3 more arguments and the
 * terminating NULL. */
typedef struct exec_cmd {
    char *text;                       /* the words, NUL-separated */
    int argc;
    char *argv[EXEC_MAX_WORDS + 4];
} exec_cmd;

/* Splits text at blanks (no quoting, no shell).  -1 when it is empty, has
 * too many words or memory runs out. */
int iohw__exec_cmd_parse(const char *text, exec_cmd *cmd, iohw_error *err);
void iohw__exec_cmd_free(exec_cmd *cmd);

/* Runs the command with the extra arguments (NULL-terminated) appended,
 * stdin from /dev/null, stdout and stderr captured; waits for it.  0 when
 * it exited with status 0; -1 otherwise, err saying how it ended ("exited
 * with status 3", "was killed by signal 9 (Killed)", "cannot be executed")
 * followed by its output: all of it when short, else its first and last
 * few hundred bytes. */
int iohw__exec_spawn(const exec_cmd *cmd, const char *const *extra,
                     iohw_error *err);

/* Writes IN.h5: one case EXEC_CASE_ID (schema 1) holding the problem and
 * x, w, bias (NULL: zeros, for a --supports query); y, y_f64 and err_bound
 * are placeholders filled with NaN. */
int iohw__exec_write_input(const char *path, const iohw_problem *p,
                           const void *x, const void *w, const void *bias,
                           iohw_error *err);

/* Reads OUT.h5.  Returns 0 with y filled (need_y) or with nothing to read
 * (a query's answer "claimed"); 1 when the program said `unsupported`
 * (the reason in err); -1 on a missing or malformed file (err set). */
int iohw__exec_read_output(const char *path, const iohw_problem *p,
                           int need_y, void *y, iohw_error *err);

#endif
