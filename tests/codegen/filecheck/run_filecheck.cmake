# Compiles a spec with the real CLI, then runs FileCheck on the CUDA and the PTX.
#
#   cmake -DTILEJIT=<tilejit> -DFILECHECK=<FileCheck> -DSPEC=<spec.json> -DARCH=sm_90a
#         -DPREFIXES=CHECK,SM90 -DCUDA_CHECK=<x.cuda.check> -DPTX_CHECK=<x.ptx.check>
#         -DWORK=<scratch folder, emptied first> -P run_filecheck.cmake
#
# PREFIXES is FileCheck's --check-prefixes: CHECK lines hold for every target,
# SM90/SM100 lines for one.
cmake_minimum_required(VERSION 3.24)

foreach(var TILEJIT FILECHECK SPEC ARCH PREFIXES CUDA_CHECK PTX_CHECK WORK)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_filecheck.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK}")
execute_process(
  COMMAND "${TILEJIT}" compile "${SPEC}" --arch "${ARCH}" --emit cuda,ptx -o "${WORK}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tilejit compile ${SPEC} --arch ${ARCH} exited ${rc}:\n${out}${err}")
endif()

function(check_one kind pattern check_file)
  file(GLOB found "${WORK}/${pattern}")
  list(LENGTH found n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "expected one ${pattern} in ${WORK}, found ${n}: ${found}")
  endif()
  execute_process(
    COMMAND "${FILECHECK}" "--check-prefixes=${PREFIXES}" "${check_file}" "--input-file=${found}"
    RESULT_VARIABLE fc_rc OUTPUT_VARIABLE fc_out ERROR_VARIABLE fc_err)
  if(NOT fc_rc EQUAL 0)
    message(FATAL_ERROR "FileCheck of the ${kind} (${found}) against ${check_file} failed:\n${fc_out}${fc_err}")
  endif()
  message(STATUS "${kind}: ${found} matches ${check_file}")
endfunction()

check_one(CUDA "*.cu" "${CUDA_CHECK}")
check_one(PTX "*.ptx" "${PTX_CHECK}")
