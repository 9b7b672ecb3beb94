/*
 * cli/import.h - the importers of `iohw import FORMAT ...` (cli/cmd_import.c
 * dispatches on FORMAT through its IMPORTERS table): each reads a peer's
 * test list and writes iohw cases.
 */
#ifndef IOHW_CLI_IMPORT_H
#define IOHW_CLI_IMPORT_H

/* `iohw import onnx DIR... -o OUT.h5` (cli/import_onnx.c): ONNX node-test
 * folders whose graph is one ConvTranspose. */
extern const char iohw__import_onnx_help[];
int iohw__import_onnx(int argc, char **argv);

#endif
