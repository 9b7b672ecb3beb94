/*
 * cli/cli.h - what the files of the `iohw` command share.
 *
 * Each subcommand lives in cli/cmd_<name>.c and exports a run function and
 * its help text; cli/main.c lists them in one table.  Adding a subcommand is
 * one declaration here and one line in that table.
 *
 * Conventions: a subcommand returns the process exit status (0 success,
 * 2 bad usage or bad input; `run` adds 1 for failing cases).  Messages go to
 * stderr prefixed "iohw: ", results to stdout.
 */
#ifndef IOHW_CLI_H
#define IOHW_CLI_H

#include <stdio.h>

#ifndef IOHW_VERSION_STRING
#define IOHW_VERSION_STRING "0.1.0"
#endif

#define IOHW_EXIT_OK 0
#define IOHW_EXIT_USAGE 2

/* One subcommand: argv[0] is the subcommand's name. */
typedef int (*iohw_cli_fn)(int argc, char **argv);

typedef struct iohw_cli_command {
    const char *name;
    const char *summary;  /* one line for `iohw help` */
    const char *help;     /* the full text of `iohw help NAME` */
    iohw_cli_fn run;
} iohw_cli_command;

/* --- subcommands --------------------------------------------------------- */

extern const char iohw_cli_gen_help[];
int iohw_cli_gen(int argc, char **argv);

extern const char iohw_cli_oracle_help[];
int iohw_cli_oracle(int argc, char **argv);

extern const char iohw_cli_show_help[];
int iohw_cli_show(int argc, char **argv);

extern const char iohw_cli_run_help[];
int iohw_cli_run(int argc, char **argv);

extern const char iohw_cli_report_help[];
int iohw_cli_report(int argc, char **argv);

extern const char iohw_cli_shrink_help[];
int iohw_cli_shrink(int argc, char **argv);

extern const char iohw_cli_fuzz_help[];
int iohw_cli_fuzz(int argc, char **argv);

extern const char iohw_cli_import_help[];
int iohw_cli_import(int argc, char **argv);

/* `iohw run --shrink` (cli/cmd_shrink.c): shrinks every FAIL, ERROR, CRASH
 * and TIMEOUT of a run and writes the minimal cases to DIR/shrunk.h5, DIR
 * being dir, or when NULL the folder of the report path near (NULL: the
 * current folder); prints each outcome.  Returns 0, or -1 after printing
 * why some case could not be shrunk or the file written. */
struct iohw_run_options;
struct iohw_run_results;
int iohw_cli_shrink_failures(const struct iohw_run_options *run,
                             const struct iohw_run_results *res,
                             const char *dir, const char *near);

/* --- outputs (cli/outputs.c) -------------------------------------------- */

/* The folder of path ("." when it has none or path is NULL), into buf. */
void iohw_cli_folder_of(const char *path, char *buf, size_t n);

/* Where `iohw run --shrink` writes: DIR/shrunk.h5, DIR being dir, or when
 * NULL the folder of the report path near (NULL: the current folder). */
void iohw_cli_shrink_path(const char *dir, const char *near, char *buf, size_t n);

/* Makes the folder dir and its missing parents (as mkdir -p) and checks
 * that files can be made in it; 0, or -1 after a message naming what (e.g.
 * "the JSON report") and the folder. */
int iohw_cli_writable_folder(const char *what, const char *dir);

/* The same for the folder of the file path (NULL: nothing to check), and
 * path itself when it exists: 0, or -1 after a message. */
int iohw_cli_writable_file(const char *what, const char *path);

/* --- suggestions (cli/suggest.c, cli/filter_tags.c) --------------------- */

/* Of the n names, the one nearest to word by edit distance when it is
 * close enough to be a typo of it (and not word itself), else NULL. */
const char *iohw_cli_nearest(const char *word, const char *const *names, int n);

/* The usage error for an unknown option arg of cmd: "unknown option
 * '--backnd'; did you mean '--backend'?", the candidates being the long
 * options that begin a line of help.  Returns IOHW_EXIT_USAGE. */
int iohw_cli_unknown_option(const char *cmd, const char *arg, const char *help);

/* After a filter selected no case: for each tag=NAME or tag!=NAME of filter
 * that no case of the inputs (case files, suite directories) carries,
 * prints "unknown tag 'NAME'" and the nearest tag they do carry.  Returns
 * how many such tags it named. */
int iohw_cli_unknown_tags(const char *filter, const char *const *inputs, int ninputs);

/* The folder holding the documentation the help texts cite as docs/X.md:
 * <prefix>/share/doc/iohw beside an installed iohw, else the source tree's
 * docs/ (cli/docs_dir.c). */
const char *iohw_cli_docs_dir(void);

/* --- helpers (cli/main.c) ------------------------------------------------ */

/* Prints "iohw: <message>" and a newline to stderr. */
void iohw_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "iohw: <cmd>: <message>", then the hint "Try 'iohw help <cmd>'.",
 * to stderr; returns IOHW_EXIT_USAGE. */
int iohw_cli_usage(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints the help text of a subcommand to f. */
void iohw_cli_print_help(const char *cmd, FILE *f);

/* 1 when arg is "-h" or "--help". */
int iohw_cli_is_help(const char *arg);

/* Matches argv[*i] against an option that takes a value, spelled
 * long_name ("--output"), long_name=VALUE, or short_name ("-o", may be
 * NULL) followed by the value.  Returns 1 and sets *value (advancing *i past
 * a separate value), 0 when argv[*i] is another option, or -1 after printing
 * a usage error when the value is missing. */
int iohw_cli_option(const char *cmd, int argc, char **argv, int *i,
                    const char *long_name, const char *short_name,
                    const char **value);

/* Parses the value of --threads: an integer in [1, IOHW_JOBS_MAX]
 * (harness/run.h).  Prints a usage error and returns -1 for anything else. */
int iohw_cli_parse_threads(const char *cmd, const char *text, int *threads);

/* The default of --threads: the number of online CPUs (at least 1, at most
 * IOHW_JOBS_MAX). */
int iohw_cli_default_threads(void);

#endif
