/*
 * tests/layering/internal_header.c - must NOT build (tests/check_layering.cmake):
 * compiled as a module that links the cases module, it includes that
 * module's internal HDF5 helpers, which no other module may reach.
 */
#include "cases/h5util.h"

int iohw_layering_internal(void);
int iohw_layering_internal(void)
{
    return IOHW_H5_STRING_MAX > 0;
}
