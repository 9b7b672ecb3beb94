/*
 * cli/import.h - `iohw import FORMAT ...`: the peers' test lists as iohw
 * cases (specification section 14).  One importer per format.
 */
#ifndef IOHW_CLI_IMPORT_H
#define IOHW_CLI_IMPORT_H

/* benchdnn's deconvolution descriptors and batch files
 * (cli/import_benchdnn.c). */
extern const char iohw__import_benchdnn_help[];
int iohw__import_benchdnn(int argc, char **argv);

#endif
