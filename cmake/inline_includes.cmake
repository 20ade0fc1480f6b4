# cmake -DINPUT=file -DOUTPUT=file -P inline_includes.cmake
# Writes INPUT with every line `#include "name"` replaced by the text of the file `name`
# beside INPUT, byte for byte: the result is one self-contained header (NVRTC receives
# the device prelude as one in-memory header). One level only, and no other #include
# may be left: the prelude names no toolkit header.
file(READ "${INPUT}" text)
get_filename_component(dir "${INPUT}" DIRECTORY)
string(REGEX MATCHALL "#include \"[^\"\n]+\"" lines "${text}")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^#include \"(.+)\"$" "\\1" name "${line}")
  if(NOT EXISTS "${dir}/${name}")
    message(FATAL_ERROR "${INPUT} includes \"${name}\", which is not in ${dir}")
  endif()
  file(READ "${dir}/${name}" part)
  string(FIND "${part}" "#include" nested)
  if(NOT nested EQUAL -1)
    message(FATAL_ERROR "${dir}/${name} has an #include: only ${INPUT} may include, one level deep")
  endif()
  string(REPLACE "#include \"${name}\"\n" "${part}" text "${text}")
endforeach()
string(FIND "${text}" "#include" left)
if(NOT left EQUAL -1)
  message(FATAL_ERROR "${INPUT} has an #include that is not a line `#include \"name\"` of a file beside it")
endif()
file(WRITE "${OUTPUT}.tmp" "${text}")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
