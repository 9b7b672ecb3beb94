# tests/check_layering.cmake - a module reaches another only through that
# module's public headers (docs/ARCHITECTURE.md).  Run by ctest as
#   cmake -DBUILD=<build dir> -P check_layering.cmake
# It builds two probe targets compiled as a module would be
# (tests/layering/): one that includes every public header must build, one
# that includes the cases module's internal cases/h5util.h must fail, and
# fail because that header is not found.  Then the walls (WALLS, a comma
# list of probe=header from tests/CMakeLists.txt): each probe is compiled
# as one module and includes a header of a module it does not link, and
# must fail the same way, so no module reaches up or sideways.
foreach(probe iohw_layering_public iohw_layering_internal)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD} --target ${probe}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  set(rc_${probe} ${rc})
  set(out_${probe} "${out}")
endforeach()
if(NOT rc_iohw_layering_public EQUAL 0)
  message(FATAL_ERROR "the public headers do not build from the public "
                      "include folders alone:\n${out_iohw_layering_public}")
endif()
if(rc_iohw_layering_internal EQUAL 0)
  message(FATAL_ERROR "cases/h5util.h, internal to cases/, was reachable "
                      "from another module")
endif()
if(NOT out_iohw_layering_internal MATCHES
       "cases/h5util\\.h'?:? (No such file|file not found)")
  message(FATAL_ERROR "the internal-header probe failed, but not because "
                      "cases/h5util.h was out of reach:\n"
                      "${out_iohw_layering_internal}")
endif()
string(REPLACE "," ";" walls "${WALLS}")
foreach(wall ${walls})
  string(REPLACE "=" ";" pair ${wall})
  list(GET pair 0 probe)
  list(GET pair 1 header)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD} --target ${probe}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(REPLACE "." "\\." header_re ${header})
  if(rc EQUAL 0)
    message(FATAL_ERROR "${probe}: ${header} was reachable")
  endif()
  if(NOT out MATCHES "${header_re}'?:? (No such file|file not found)")
    message(FATAL_ERROR "${probe} failed, but not because ${header} was "
                        "out of reach:\n${out}")
  endif()
endforeach()
message(STATUS "public headers build alone; cases/h5util.h is out of reach; "
               "walls hold: ${WALLS}")
