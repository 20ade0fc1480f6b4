# cmake -DINPUT=file -DOUTPUT=file.cpp -DNAMESPACE=ns -DFUNCTION=fn -P embed_text.cmake
# Writes a .cpp whose function returns INPUT's text as a std::string_view.
file(READ "${INPUT}" text)
set(delim "tj_embed_7f3a")
string(FIND "${text}" ")${delim}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter ${delim}")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT}; do not edit.\n#include <string_view>\nnamespace ${NAMESPACE} {\n"
  "std::string_view ${FUNCTION}() {\n  static constexpr char text[] = R\"${delim}(${text})${delim}\";\n"
  "  return std::string_view(text, sizeof(text) - 1);\n}\n}  // namespace ${NAMESPACE}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
