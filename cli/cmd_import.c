/*
 * cli/cmd_import.c - `iohw import FORMAT ...`: the peers' test lists as
 * iohw cases (specification section 14), one importer per format
 * (cli/import.h).
 */
#include "cli/cli.h"
#include "cli/import.h"

#include <string.h>

typedef struct importer_entry {
    const char *name;
    const char *help;
    int (*run)(int argc, char **argv);
} importer_entry;

static const importer_entry IMPORTERS[] = {
    {"benchdnn", iohw__import_benchdnn_help, iohw__import_benchdnn},
};
#define NIMPORTERS (sizeof IMPORTERS / sizeof IMPORTERS[0])

const char iohw_cli_import_help[] =
    "Usage: iohw import FORMAT [ARGUMENTS] -o OUT.h5\n"
    "\n"
    "Reads another tool's test list and writes its problems as iohw cases.\n"
    "Formats:\n"
    "  benchdnn   oneDNN benchdnn's deconvolution descriptors and batch files\n"
    "\n"
    "'iohw import FORMAT --help' explains one.\n"
    "\n"
    "Example:\n"
    "  iohw import benchdnn 'mb2ic16ih7oc16oh14kh3sh2ph1n\"up\"' -o up.h5\n";

int iohw_cli_import(int argc, char **argv)
{
    if (argc < 2)
        return iohw_cli_usage("import", "missing the format (benchdnn)");
    if (iohw_cli_is_help(argv[1])) {
        fputs(iohw_cli_import_help, stdout);
        return IOHW_EXIT_OK;
    }
    for (size_t i = 0; i < NIMPORTERS; i++)
        if (strcmp(argv[1], IMPORTERS[i].name) == 0)
            return IMPORTERS[i].run(argc - 1, argv + 1);
    return iohw_cli_usage("import", "'%s' is not a format iohw imports (benchdnn)",
                          argv[1]);
}
