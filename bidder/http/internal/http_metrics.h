// Metrics of the HTTP server, declared once and resolved at start-up; the
// request path only increments handles. Label sets are bounded: `path` is the
// route's registered path (a prefix route's is "<prefix>*"), "unmatched" for
// paths without a route and "invalid" for requests that could not be parsed;
// `reason` and `code` take the few values listed below.
//
//   bidder_http_requests_total{path,code}          responses written
//   bidder_http_request_duration_seconds{path}     first byte read -> response ready
//   bidder_http_request_bytes                      request bodies as received
//   bidder_http_request_inflated_bytes             gzip/deflate bodies after inflation
//   bidder_http_response_bytes                     response bodies
//   bidder_http_open_connections                   connections open now
//   bidder_http_accepted_connections_total         connections accepted and served
//   bidder_http_rejected_connections_total{reason} connections closed at accept
//   bidder_http_accept_errors_total                accept() failures (out of descriptors, ...)
//   bidder_http_request_errors_total{reason}       requests refused before a handler saw them,
//                                                  and handler faults
//   bidder_http_closed_connections_total{reason}   why connections ended
//
// The per-request series (requests, durations, request and response sizes)
// are counted per thread (metrics/sharded.h): read them through
// metrics::Collect.
//
// Thread-safety: every handle is safe to update from any thread.
#ifndef RTB_BIDDER_HTTP_INTERNAL_HTTP_METRICS_H_
#define RTB_BIDDER_HTTP_INTERNAL_HTTP_METRICS_H_

#include <array>
#include <cstddef>
#include <string>

#include "metrics/sharded.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace rtb::bidder {

// Why a request never reached a handler, or why its handler's answer was not
// used.
enum class RequestError {
  kMalformed,            // not valid HTTP/1.x (400)
  kHeaderTooLarge,       // header block over max_header_bytes (431)
  kBodyTooLarge,         // body over max_body_bytes (413)
  kInflatedTooLarge,     // inflated body over max_inflated_body_bytes (413)
  kBadCompressedBody,    // corrupt or truncated gzip/deflate body (400)
  kUnsupportedEncoding,  // Content-Encoding other than gzip/deflate/identity (415)
  kReadTimeout,          // request not complete within read_timeout_ms (connection closed)
  kHandlerFault,  // handler threw, dropped its Responder, or returned an invalid response (500)
};
inline constexpr size_t kRequestErrorCount = 8;
const char* RequestErrorName(RequestError error);

enum class CloseReason {
  kPeer,              // the client closed or reset the connection
  kFirstByteTimeout,  // a new connection sent nothing within first_byte_timeout_ms
  kIdleTimeout,       // no further request within idle_timeout_ms
  kReadTimeout,       // a request started but did not complete in time
  kEvicted,           // waited longest for a request when max_connections was near
  kProtocol,          // closed after an error response (400, 413, 431)
  kNoKeepAlive,       // the client asked for Connection: close (or HTTP/1.0)
  kShutdown,          // server shutdown
  kIoError,           // a read or write failed
};
inline constexpr size_t kCloseReasonCount = 9;
const char* CloseReasonName(CloseReason reason);

// Why a connection was closed as soon as it was accepted.
enum class RefuseReason {
  kMaxConnections,  // max_connections were open
  kPeerLimit,       // max_connections_per_peer were open from its address
};
inline constexpr size_t kRefuseReasonCount = 2;
const char* RefuseReasonName(RefuseReason reason);

struct HttpMetrics {
  // Declares the families in `registry` (merging with existing ones of the
  // same name, so two servers may share a registry). Throws only on a name
  // clash with a metric of another type, which is a start-up error.
  explicit HttpMetrics(prometheus::Registry& registry);

  prometheus::Family<prometheus::Counter>& requests;
  prometheus::Family<prometheus::Histogram>& request_duration;
  metrics::ShardedHistogram request_bytes;
  prometheus::Histogram& request_inflated_bytes;
  metrics::ShardedHistogram response_bytes;
  prometheus::Gauge& open_connections;
  prometheus::Counter& accepted_connections;
  prometheus::Counter& accept_errors;
  std::array<prometheus::Counter*, kRefuseReasonCount> refusals;
  std::array<prometheus::Counter*, kRequestErrorCount> errors;
  std::array<prometheus::Counter*, kCloseReasonCount> closes;

  prometheus::Counter& Refused(RefuseReason r) { return *refusals[static_cast<size_t>(r)]; }
  prometheus::Counter& Error(RequestError e) { return *errors[static_cast<size_t>(e)]; }
  prometheus::Counter& Closed(CloseReason r) { return *closes[static_cast<size_t>(r)]; }

  // Bucket boundaries, seconds: 50 µs to 1 s.
  static prometheus::Histogram::BucketBoundaries DurationBuckets();
  // Bucket boundaries, bytes: 256 B to 1 MiB.
  static prometheus::Histogram::BucketBoundaries SizeBuckets();
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_HTTP_INTERNAL_HTTP_METRICS_H_
