// The route table of the HTTP server: exact paths and path prefixes, each
// with handlers per method. Built before the server starts and read-only
// afterwards, so lookups need no lock.
//
// Every distinct path or prefix is one route with a small integer id and a
// metric label; two extra ids stand for "no such path" and "not even HTTP".
//
// Thread-safety: Add/Freeze from one thread; Find from any thread after
// Freeze.
#ifndef RTB_BIDDER_HTTP_INTERNAL_ROUTER_H_
#define RTB_BIDDER_HTTP_INTERNAL_ROUTER_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "bidder/http/http_server.h"
#include "boost/beast/http/verb.hpp"

namespace rtb::bidder::internal {

inline constexpr int kUnmatchedRoute = 0;  // label "unmatched": 404
inline constexpr int kInvalidRoute = 1;    // label "invalid": unparsable request

class Router {
 public:
  Router();

  enum class Kind { kFound, kNotFound, kWrongMethod };
  struct Match {
    Kind kind = Kind::kNotFound;
    int route_id = kUnmatchedRoute;
    const HttpHandler* handler = nullptr;  // kFound
    std::string_view allow;                // kWrongMethod: the methods the route takes
  };

  // False when the method is already routed for that path or prefix.
  bool Add(boost::beast::http::verb method, std::string path, bool prefix, HttpHandler handler);
  // Computes Allow values and the prefix search order; Add is refused after.
  void Freeze();
  bool frozen() const { return frozen_; }

  Match Find(boost::beast::http::verb method, std::string_view path) const;

  // Metric label of each route id, including the two fixed ones.
  const std::vector<std::string>& labels() const { return labels_; }

 private:
  struct Entry {
    std::string path;
    bool prefix = false;
    std::vector<std::pair<boost::beast::http::verb, HttpHandler>> methods;
    std::string allow;
  };
  Match MatchIn(const Entry& entry, int id, boost::beast::http::verb method) const;

  bool frozen_ = false;
  // Index into entries_ is route id minus 2.
  std::vector<Entry> entries_;
  std::vector<std::string> labels_;
  absl::flat_hash_map<std::string, int> exact_;
  // Route ids of prefix entries, longest prefix first.
  std::vector<int> prefixes_;
};

}  // namespace rtb::bidder::internal

#endif  // RTB_BIDDER_HTTP_INTERNAL_ROUTER_H_
