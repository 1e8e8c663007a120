#include "loadtest/load_options.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace rtb::loadtest {

const char* LoadUsage() {
  return "usage: rtb-load [--host 127.0.0.1] [--port 8080] [--path /openrtb2/bid]\n"
         "                [--rate R] [--duration S] [--warmup S] [--drain S]\n"
         "                [--connections C] --requests PATH[,PATH...] [--devices N] [--zipf E]\n"
         "                [--seed N]\n"
         "                [--win-rate F] [--notice-queue N] [--notice-connections C]\n";
}

namespace {

// Sets the option `flag` names from its value.
absl::Status ApplyFlag(const std::string& flag, const std::string& value, LoadOptions* o) {
  auto number = [&](double* out) -> absl::Status {
    if (!absl::SimpleAtod(value, out) || !(*out >= 0)) {
      return absl::InvalidArgumentError(absl::StrCat(flag, ": not a non-negative number: ", value));
    }
    return absl::OkStatus();
  };
  auto integer = [&](int64_t* out) -> absl::Status {
    if (!absl::SimpleAtoi(value, out) || *out < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": not a non-negative integer: ", value));
    }
    return absl::OkStatus();
  };
  absl::Status s;
  int64_t n = 0;
  if (flag == "--host") {
    o->host = value;
  } else if (flag == "--port") {
    s = integer(&n);
    o->port = static_cast<int>(n);
  } else if (flag == "--path") {
    o->path = value;
  } else if (flag == "--rate") {
    s = number(&o->rate);
  } else if (flag == "--duration") {
    s = number(&o->duration_s);
  } else if (flag == "--warmup") {
    s = number(&o->warmup_s);
  } else if (flag == "--drain") {
    s = number(&o->drain_s);
  } else if (flag == "--connections") {
    s = integer(&n);
    o->connections = static_cast<int>(n);
  } else if (flag == "--requests") {
    o->requests = absl::StrSplit(value, ',', absl::SkipEmpty());
  } else if (flag == "--devices") {
    s = integer(&o->devices);
  } else if (flag == "--zipf") {
    s = number(&o->zipf);
  } else if (flag == "--seed") {
    s = integer(&n);
    o->seed = static_cast<uint64_t>(n);
  } else if (flag == "--win-rate") {
    s = number(&o->win_rate);
  } else if (flag == "--notice-queue") {
    s = integer(&n);
    o->notice_queue = static_cast<int>(std::min<int64_t>(n, 1 << 30));
  } else if (flag == "--notice-connections") {
    s = integer(&n);
    o->notice_connections = static_cast<int>(std::min<int64_t>(n, 1 << 30));
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown flag ", flag));
  }
  return s;
}

// The options together: a loopback target, values in their ranges.
absl::Status CheckLoadOptions(const LoadOptions& o) {
  if (o.host != "127.0.0.1" && o.host != "localhost" && o.host != "::1") {
    return absl::InvalidArgumentError("--host must be a loopback address");
  }
  if (o.port <= 0 || o.port > 65535) return absl::InvalidArgumentError("--port out of range");
  if (o.rate <= 0 || o.rate > 1e6) return absl::InvalidArgumentError("--rate must be in (0, 1e6]");
  if (o.duration_s <= 0 || o.duration_s > kMaxDurationS) {
    return absl::InvalidArgumentError(
        absl::StrCat("--duration must be in (0, ", kMaxDurationS, "] seconds"));
  }
  if (o.warmup_s >= o.duration_s)
    return absl::InvalidArgumentError("--warmup must be < --duration");
  if (o.connections < 1 || o.connections > 10000) {
    return absl::InvalidArgumentError("--connections must be in [1, 10000]");
  }
  if (o.requests.empty()) return absl::InvalidArgumentError("--requests is required");
  if (o.devices < 1) return absl::InvalidArgumentError("--devices must be >= 1");
  if (o.win_rate > 1) return absl::InvalidArgumentError("--win-rate must be in [0, 1]");
  if (o.notice_queue < 1 || o.notice_queue > 100000) {
    return absl::InvalidArgumentError("--notice-queue must be in [1, 100000]");
  }
  if (o.notice_connections < 1 || o.notice_connections > 1000) {
    return absl::InvalidArgumentError("--notice-connections must be in [1, 1000]");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LoadOptions> ParseLoadOptions(int argc, char** argv) {
  LoadOptions o;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) return absl::InvalidArgumentError(absl::StrCat(flag, " needs a value"));
    std::string value = argv[++i];
    if (absl::Status s = ApplyFlag(flag, value, &o); !s.ok()) return s;
  }
  if (absl::Status s = CheckLoadOptions(o); !s.ok()) return s;
  return o;
}

}  // namespace rtb::loadtest
