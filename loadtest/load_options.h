// Command-line options of rtb-load.
#ifndef RTB_LOADTEST_LOAD_OPTIONS_H_
#define RTB_LOADTEST_LOAD_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rtb::loadtest {

struct LoadOptions {
  std::string host = "127.0.0.1";  // loopback only
  int port = 8080;
  std::string path = "/openrtb2/bid";
  double rate = 1000;      // requests per second, open loop
  double duration_s = 10;  // sending time, warm-up included
  double warmup_s = 2;     // not measured
  double drain_s = 2;      // wait for answers after the last send
  int connections = 64;    // keep-alive connections
  // Bid requests to send: each entry a JSON file, or a directory whose
  // *.json files are taken (--requests PATH[,PATH...]).
  std::vector<std::string> requests;
  int64_t devices = 100000;  // device population
  double zipf = 1.1;         // Zipf exponent of device popularity
  uint64_t seed = 1;
  // Share of the bids received whose win notice (nurl, then burl if
  // present) is fired, on loopback only, as an exchange does for bids that
  // win; 0 fires none. In [0, 1].
  double win_rate = 0;
  // Bids whose notices wait or are being fired at most; a bid chosen
  // beyond that is dropped and counted, so a slow beacon side never grows
  // the queue without bound.
  int notice_queue = 1000;
  int notice_connections = 4;  // keep-alive connections for notices
};

// Sending time at most, seconds: long enough for an hour bucket of telemetry
// to close and be packed.
inline constexpr double kMaxDurationS = 86400;

absl::StatusOr<LoadOptions> ParseLoadOptions(int argc, char** argv);
const char* LoadUsage();

}  // namespace rtb::loadtest

#endif  // RTB_LOADTEST_LOAD_OPTIONS_H_
