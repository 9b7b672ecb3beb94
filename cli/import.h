/*
 * cli/import.h - the importers of `iohw import FORMAT ...` (cli/cmd_import.c
 * dispatches on FORMAT through its IMPORTERS table): each reads a peer's
 * test list and writes iohw cases (specification sections 12 and 14).
 */
#ifndef IOHW_CLI_IMPORT_H
#define IOHW_CLI_IMPORT_H

/* benchdnn's deconvolution descriptors and batch files
 * (cli/import_benchdnn.c). */
extern const char iohw__import_benchdnn_help[];
int iohw__import_benchdnn(int argc, char **argv);

/* `iohw import onnx DIR... -o OUT.h5` (cli/import_onnx.c): ONNX node-test
 * folders whose graph is one ConvTranspose. */
extern const char iohw__import_onnx_help[];
int iohw__import_onnx(int argc, char **argv);

#endif
