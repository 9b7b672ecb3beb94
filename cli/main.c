/*
 * cli/main.c - the `iohw` command: the table of subcommands, dispatch,
 * `iohw help [SUBCOMMAND]`, `iohw --version`, and the small option helpers
 * the subcommands share (cli/cli.h).
 */
#include "cli/cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/case.h"
#include "harness/run.h"
#include "iohw/backend.h"

static int cmd_help(int argc, char **argv);

static const char help_help[] =
    "Usage: iohw help [SUBCOMMAND]\n"
    "\n"
    "Without an argument, lists the subcommands; with one, explains it (the same\n"
    "text as 'iohw SUBCOMMAND --help').\n"
    "\n"
    "Example:\n"
    "  iohw help gen\n";

/* The subcommands: one line each. */
static const iohw_cli_command commands[] = {
    {"gen", "write cases: one per --problem descriptor, or a suite (--profile)",
     iohw_cli_gen_help, iohw_cli_gen},
    {"oracle", "complete user-supplied cases (compute y, y_f64, err_bound)",
     iohw_cli_oracle_help, iohw_cli_oracle},
    {"show", "print the cases of a file; summarize a suite directory",
     iohw_cli_show_help, iohw_cli_show},
    {"run", "run cases against a backend in isolated worker processes",
     iohw_cli_run_help, iohw_cli_run},
    {"shrink", "reduce a failing case to a minimal one that fails the same way",
     iohw_cli_shrink_help, iohw_cli_shrink},
    {"fuzz", "run random edge-biased problems, shrink each new failure",
     iohw_cli_fuzz_help, iohw_cli_fuzz},
    {"report", "merge or diff JSON reports; make a baseline", iohw_cli_report_help, iohw_cli_report},
    {"import", "read other tools' test lists (ONNX node tests, benchdnn) as cases",
     iohw_cli_import_help, iohw_cli_import},
    {"help", "explain a subcommand", help_help, cmd_help},
    {"check", "judge an output computed elsewhere (an answer file) for one case",
     iohw_cli_check_help, iohw_cli_check},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const iohw_cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static void print_overview(FILE *f)
{
    fprintf(f,
            "Usage: iohw SUBCOMMAND [OPTIONS] [ARGUMENTS]\n"
            "       iohw help [SUBCOMMAND]\n"
            "       iohw --version\n"
            "\n"
            "iohw is a conformance test suite and reference oracle for transposed\n"
            "convolution (conv1d/2d/3d_transpose) with strict IOHW semantics.\n"
            "\n"
            "Subcommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\n"
            "Options:\n"
            "  -h, --help   this text\n"
            "  --version    the version, the backend ABI and the case schema\n"
            "\n"
            "Run 'iohw help SUBCOMMAND' for the options of one subcommand.\n"
            "Exit status: 0 success, 1 failing cases (run), 2 bad usage or bad input.\n"
            "\n"
            "Documentation (the docs/X.md the help texts cite; start with\n"
            "WRITING_A_BACKEND.md to test your own kernel): %s\n", iohw_cli_docs_dir());
}

/* --- helpers shared by the subcommands ---------------------------------- */

void iohw_cli_error(const char *fmt, ...)
{
    va_list ap;
    fputs("iohw: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int iohw_cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "iohw: %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'iohw help %s'.\n", cmd);
    return IOHW_EXIT_USAGE;
}

void iohw_cli_print_help(const char *cmd, FILE *f)
{
    const iohw_cli_command *c = find_command(cmd);
    if (c != NULL)
        fputs(c->help, f);
}

int iohw_cli_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int iohw_cli_option(const char *cmd, int argc, char **argv, int *i,
                    const char *long_name, const char *short_name,
                    const char **value)
{
    const char *arg = argv[*i];
    size_t n = strlen(long_name);

    if (strncmp(arg, long_name, n) == 0 && arg[n] == '=') {
        *value = arg + n + 1;
        return 1;
    }
    if (strcmp(arg, long_name) != 0 && (short_name == NULL || strcmp(arg, short_name) != 0))
        return 0;
    if (*i + 1 >= argc) {
        iohw_cli_usage(cmd, "option %s needs a value", arg);
        return -1;
    }
    *i += 1;
    *value = argv[*i];
    return 1;
}

int iohw_cli_parse_threads(const char *cmd, const char *text, int *threads)
{
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (text[0] == '\0' || end == NULL || *end != '\0' || v < 1 ||
        v > IOHW_JOBS_MAX) {
        iohw_cli_usage(cmd, "--threads '%s': expected an integer from 1 to %d",
                       text, IOHW_JOBS_MAX);
        return -1;
    }
    *threads = (int)v;
    return 0;
}

int iohw_cli_default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    return n > IOHW_JOBS_MAX ? IOHW_JOBS_MAX : (int)n;
}

/* --- help and dispatch --------------------------------------------------- */

/* 1 when the help of c shows "iohw NAME ACTION" (report merge, ...), so
 * its text explains the action too. */
static int names_action(const iohw_cli_command *c, const char *action)
{
    char usage[256];
    snprintf(usage, sizeof usage, "iohw %s %s", c->name, action);
    const char *at = strstr(c->help, usage);
    size_t n = strlen(usage);
    return action[0] != '-' && at != NULL && strchr(" |\n", at[n]) != NULL;
}

static int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stdout);
        return IOHW_EXIT_OK;
    }
    if (iohw_cli_is_help(argv[1])) {
        fputs(help_help, stdout);
        return IOHW_EXIT_OK;
    }
    const iohw_cli_command *c = find_command(argv[1]);
    if (argc > 3 || (argc == 3 && (c == NULL || !names_action(c, argv[2]))))
        return iohw_cli_usage("help", "expected a subcommand and at most one of its "
                              "actions (as 'iohw help report merge'), got '%s %s'",
                              argv[1], argv[2]);
    if (c == NULL) {
        iohw_cli_error("help: unknown subcommand '%s'", argv[1]);
        fprintf(stderr, "Try 'iohw help' for the list.\n");
        return IOHW_EXIT_USAGE;
    }
    fputs(c->help, stdout);
    return IOHW_EXIT_OK;
}

/* "unknown subcommand 'rn'; did you mean 'run'?" */
static void unknown_command(const char *name)
{
    const char *names[NCOMMANDS];
    for (size_t i = 0; i < NCOMMANDS; i++)
        names[i] = commands[i].name;
    const char *near = iohw_cli_nearest(name, names, (int)NCOMMANDS);
    if (near != NULL)
        iohw_cli_error("unknown subcommand '%s'; did you mean '%s'?", name, near);
    else
        iohw_cli_error("unknown subcommand '%s'", name);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        iohw_cli_error("missing subcommand");
        print_overview(stderr);
        return IOHW_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (iohw_cli_is_help(name)) {
        print_overview(stdout);
        return IOHW_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("iohw %s (backend ABI %u, case schema %d)\n", IOHW_VERSION_STRING,
               (unsigned)IOHW_ABI_VERSION, IOHW_SCHEMA_VERSION);
        return IOHW_EXIT_OK;
    }
    const iohw_cli_command *c = find_command(name);
    if (c == NULL) {
        if (name[0] == '-')
            iohw_cli_error("unknown option '%s'", name);
        else
            unknown_command(name);
        fprintf(stderr, "Try 'iohw help'.\n");
        return IOHW_EXIT_USAGE;
    }
    return c->run(argc - 1, argv + 1);
}
