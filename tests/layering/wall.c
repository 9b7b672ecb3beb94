/*
 * tests/layering/wall.c - must NOT build (tests/check_layering.cmake):
 * compiled as one module (IOHW_WALL_MODULE's include folders), it includes
 * IOHW_WALL_HEADER, the header of a module above it or beside it that it
 * does not link, which must not be found.
 */
#include IOHW_WALL_HEADER

int iohw_layering_wall(void);
int iohw_layering_wall(void)
{
    return 0;
}
