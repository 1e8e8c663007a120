# Writes OUTPUT, a C++ source holding every .tsv file of DATA_DIR as a string
# constant named after the file, so the tables travel inside the library. Run
# by the build (see CMakeLists.txt).
file(GLOB files RELATIVE "${DATA_DIR}" "${DATA_DIR}/*.tsv")
list(SORT files)
set(entries "")
foreach(name IN LISTS files)
  file(READ "${DATA_DIR}/${name}" text)
  string(REGEX REPLACE "\\.tsv$" "" stem "${name}")
  string(APPEND entries "    {\"${stem}\", R\"tsv(${text})tsv\"},\n")
endforeach()
set(content "// Generated from taxonomy/data/ by embed_tables.cmake.
#include \"taxonomy/internal/tables.h\"

namespace rtb::taxonomy::internal {

std::span<const Table> Tables() {
  static constexpr Table kTables[] = {
${entries}  };
  return kTables;
}

}  // namespace rtb::taxonomy::internal
")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" previous)
  if(previous STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${content}")
