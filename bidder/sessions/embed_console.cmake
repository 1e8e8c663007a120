# Writes OUTPUT, a C++ source holding every file of CONSOLE_DIR (one level,
# plain names) as byte arrays, so the bidder serves its console without
# depending on files next to the binary. Run by the build (see
# CMakeLists.txt); the file list is globbed again on every build.
file(GLOB files RELATIVE "${CONSOLE_DIR}" "${CONSOLE_DIR}/*")
list(SORT files)
set(arrays "")
set(entries "")
set(index 0)
foreach(name IN LISTS files)
  if(IS_DIRECTORY "${CONSOLE_DIR}/${name}" OR name MATCHES "^\\.")
    continue()
  endif()
  file(READ "${CONSOLE_DIR}/${name}" hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
  string(APPEND arrays "constexpr char kFile${index}[] = {${bytes} '\\0'};\n")
  string(APPEND entries "    {\"${name}\", std::string_view(kFile${index}, ${size})},\n")
  math(EXPR index "${index} + 1")
endforeach()
set(content "// Generated from bidder/sessions/console/ by embed_console.cmake.
#include \"bidder/sessions/internal/console_assets.h\"

namespace rtb::bidder::sessions::internal {
namespace {
${arrays}
}  // namespace

std::span<const ConsoleAsset> ConsoleAssets() {
  static constexpr ConsoleAsset kAssets[] = {
${entries}  };
  return kAssets;
}

}  // namespace rtb::bidder::sessions::internal
")
# Rewrite only on change, so an unchanged console does not recompile.
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" previous)
  if(previous STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${content}")
