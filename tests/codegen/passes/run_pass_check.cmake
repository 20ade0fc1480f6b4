# The IR right after one pass, as `TILEJIT_DUMP_IR=<pass> tilejit compile` prints it,
# against a FileCheck file: one pass's rewrite checked on its own, as Triton's lit tests
# check one pass. The .check file's first line names the spec and the pass:
#   // RUN: <spec under samples/specs> <pass>
#
#   cmake -DTILEJIT=<tilejit> -DFILECHECK=<FileCheck> -DSPECS=<samples/specs> -DCHECK_FILE=<x.check>
#         -DWORK=<scratch folder, emptied first> -P run_pass_check.cmake
cmake_minimum_required(VERSION 3.24)

foreach(var TILEJIT FILECHECK SPECS CHECK_FILE WORK)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_pass_check.cmake: -D${var}=... is required")
  endif()
endforeach()

file(STRINGS "${CHECK_FILE}" run_line LIMIT_COUNT 1 REGEX "^// RUN: ")
if(NOT run_line MATCHES "^// RUN: ([^ ]+) ([a-z_]+)$")
  message(FATAL_ERROR "${CHECK_FILE}: the first line must read '// RUN: <spec> <pass>', not '${run_line}'")
endif()
set(spec "${SPECS}/${CMAKE_MATCH_1}")
set(pass "${CMAKE_MATCH_2}")

file(REMOVE_RECURSE "${WORK}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env "TILEJIT_DUMP_IR=${pass}" "${TILEJIT}" compile "${spec}" --arch sm_90a --emit cuda -o "${WORK}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE ir)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "TILEJIT_DUMP_IR=${pass} tilejit compile ${spec} exited ${rc}:\n${out}${ir}")
endif()
if(NOT ir MATCHES "// ---- IR after ${pass} ----")
  message(FATAL_ERROR "tilejit printed no IR after '${pass}' (is it a pass of pass_names()?):\n${ir}")
endif()
file(WRITE "${WORK}/after_${pass}.ir" "${ir}")
execute_process(
  COMMAND "${FILECHECK}" "${CHECK_FILE}" "--input-file=${WORK}/after_${pass}.ir"
  RESULT_VARIABLE fc_rc OUTPUT_VARIABLE fc_out ERROR_VARIABLE fc_err)
if(NOT fc_rc EQUAL 0)
  message(FATAL_ERROR "FileCheck of the IR after ${pass} (${WORK}/after_${pass}.ir) against ${CHECK_FILE} failed:\n${fc_out}${fc_err}")
endif()
message(STATUS "the IR after ${pass} of ${spec} matches ${CHECK_FILE}")
