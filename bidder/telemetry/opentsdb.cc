#include "bidder/telemetry/opentsdb.h"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

namespace rtb::bidder::telemetry {
namespace {

using nlohmann::json;

constexpr int64_t kMillisThreshold = 100000000000;

std::optional<int64_t> UnitSeconds(std::string_view unit) {
  if (unit == "s") return 1;
  if (unit == "m") return 60;
  if (unit == "h") return 3600;
  if (unit == "d") return 86400;
  if (unit == "w") return 7 * 86400;
  if (unit == "n") return 30 * 86400;
  if (unit == "y") return 365 * 86400;
  return std::nullopt;
}

// "<n><unit>", e.g. "5m"; the seconds, or nullopt.
std::optional<int64_t> ParseDuration(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 9) return std::nullopt;
  int64_t n = 0;
  std::from_chars(text.data(), text.data() + digits, n);
  auto unit = UnitSeconds(text.substr(digits));
  if (!unit || n <= 0) return std::nullopt;
  return n * *unit;
}

std::optional<int64_t> TimeOf(const json& value, int64_t now_s) {
  if (value.is_number_integer()) {
    const int64_t t = value.get<int64_t>();
    return t >= kMillisThreshold ? t / 1000 : t;
  }
  if (value.is_string()) return ParseOpenTsdbTime(value.get<std::string>(), now_s);
  return std::nullopt;
}

absl::Status BadRequest(std::string_view why) {
  return absl::InvalidArgumentError(std::string(why));
}

// "rateOptions" of a sub-query with "rate": true.
absl::StatusOr<RateOptions> RateOptionsOf(const json& sub) {
  RateOptions options;
  auto it = sub.find("rateOptions");
  if (it == sub.end() || it->is_null()) return options;
  if (!it->is_object()) return BadRequest("/api/query: rateOptions must be an object");
  const json& o = *it;
  auto flag = [&](const char* key, bool* out) -> absl::Status {
    auto f = o.find(key);
    if (f == o.end()) return absl::OkStatus();
    if (!f->is_boolean())
      return BadRequest(absl::StrCat("/api/query: rateOptions.", key, " must be true or false"));
    *out = f->get<bool>();
    return absl::OkStatus();
  };
  auto number = [&](const char* key, double* out) -> absl::Status {
    auto f = o.find(key);
    if (f == o.end()) return absl::OkStatus();
    if (!f->is_number() || f->get<double>() < 0) {
      return BadRequest(
          absl::StrCat("/api/query: rateOptions.", key, " must be a non-negative number"));
    }
    *out = f->get<double>();
    return absl::OkStatus();
  };
  for (absl::Status s :
       {flag("counter", &options.counter), flag("dropResets", &options.drop_resets),
        number("counterMax", &options.counter_max), number("resetValue", &options.reset_value)}) {
    if (!s.ok()) return s;
  }
  if (options.counter_max == 0) return BadRequest("/api/query: rateOptions.counterMax must be > 0");
  return options;
}

}  // namespace

std::optional<int64_t> ParseOpenTsdbTime(const std::string& text, int64_t now_s) {
  std::string_view t(text);
  if (t.size() > 4 && t.substr(t.size() - 4) == "-ago") {
    auto d = ParseDuration(t.substr(0, t.size() - 4));
    if (!d) return std::nullopt;
    return now_s - *d;
  }
  if (t.empty() || t.size() > 16) return std::nullopt;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || v < 0) return std::nullopt;
  return v >= kMillisThreshold ? v / 1000 : v;
}

