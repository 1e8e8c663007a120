// Reads one counter or gauge out of a prometheus registry, for tests.
#ifndef RTB_TESTS_BIDDER_EVENTS_METRIC_VALUE_H_
#define RTB_TESTS_BIDDER_EVENTS_METRIC_VALUE_H_

#include <map>
#include <string>

#include "metrics/sharded.h"
#include "prometheus/registry.h"

namespace rtb::bidder::events::testing {

// The value of counter or gauge `name` with exactly `labels`, or -1 when absent.
inline double CounterValue(prometheus::Registry& registry, const std::string& name,
                           const std::map<std::string, std::string>& labels = {}) {
  for (const prometheus::MetricFamily& family : metrics::Collect(registry)) {
    if (family.name != name) continue;
    for (const prometheus::ClientMetric& metric : family.metric) {
      std::map<std::string, std::string> got;
      for (const auto& label : metric.label) got[label.name] = label.value;
      if (got != labels) continue;
      return family.type == prometheus::MetricType::Gauge ? metric.gauge.value
                                                          : metric.counter.value;
    }
  }
  return -1;
}

}  // namespace rtb::bidder::events::testing

#endif  // RTB_TESTS_BIDDER_EVENTS_METRIC_VALUE_H_
