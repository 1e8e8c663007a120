#include "loadtest/request_mix.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace rtb::loadtest {
namespace {

constexpr char kIdMarker[] = "@@REQUEST_ID@@";
constexpr char kDeviceMarker[] = "@@DEVICE_ID@@";

uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::string DeviceIdFor(uint64_t index) {
  const uint64_t a = Mix64(index * 2 + 1);
  const uint64_t b = Mix64(index * 2 + 2);
  char out[37];
  std::snprintf(out, sizeof(out), "%08x-%04x-4%03x-8%03x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>((b >> 48) & 0xfff),
                static_cast<unsigned long long>(b & 0xffffffffffffull));
  return out;
}

std::vector<bool> DevicesToSeed(int64_t n, double exponent, double request_share) {
  std::vector<bool> seeded(static_cast<size_t>(n), false);
  double total = 0;
  for (int64_t k = 0; k < n; ++k) total += 1.0 / std::pow(static_cast<double>(k + 1), exponent);
  double seeded_weight = 0;
  double unseeded_weight = 0;
  for (int64_t k = 0; k < n; ++k) {
    const double w = 1.0 / std::pow(static_cast<double>(k + 1), exponent) / total;
    // Deficits against the targets after everything so far.
    const double seeded_gap = request_share * (seeded_weight + unseeded_weight + w) - seeded_weight;
    const double unseeded_gap =
        (1 - request_share) * (seeded_weight + unseeded_weight + w) - unseeded_weight;
    if (seeded_gap >= unseeded_gap) {
      seeded[static_cast<size_t>(k)] = true;
      seeded_weight += w;
    } else {
      unseeded_weight += w;
    }
  }
  return seeded;
}

ZipfSampler::ZipfSampler(int64_t n, double exponent) {
  cdf_.resize(static_cast<size_t>(n));
  double sum = 0;
  for (int64_t k = 0; k < n; ++k) {
    sum += 1.0 / std::pow(static_cast<double>(k + 1), exponent);
    cdf_[static_cast<size_t>(k)] = sum;
  }
  for (double& c : cdf_) c /= sum;
}

int64_t ZipfSampler::Next(std::mt19937_64& rng) const {
  const double u = std::uniform_real_distribution<double>(0, 1)(rng);
  auto it = std::lower_bound(cdf_.begin(), cdf_.end(), u);
  if (it == cdf_.end()) --it;
  return it - cdf_.begin();
}

absl::StatusOr<RequestMix> RequestMix::Load(const LoadOptions& options) {
  std::vector<Template> templates;
  std::vector<std::filesystem::path> files;
  for (const std::string& path : options.requests) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
      if (!std::filesystem::is_regular_file(path, ec)) {
        return absl::InvalidArgumentError(absl::StrCat("cannot read ", path, ": no such file"));
      }
      files.push_back(path);
      continue;
    }
    std::vector<std::filesystem::path> in_directory;
    for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
      if (entry.path().extension() == ".json") in_directory.push_back(entry.path());
    }
    if (ec)
      return absl::InvalidArgumentError(absl::StrCat("cannot read ", path, ": ", ec.message()));
    std::sort(in_directory.begin(), in_directory.end());
    files.insert(files.end(), in_directory.begin(), in_directory.end());
  }
  for (const auto& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json request = nlohmann::json::parse(text.str(), nullptr, false);
    if (request.is_discarded() || !request.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat(file.string(), " is not a JSON object"));
    }
    request["id"] = kIdMarker;
    // Site requests without a device still get one, so every send has a device id.
    request["device"]["ifa"] = kDeviceMarker;
    request["device"].erase("lmt");
    std::string body = request.dump();
    const size_t id_at = body.find(kIdMarker);
    const size_t device_at = body.find(kDeviceMarker);
    if (id_at == std::string::npos || device_at == std::string::npos) continue;
    Template t;
    t.id_first = id_at < device_at;
    const size_t first_at = std::min(id_at, device_at);
    const size_t first_len = t.id_first ? sizeof(kIdMarker) - 1 : sizeof(kDeviceMarker) - 1;
    const size_t second_at = std::max(id_at, device_at);
    const size_t second_len = t.id_first ? sizeof(kDeviceMarker) - 1 : sizeof(kIdMarker) - 1;
    t.head = body.substr(0, first_at);
    t.middle = body.substr(first_at + first_len, second_at - first_at - first_len);
    t.tail = body.substr(second_at + second_len);
    templates.push_back(std::move(t));
  }
  if (templates.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no usable bid requests in ", absl::StrJoin(options.requests, ",")));
  }
  return RequestMix(std::move(templates), ZipfSampler(options.devices, options.zipf));
}

std::string RequestMix::Next(std::mt19937_64& rng) {
  const Template& t = templates_[rng() % templates_.size()];
  const std::string device = DeviceIdFor(static_cast<uint64_t>(devices_.Next(rng)));
  const std::string id = absl::StrCat("load-", next_id_++);
  std::string body;
  body.reserve(t.head.size() + t.middle.size() + t.tail.size() + 64);
  if (t.id_first) {
    absl::StrAppend(&body, t.head, id, t.middle, device, t.tail);
  } else {
    absl::StrAppend(&body, t.head, device, t.middle, id, t.tail);
  }
  return body;
}

}  // namespace rtb::loadtest
