// The bodies rtb-load sends: sample bid requests as templates, each send
// with a fresh request id and a device id drawn from a Zipf-distributed
// population, so a few devices are hot and most are rare.
#ifndef RTB_LOADTEST_REQUEST_MIX_H_
#define RTB_LOADTEST_REQUEST_MIX_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "loadtest/load_options.h"

namespace rtb::loadtest {

// The advertising id of device number `index` of the population: a
// lower-case UUID derived from the index, stable across runs, so a seeding
// step can store profiles for exactly the devices the load will send.
std::string DeviceIdFor(uint64_t index);

// Which of the devices 0..n-1 get a stored profile so that `request_share`
// of the requests a Zipf(exponent) load sends find one: walking from the
// most popular device down, each goes to whichever side (seeded or not) is
// further below its share of the request weight. Element k is device k.
std::vector<bool> DevicesToSeed(int64_t n, double exponent, double request_share);

// Draws device numbers 0..n-1 with P(k) proportional to 1 / (k+1)^exponent.
class ZipfSampler {
 public:
  ZipfSampler(int64_t n, double exponent);
  int64_t Next(std::mt19937_64& rng) const;

 private:
  std::vector<double> cdf_;
};

class RequestMix {
 public:
  static absl::StatusOr<RequestMix> Load(const LoadOptions& options);
  // The next body to send.
  std::string Next(std::mt19937_64& rng);
  size_t templates() const { return templates_.size(); }

 private:
  // A body cut at its two placeholders: head, first slot, middle, second
  // slot, tail; `id_first` tells which slot is the request id.
  struct Template {
    std::string head, middle, tail;
    bool id_first = true;
  };
  RequestMix(std::vector<Template> templates, ZipfSampler devices)
      : templates_(std::move(templates)), devices_(std::move(devices)) {}

  std::vector<Template> templates_;
  ZipfSampler devices_;
  uint64_t next_id_ = 0;
};

}  // namespace rtb::loadtest

#endif  // RTB_LOADTEST_REQUEST_MIX_H_
