/*
 * cli/cmd_import.c - `iohw import FORMAT ...`: reads another tool's test
 * list (ONNX's node tests, benchdnn's descriptors) and writes iohw cases, dispatching on
 * FORMAT through the IMPORTERS table.
 */
#include "cli/cli.h"

#include <string.h>

#include "cli/import.h"

typedef struct importer {
    const char *name;
    const char *help;
    int (*fn)(int argc, char **argv);
} importer;

/* One row per format. */
static const importer IMPORTERS[] = {
    {"onnx", iohw__import_onnx_help, iohw__import_onnx},
    {"benchdnn", iohw__import_benchdnn_help, iohw__import_benchdnn},
};
#define NIMPORTERS (sizeof IMPORTERS / sizeof IMPORTERS[0])

const char iohw_cli_import_help[] =
    "Usage: iohw import FORMAT ARGUMENTS... -o OUT.h5\n"
    "\n"
    "Reads another tool's test list and writes it as iohw cases, completed by\n"
    "the oracle.  'iohw import FORMAT --help' explains a format.  Formats:\n"
    "  onnx       ONNX node-test folders (model.onnx, test_data_set_N/*.pb)\n"
    "             whose graph is one ConvTranspose\n"
    "  benchdnn   oneDNN benchdnn's deconvolution descriptors and batch files\n"
    "\n"
    "Example:\n"
    "  iohw import onnx /usr/share/libonnx-testdata/data/node/test_convtranspose* "
    "-o onnx.h5\n"
    "  iohw import benchdnn 'mb2ic16ih7oc16oh14kh3sh2ph1n\"up\"' -o up.h5\n";

int iohw_cli_import(int argc, char **argv)
{
    if (argc < 2 || iohw_cli_is_help(argv[1])) {
        fputs(iohw_cli_import_help, argc < 2 ? stderr : stdout);
        return argc < 2 ? IOHW_EXIT_USAGE : IOHW_EXIT_OK;
    }
    for (size_t i = 0; i < NIMPORTERS; i++)
        if (strcmp(argv[1], IMPORTERS[i].name) == 0)
            return IMPORTERS[i].fn(argc - 1, argv + 1);
    return iohw_cli_usage("import", "unknown format '%s' (onnx, benchdnn)", argv[1]);
}
