// The repository stands on its own: no tracked file refers to a path above
// the repository root (a user's clone has nothing beside it), and none names
// a directory of a particular machine.
//
// A reference above the root is a run of "../" segments that climbs past the
// root from where it starts. Where it starts depends on what precedes it:
//   - a variable naming the root (${PROJECT_SOURCE_DIR}, ${CMAKE_SOURCE_DIR},
//     $ROOT, ${ROOT}): the root;
//   - another variable or command ($HERE, ${CMAKE_CURRENT_SOURCE_DIR},
//     $(dirname ...), ${project.basedir}): the file's own folder, which is
//     what those name in this repository;
//   - nothing, or literal folders: the file's folder (and those folders).
// Absolute paths and URLs ("/console/../x") are not repository paths.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace rtb {
namespace {

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (!text.empty()) {
    const size_t at = text.find(separator);
    if (at != 0) parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  return parts;
}

// Strings that look like paths above the root but are data: each with why.
struct Allowed {
  std::string_view file;
  std::string_view text;
};
constexpr Allowed kAllowed[] = {
    // A time zone name the config validator must refuse.
    {"tests/config/campaign_validation_test.cc", "../../../etc/passwd"},
    // Inputs of this test itself.
    {"tests/repository/repository_paths_test.cc", "../"},
};

std::vector<std::string> TrackedFiles() {
  std::vector<std::string> files;
  const std::string command = std::string("git -C '") + RTB_SOURCE_DIR + "' ls-files -z";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return files;
  std::string out;
  char buffer[65536];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) out.append(buffer, n);
  if (pclose(pipe) != 0) return {};
  for (std::string_view name : Split(out, '\0')) {
    files.emplace_back(name);
  }
  return files;
}

bool ReadText(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  *text = content.str();
  return text->find('\0') == std::string::npos;  // binary files hold no paths we check
}

int FolderDepth(std::string_view file) {
  int depth = 0;
  for (char c : file) depth += c == '/';
  return depth;
}

bool IsPathChar(char c) {
  return c != ' ' && c != '\t' && c != '"' && c != '\'' && c != '`' && c != '(' && c != '<' &&
         c != '>' && c != '[' && c != '=' && c != ',' && c != ':';
}

// Literal folder names in `prefix` after its last variable, e.g. 2 for
// "$HERE/a/b/".
int LiteralFolders(std::string_view prefix) {
  size_t variable_end = prefix.find_last_of("})$");
  if (variable_end != std::string_view::npos && prefix[variable_end] == '$') {
    // $NAME: the name is the variable's, not a folder.
    while (variable_end + 1 < prefix.size() && prefix[variable_end + 1] != '/') ++variable_end;
  }
  std::string_view literal =
      variable_end == std::string_view::npos ? prefix : prefix.substr(variable_end + 1);
  int folders = 0;
  for (std::string_view part : Split(literal, '/')) {
    folders += part == "." ? 0 : 1;
  }
  return folders;
}

bool NamesTheRoot(std::string_view prefix) {
  for (std::string_view root : {"PROJECT_SOURCE_DIR}", "CMAKE_SOURCE_DIR}", "$ROOT", "${ROOT}"}) {
    if (Contains(prefix, root)) return true;
  }
  return false;
}

