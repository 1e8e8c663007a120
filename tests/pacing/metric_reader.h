// Reads one series of a prometheus-cpp registry, for assertions.
#ifndef RTB_TESTS_PACING_METRIC_READER_H_
#define RTB_TESTS_PACING_METRIC_READER_H_

#include <map>
#include <optional>
#include <string>

#include "metrics/sharded.h"
#include "prometheus/registry.h"

namespace rtb::pacing::testing {

// The value of the series `name`{labels} (counter or gauge), or nullopt.
inline std::optional<double> MetricValue(const prometheus::Registry& registry,
                                         const std::string& name,
                                         const std::map<std::string, std::string>& labels = {}) {
  for (const prometheus::MetricFamily& family : metrics::Collect(registry)) {
    if (family.name != name) continue;
    for (const prometheus::ClientMetric& metric : family.metric) {
      std::map<std::string, std::string> have;
      for (const prometheus::ClientMetric::Label& label : metric.label) {
        have[label.name] = label.value;
      }
      if (have != labels) continue;
      if (family.type == prometheus::MetricType::Counter) return metric.counter.value;
      if (family.type == prometheus::MetricType::Gauge) return metric.gauge.value;
    }
  }
  return std::nullopt;
}

}  // namespace rtb::pacing::testing

#endif  // RTB_TESTS_PACING_METRIC_READER_H_
