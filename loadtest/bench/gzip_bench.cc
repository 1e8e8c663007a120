// The cost of a gzip answer (bidder/http/gzip_response.h): each iteration
// compresses one bid answer of the request corpus, taking the answers in
// turn, at the level given as the argument (1, the bidder's, beside 6 and 9).
// The answers are the ones the bid handler gives the corpus, written to a
// folder by the exchange-server checks; loadtest/run-gzip-benchmark.sh writes
// them and runs this:
//
//   RTB_ANSWERS_DIR=<folder> build/loadtest/bench/gzip_bench
//
// Counters: answer_bytes and gzip_bytes, the mean size of an answer before and
// after; saved_bytes, their difference.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "bidder/http/gzip_response.h"

namespace rtb::bidder {
namespace {

// Every file under $RTB_ANSWERS_DIR, read once.
const std::vector<std::string>& CorpusAnswers() {
  static const std::vector<std::string> answers = [] {
    std::vector<std::string> read;
    const char* dir = std::getenv("RTB_ANSWERS_DIR");
    if (dir == nullptr) return read;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream file(entry.path());
      std::stringstream text;
      text << file.rdbuf();
      read.push_back(text.str());
    }
    return read;
  }();
  return answers;
}

void BM_GzipBidAnswer(benchmark::State& state) {
  const std::vector<std::string>& answers = CorpusAnswers();
  if (answers.empty()) {
    state.SkipWithError("no answers: set RTB_ANSWERS_DIR (loadtest/run-gzip-benchmark.sh)");
    return;
  }
  const int level = static_cast<int>(state.range(0));
  std::string body;
  size_t next = 0;
  double answer_bytes = 0;
  double gzip_bytes = 0;
  for (auto _ : state) {
    const std::string& answer = answers[next];
    next = next + 1 == answers.size() ? 0 : next + 1;
    body.assign(answer);
    if (!GzipInPlace(&body, level).ok()) state.SkipWithError("gzip failed");
    benchmark::DoNotOptimize(body.data());
    answer_bytes += static_cast<double>(answer.size());
    gzip_bytes += static_cast<double>(body.size());
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["answers"] = static_cast<double>(answers.size());
  state.counters["answer_bytes"] = answer_bytes / n;
  state.counters["gzip_bytes"] = gzip_bytes / n;
  state.counters["saved_bytes"] = (answer_bytes - gzip_bytes) / n;
}
BENCHMARK(BM_GzipBidAnswer)->Arg(1)->Arg(6)->Arg(9);

// The copy each iteration above makes, alone: subtract it.
void BM_CopyBidAnswer(benchmark::State& state) {
  const std::vector<std::string>& answers = CorpusAnswers();
  if (answers.empty()) {
    state.SkipWithError("no answers: set RTB_ANSWERS_DIR (loadtest/run-gzip-benchmark.sh)");
    return;
  }
  std::string body;
  size_t next = 0;
  for (auto _ : state) {
    body.assign(answers[next]);
    next = next + 1 == answers.size() ? 0 : next + 1;
    benchmark::DoNotOptimize(body.data());
  }
}
BENCHMARK(BM_CopyBidAnswer);

}  // namespace
}  // namespace rtb::bidder

BENCHMARK_MAIN();