// Each reference in `text` (of tracked file `file`) that climbs above the root.
std::vector<std::string> ClimbsAboveTheRoot(const std::string& file, std::string_view text) {
  std::vector<std::string> found;
  for (size_t at = text.find(".."); at != std::string_view::npos; at = text.find("..", at + 2)) {
    if (at > 0 && text[at - 1] != '/' && IsPathChar(text[at - 1])) continue;  // "a..", "..."
    if (at + 2 < text.size() && text[at + 2] != '/' && IsPathChar(text[at + 2])) continue;
    if (at > 0 && text[at - 1] == '.') continue;
    size_t start = at;
    while (start > 0 && IsPathChar(text[start - 1])) --start;
    const std::string_view prefix = text.substr(start, at - start);
    if (!prefix.empty() && (prefix.front() == '/' || Contains(prefix, "//"))) continue;
    int ups = 0;
    size_t end = at;
    while (text.substr(end, 2) == "..") {
      ++ups;
      end += 2;
      if (end < text.size() && text[end] == '/') ++end;
    }
    const int base = (NamesTheRoot(prefix) ? 0 : FolderDepth(file)) + LiteralFolders(prefix);
    if (ups <= base) {
      at = end - 2;
      continue;
    }
    size_t stop = end;
    while (stop < text.size() && IsPathChar(text[stop])) ++stop;
    const std::string reference(text.substr(start, stop - start));
    bool allowed = false;
    for (const Allowed& a : kAllowed) {
      allowed = allowed || (a.file == file && Contains(reference, a.text));
    }
    if (!allowed) found.push_back(reference);
    at = end - 2;
  }
  return found;
}

TEST(RepositoryPathsTest, TheCheckSeesReferencesAboveTheRoot) {
  EXPECT_EQ(ClimbsAboveTheRoot("README.md", "see ../outside/x"),
            std::vector<std::string>{"../outside/x"});
  EXPECT_EQ(ClimbsAboveTheRoot("tests/a/CMakeLists.txt", R"(D="${PROJECT_SOURCE_DIR}/../outside")"),
            std::vector<std::string>{"${PROJECT_SOURCE_DIR}/../outside"});
  EXPECT_EQ(ClimbsAboveTheRoot("loadtest/run.sh", "X=${X:-$ROOT/../outside/openrtb}").size(), 1u);
  EXPECT_EQ(ClimbsAboveTheRoot("deploy/hbase/h.sh", "I=$HERE/../../../x").size(), 1u);
  EXPECT_EQ(ClimbsAboveTheRoot("a/b.cc", R"(#include "../../c.h")").size(), 1u);
  // Inside the repository, or not a path of ours.
  EXPECT_TRUE(ClimbsAboveTheRoot("deploy/hbase/h.sh", "I=$HERE/../../storage/x").empty());
  EXPECT_TRUE(
      ClimbsAboveTheRoot("deploy/r.sh", R"(ROOT=$(cd "$(dirname "$0")/.." && pwd))").empty());
  EXPECT_TRUE(ClimbsAboveTheRoot("a/b.cc", R"(#include "../c.h")").empty());
  EXPECT_TRUE(ClimbsAboveTheRoot("a/b.cc", R"(Get("/console/../CMakeLists.txt"))").empty());
  EXPECT_TRUE(ClimbsAboveTheRoot("a/b.md", "`.../id<digits>` and a.. b").empty());
  EXPECT_TRUE(ClimbsAboveTheRoot("x.md", "https://example.com/a/../b").empty());
}

TEST(RepositoryPathsTest, NoTrackedFileRefersAboveTheRepositoryRoot) {
  const std::vector<std::string> files = TrackedFiles();
  ASSERT_GT(files.size(), 100u) << "cannot list the tracked files of " << RTB_SOURCE_DIR
                                << " (git ls-files): the check needs a git checkout";
  for (const std::string& file : files) {
    std::string text;
    if (!ReadText(std::string(RTB_SOURCE_DIR) + "/" + file, &text)) continue;
    for (const std::string& reference : ClimbsAboveTheRoot(file, text)) {
      ADD_FAILURE() << file << " refers above the repository root: " << reference;
    }
  }
}

TEST(RepositoryPathsTest, NoTrackedFileNamesAMachinesHomeOrWorkDirectory) {
  const std::vector<std::string> files = TrackedFiles();
  ASSERT_GT(files.size(), 100u);
  for (const std::string& file : files) {
    if (file == "tests/repository/repository_paths_test.cc") continue;
    std::string text;
    if (!ReadText(std::string(RTB_SOURCE_DIR) + "/" + file, &text)) continue;
    for (std::string_view directory : {"/home/", "/Users/", "/work/"}) {
      EXPECT_FALSE(Contains(text, directory)) << file << " names " << directory;
    }
  }
}

}  // namespace
}  // namespace rtb
