// Every committed input of every fuzz target goes through its entry point in
// every build: the seeds of tests/fuzz/corpus/<target>/ and, above all, the
// inputs that once broke a target (kept there as regressions), plus the
// repository's own fixtures that seed the openrtb and config targets. An
// entry point aborts when its code breaks a promise, which fails the test;
// the file being replayed is printed before each run.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/fuzz/fuzz_targets.h"

namespace rtb::fuzz {
namespace {

namespace fs = std::filesystem;

struct Target {
  const char* name;
  int (*entry)(const uint8_t*, size_t);
  // Other directories of the repository whose files seed the target.
  std::vector<const char*> fixtures;
};

const std::vector<Target>& Targets() {
  static const std::vector<Target> targets = {
      {"http_request", FuzzHttpRequest, {}},
      {"openrtb", FuzzOpenRtbRequest, {"tests/fixtures/openrtb/requests"}},
      {"beacon_url", FuzzBeaconUrl, {}},
      {"thrift_server", FuzzThriftServer, {}},
      {"config", FuzzConfig, {"config"}},
      {"session_cookie", FuzzSessionCookie, {}},
      {"gorilla", bidder::telemetry::FuzzGorillaBlock, {}},
      {"tc_string", bidder::privacy::FuzzTcString, {}},
      {"gpp_string", bidder::privacy::FuzzGppString, {}},
      {"us_privacy", bidder::privacy::FuzzUsPrivacy, {}},
  };
  return targets;
}

std::vector<fs::path> FilesIn(const fs::path& directory) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(directory, ec)) {
    if (entry.is_regular_file() && entry.path().filename().string() != "README.md") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

class CorpusReplayTest : public ::testing::TestWithParam<Target> {};

TEST_P(CorpusReplayTest, EveryCommittedInputRunsCleanly) {
  const Target& target = GetParam();
  const fs::path root(RTB_SOURCE_DIR);
  std::vector<fs::path> files = FilesIn(root / "tests/fuzz/corpus" / target.name);
  ASSERT_FALSE(files.empty()) << "no corpus for " << target.name;
  for (const char* fixture : target.fixtures) {
    for (fs::path& file : FilesIn(root / fixture)) {
      if (file.extension() == ".json") files.push_back(std::move(file));
    }
  }
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const std::string input = bytes.str();
    std::fprintf(stderr, "replaying %s\n", file.lexically_relative(root).c_str());
    EXPECT_EQ(target.entry(reinterpret_cast<const uint8_t*>(input.data()), input.size()), 0)
        << file;
  }
  std::printf("%s: %zu inputs replayed\n", target.name, files.size());
}

INSTANTIATE_TEST_SUITE_P(Targets, CorpusReplayTest, ::testing::ValuesIn(Targets()),
                         [](const ::testing::TestParamInfo<Target>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace rtb::fuzz