absl::StatusOr<std::string> HandlePut(Telemetry& telemetry, std::string_view body) {
  json doc = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return BadRequest("/api/put: the body is not JSON");
  if (doc.is_object()) doc = json::array({doc});
  if (!doc.is_array()) return BadRequest("/api/put: expected a data point or an array of them");
  std::vector<DataPoint> points;
  std::vector<std::string> errors;
  int64_t malformed = 0;
  for (size_t i = 0; i < doc.size(); ++i) {
    const json& p = doc[i];
    auto bad = [&](std::string_view why) {
      ++malformed;
      if (errors.size() < 20)
        errors.push_back(absl::StrCat(i, ": ", absl::string_view(why.data(), why.size())));
    };
    if (!p.is_object()) {
      bad("not an object");
      continue;
    }
    DataPoint point;
    auto metric = p.find("metric");
    auto timestamp = p.find("timestamp");
    auto value = p.find("value");
    if (metric == p.end() || !metric->is_string()) {
      bad("metric is missing or not a string");
      continue;
    }
    point.metric = metric->get<std::string>();
    if (timestamp == p.end() || !timestamp->is_number_integer()) {
      bad("timestamp is missing or not an integer");
      continue;
    }
    point.timestamp = timestamp->get<int64_t>();
    if (value != p.end() && value->is_number()) {
      point.value = value->get<double>();
    } else if (value != p.end() && value->is_string()) {
      const std::string& s = value->get_ref<const std::string&>();
      char* end = nullptr;
      point.value = std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size()) {
        bad("value is not a number");
        continue;
      }
    } else {
      bad("value is missing or not a number");
      continue;
    }
    auto tags = p.find("tags");
    bool tags_ok = true;
    if (tags != p.end()) {
      if (!tags->is_object()) {
        tags_ok = false;
      } else {
        for (auto it = tags->begin(); it != tags->end(); ++it) {
          if (!it.value().is_string()) {
            tags_ok = false;
            break;
          }
          point.tags[it.key()] = it.value().get<std::string>();
        }
      }
    }
    if (!tags_ok) {
      bad("tags must be an object of strings");
      continue;
    }
    points.push_back(std::move(point));
  }
  WriteSummary summary = telemetry.Write(points);
  for (std::string& e : summary.errors) {
    if (errors.size() < 20) errors.push_back(std::move(e));
  }
  json out = {
      {"success", summary.success}, {"failed", summary.failed + malformed}, {"errors", errors}};
  if (summary.failed + malformed > 0) return absl::InvalidArgumentError(out.dump());
  return out.dump();
}

