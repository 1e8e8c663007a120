// OpenTSDB-compatible HTTP API over Telemetry, as plain functions of the
// request body, so Grafana's OpenTSDB data source and other OpenTSDB tools can
// write and chart the bidder's series. The HTTP server owns the routes:
//
//   POST /api/put      HandlePut      body: a data point or an array of them
//                                     {"metric","timestamp","value","tags"}
//   POST /api/query    HandleQuery    body: {"start","end","queries":[{"aggregator",
//                                     "metric","tags","downsample":"5m-avg",
//                                     "rate":true,"rateOptions":{"counter",
//                                     "counterMax","resetValue","dropResets"}}]}
//   POST /api/suggest  HandleSuggest  body: {"type":"metrics"|"tagk"|"tagv","q","max"}
//   (GET /api/suggest?type=..&q=..&max=.. maps to the same body.)
//   POST /api/search/lookup  HandleLookup  body: {"metric","tags":[{"key","value"}],"limit"}
//   GET  /api/search/lookup?m=metric{k=v,k2=*}&limit=N  HandleLookupQueryString
//                                     the series (tag sets) of a metric, as
//                                     Grafana lists tag keys and values
//   GET  /api/aggregators   AggregatorsJson  the aggregator names
//
// Answers are JSON. Status codes for the route: OK -> 200; InvalidArgument ->
// 400 (for /api/put the message is the JSON summary {"success","failed",
// "errors"}, as OpenTSDB answers 400 when any point failed); NotFound -> 400
// as OpenTSDB does for an unknown metric; ResourceExhausted -> 413; anything
// else -> 500.
//
// Differences from OpenTSDB: times resolve to seconds; tag filters are the
// v2.0 "tags" map ("*" and "a|b" group by the key); cross-series
// aggregation combines values at equal timestamps (no interpolation); the
// downsample function must be avg, sum, min, max or count, its fill policy
// "none"; v2.2 "filters" are refused (400); rates are computed per series after
// downsampling, before the series are combined.
//
// Thread-safety: as Telemetry.
#ifndef RTB_BIDDER_TELEMETRY_OPENTSDB_H_
#define RTB_BIDDER_TELEMETRY_OPENTSDB_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "bidder/telemetry/telemetry.h"

namespace rtb::bidder::telemetry {

absl::StatusOr<std::string> HandlePut(Telemetry& telemetry, std::string_view body);
absl::StatusOr<std::string> HandleQuery(Telemetry& telemetry, std::string_view body);
absl::StatusOr<std::string> HandleSuggest(Telemetry& telemetry, std::string_view body);
absl::StatusOr<std::string> HandleLookup(Telemetry& telemetry, std::string_view body);
absl::StatusOr<std::string> HandleLookupQueryString(Telemetry& telemetry, std::string_view m,
                                                    std::optional<std::string_view> limit);
const std::string& AggregatorsJson();

// "1h-ago", "30m-ago", seconds or milliseconds since the epoch (number or
// string); nullopt when unreadable.
std::optional<int64_t> ParseOpenTsdbTime(const std::string& text, int64_t now_s);

}  // namespace rtb::bidder::telemetry

#endif  // RTB_BIDDER_TELEMETRY_OPENTSDB_H_