absl::StatusOr<std::string> HandleQuery(Telemetry& telemetry, std::string_view body) {
  const json doc = json::parse(body.begin(), body.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return BadRequest("/api/query: the body is not a JSON object");
  const int64_t now_s = telemetry.NowSeconds();
  auto start_it = doc.find("start");
  if (start_it == doc.end()) return BadRequest("/api/query: start is required");
  auto start = TimeOf(*start_it, now_s);
  if (!start) return BadRequest("/api/query: start is not a time");
  std::optional<int64_t> end = now_s;
  if (auto e = doc.find("end"); e != doc.end()) end = TimeOf(*e, now_s);
  if (!end) return BadRequest("/api/query: end is not a time");
  auto queries = doc.find("queries");
  if (queries == doc.end() || !queries->is_array() || queries->empty()) {
    return BadRequest("/api/query: queries must be a non-empty array");
  }
  json out = json::array();
  for (const json& sub : *queries) {
    if (!sub.is_object()) return BadRequest("/api/query: each query is an object");
    TimeSeriesQuery q;
    q.start_s = *start;
    q.end_s = *end;
    auto metric = sub.find("metric");
    if (metric == sub.end() || !metric->is_string())
      return BadRequest("/api/query: metric is required");
    q.metric = metric->get<std::string>();
    auto aggregator = sub.find("aggregator");
    if (aggregator == sub.end() || !aggregator->is_string())
      return BadRequest("/api/query: aggregator is required");
    auto agg = ParseAggregator(aggregator->get<std::string>());
    if (!agg) return BadRequest("/api/query: aggregator must be avg, sum, min, max or count");
    q.aggregator = *agg;
    if (auto ds = sub.find("downsample"); ds != sub.end()) {
      if (!ds->is_string()) return BadRequest("/api/query: downsample must be like \"5m-avg\"");
      // "<interval>-<function>[-<fill policy>]"; only the fill policy "none"
      // (no point for an empty step) is served.
      const std::vector<std::string> parts = absl::StrSplit(ds->get_ref<const std::string&>(), '-');
      auto step = ParseDuration(parts[0]);
      auto down = parts.size() < 2 ? std::nullopt : ParseAggregator(parts[1]);
      if (!step || !down || parts.size() > 3)
        return BadRequest("/api/query: downsample must be like \"5m-avg\"");
      if (parts.size() == 3 && parts[2] != "none") {
        return BadRequest("/api/query: the only downsample fill policy served is none");
      }
      q.step_s = *step;
      q.downsample = *down;
    }
    if (auto rate = sub.find("rate"); rate != sub.end()) {
      if (!rate->is_boolean()) return BadRequest("/api/query: rate must be true or false");
      if (rate->get<bool>()) {
        auto options = RateOptionsOf(sub);
        if (!options.ok()) return options.status();
        q.rate = *options;
      }
    }
    if (auto filters = sub.find("filters"); filters != sub.end() && !filters->empty()) {
      return BadRequest("/api/query: filters are not served; give the tag filter as \"tags\"");
    }
    if (auto tags = sub.find("tags"); tags != sub.end()) {
      if (!tags->is_object()) return BadRequest("/api/query: tags must be an object of strings");
      for (auto it = tags->begin(); it != tags->end(); ++it) {
        if (!it.value().is_string())
          return BadRequest("/api/query: tags must be an object of strings");
        q.tags[it.key()] = it.value().get<std::string>();
      }
    }
    auto result = telemetry.Query(q);
    if (!result.ok()) return result.status();
    for (const SeriesGroup& g : result->groups) {
      json dps = json::object();
      for (const Point& p : g.points) dps[std::to_string(p.timestamp)] = p.value;
      out.push_back({{"metric", g.metric},
                     {"tags", g.tags},
                     {"aggregateTags", g.aggregated_tags},
                     {"dps", dps}});
    }
  }
  return out.dump();
}

namespace {

// The lookup of `metric` with `filters` (key -> value, "*" or "a|b") in
// OpenTSDB's answer shape.
absl::StatusOr<std::string> Lookup(Telemetry& telemetry, const std::string& metric,
                                   const std::vector<std::pair<std::string, std::string>>& filters,
                                   int64_t limit) {
  if (metric.empty() || metric == "*")
    return BadRequest("/api/search/lookup: a metric name is required");
  if (limit < 1 || limit > 100000)
    return BadRequest("/api/search/lookup: limit must be in [1, 100000]");
  std::map<std::string, std::string> tags;
  json echoed = json::array();
  for (const auto& [key, value] : filters) {
    if (key.empty() || key == "*") return BadRequest("/api/search/lookup: every tag needs a key");
    if (!tags.emplace(key, value.empty() ? "*" : value).second) {
      return BadRequest(absl::StrCat("/api/search/lookup: tag key ", key, " given twice"));
    }
    echoed.push_back({{"key", key}, {"value", value}});
  }
  auto found = telemetry.Lookup(metric, tags, static_cast<int>(limit));
  if (!found.ok()) return found.status();
  json results = json::array();
  for (const SeriesDescription& s : found->series) {
    // OpenTSDB's tsuid is hex; here: metric id (4 bytes) + series id (8 bytes).
    char tsuid[25];
    std::snprintf(tsuid, sizeof tsuid, "%08X%016llX", s.metric_id,
                  static_cast<unsigned long long>(s.series_id));
    results.push_back({{"tsuid", tsuid}, {"metric", metric}, {"tags", s.tags}});
  }
  json out = {
      {"type", "LOOKUP"}, {"metric", metric},   {"tags", echoed},  {"limit", limit},
      {"time", 0},        {"results", results}, {"startIndex", 0}, {"totalResults", found->total}};
  return out.dump();
}

constexpr int64_t kDefaultLookupLimit = 25;

}  // namespace

absl::StatusOr<std::string> HandleLookup(Telemetry& telemetry, std::string_view body) {
  const json doc = json::parse(body.begin(), body.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return BadRequest("/api/search/lookup: the body is not a JSON object");
  auto metric = doc.find("metric");
  if (metric == doc.end() || !metric->is_string())
    return BadRequest("/api/search/lookup: metric is required");
  std::vector<std::pair<std::string, std::string>> filters;
  if (auto tags = doc.find("tags"); tags != doc.end()) {
    if (!tags->is_array())
      return BadRequest("/api/search/lookup: tags must be an array of {\"key\",\"value\"}");
    for (const json& t : *tags) {
      if (!t.is_object() || !t.contains("key") || !t["key"].is_string() ||
          (t.contains("value") && !t["value"].is_string())) {
        return BadRequest("/api/search/lookup: tags must be an array of {\"key\",\"value\"}");
      }
      filters.emplace_back(t["key"].get<std::string>(), t.value("value", std::string()));
    }
  }
  int64_t limit = kDefaultLookupLimit;
  if (auto l = doc.find("limit"); l != doc.end()) {
    if (!l->is_number_integer()) return BadRequest("/api/search/lookup: limit must be an integer");
    limit = l->get<int64_t>();
  }
  return Lookup(telemetry, metric->get<std::string>(), filters, limit);
}

absl::StatusOr<std::string> HandleLookupQueryString(Telemetry& telemetry, std::string_view m,
                                                    std::optional<std::string_view> limit_text) {
  int64_t limit = kDefaultLookupLimit;
  if (limit_text &&
      !absl::SimpleAtoi(absl::string_view(limit_text->data(), limit_text->size()), &limit)) {
    return BadRequest("/api/search/lookup: limit must be an integer");
  }
  const size_t open = m.find('{');
  std::vector<std::pair<std::string, std::string>> filters;
  if (open != std::string_view::npos) {
    if (m.back() != '}')
      return BadRequest("/api/search/lookup: m must be like metric{key=value,...}");
    const std::string_view inside = m.substr(open + 1, m.size() - open - 2);
    if (!inside.empty()) {
      for (absl::string_view pair :
           absl::StrSplit(absl::string_view(inside.data(), inside.size()), ',')) {
        const size_t eq = pair.find('=');
        if (eq == absl::string_view::npos)
          return BadRequest("/api/search/lookup: m must be like metric{key=value,...}");
        filters.emplace_back(std::string(pair.substr(0, eq)), std::string(pair.substr(eq + 1)));
      }
    }
  }
  return Lookup(telemetry, std::string(m.substr(0, open)), filters, limit);
}

const std::string& AggregatorsJson() {
  static const std::string kNames = json::array({"avg", "count", "max", "min", "sum"}).dump();
  return kNames;
}

absl::StatusOr<std::string> HandleSuggest(Telemetry& telemetry, std::string_view body) {
  const json doc = json::parse(body.begin(), body.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return BadRequest("/api/suggest: the body is not a JSON object");
  const std::string type = doc.value("type", std::string());
  SuggestType t;
  if (type == "metrics") {
    t = SuggestType::kMetrics;
  } else if (type == "tagk") {
    t = SuggestType::kTagKeys;
  } else if (type == "tagv") {
    t = SuggestType::kTagValues;
  } else {
    return BadRequest("/api/suggest: type must be metrics, tagk or tagv");
  }
  std::string prefix;
  if (auto q = doc.find("q"); q != doc.end()) {
    if (!q->is_string()) return BadRequest("/api/suggest: q must be a string");
    prefix = q->get<std::string>();
  }
  int max = 25;
  if (auto m = doc.find("max"); m != doc.end()) {
    if (!m->is_number_integer()) return BadRequest("/api/suggest: max must be an integer");
    const int64_t v = m->get<int64_t>();
    if (v < 1 || v > 1000) return BadRequest("/api/suggest: max must be in [1, 1000]");
    max = static_cast<int>(v);
  }
  auto names = telemetry.Suggest(t, prefix, max);
  if (!names.ok()) return names.status();
  return json(*names).dump();
}

}  // namespace rtb::bidder::telemetry
