#include "bidder/http/internal/http_metrics.h"

#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"

namespace rtb::bidder {

const char* RequestErrorName(RequestError error) {
  switch (error) {
    case RequestError::kMalformed:
      return "malformed";
    case RequestError::kHeaderTooLarge:
      return "header_too_large";
    case RequestError::kBodyTooLarge:
      return "body_too_large";
    case RequestError::kInflatedTooLarge:
      return "inflated_too_large";
    case RequestError::kBadCompressedBody:
      return "bad_compressed_body";
    case RequestError::kUnsupportedEncoding:
      return "unsupported_encoding";
    case RequestError::kReadTimeout:
      return "read_timeout";
    case RequestError::kHandlerFault:
      return "handler_fault";
  }
  return "unknown";
}

const char* CloseReasonName(CloseReason reason) {
  switch (reason) {
    case CloseReason::kPeer:
      return "peer";
    case CloseReason::kFirstByteTimeout:
      return "first_byte_timeout";
    case CloseReason::kIdleTimeout:
      return "idle_timeout";
    case CloseReason::kReadTimeout:
      return "read_timeout";
    case CloseReason::kEvicted:
      return "evicted";
    case CloseReason::kProtocol:
      return "protocol_error";
    case CloseReason::kNoKeepAlive:
      return "no_keep_alive";
    case CloseReason::kShutdown:
      return "shutdown";
    case CloseReason::kIoError:
      return "io_error";
  }
  return "unknown";
}

const char* RefuseReasonName(RefuseReason reason) {
  switch (reason) {
    case RefuseReason::kMaxConnections:
      return "max_connections";
    case RefuseReason::kPeerLimit:
      return "peer_limit";
  }
  return "unknown";
}

prometheus::Histogram::BucketBoundaries HttpMetrics::DurationBuckets() {
  return {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
          0.01,    0.025,  0.05,    0.1,    0.25,  0.5,    1.0};
}

prometheus::Histogram::BucketBoundaries HttpMetrics::SizeBuckets() {
  return {256, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 1048576};
}

namespace {

prometheus::Family<prometheus::Histogram>& HistogramFamily(prometheus::Registry& registry,
                                                           const char* name, const char* help) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(registry);
}

}  // namespace

HttpMetrics::HttpMetrics(prometheus::Registry& registry)
    : requests(prometheus::BuildCounter()
                   .Name("bidder_http_requests_total")
                   .Help("HTTP responses written, by route and status code")
                   .Register(registry)),
      request_duration(HistogramFamily(
          registry, "bidder_http_request_duration_seconds",
          "Time from the first byte of a request read to its response ready, by route")),
      request_bytes(
          HistogramFamily(registry, "bidder_http_request_bytes", "Request body sizes as received"),
          {}, SizeBuckets()),
      request_inflated_bytes(HistogramFamily(registry, "bidder_http_request_inflated_bytes",
                                             "Compressed request body sizes after inflation")
                                 .Add({}, SizeBuckets())),
      response_bytes(HistogramFamily(registry, "bidder_http_response_bytes", "Response body sizes"),
                     {}, SizeBuckets()),
      open_connections(prometheus::BuildGauge()
                           .Name("bidder_http_open_connections")
                           .Help("HTTP connections open now")
                           .Register(registry)
                           .Add({})),
      accepted_connections(prometheus::BuildCounter()
                               .Name("bidder_http_accepted_connections_total")
                               .Help("HTTP connections accepted and served")
                               .Register(registry)
                               .Add({})),
      accept_errors(prometheus::BuildCounter()
                        .Name("bidder_http_accept_errors_total")
                        .Help("Failed accept() calls (out of descriptors or memory, or the peer "
                              "gone first); the listener pauses 10 ms after each")
                        .Register(registry)
                        .Add({})) {
  auto& refusal_family = prometheus::BuildCounter()
                             .Name("bidder_http_rejected_connections_total")
                             .Help(
                                 "HTTP connections closed at accept, by reason: max_connections "
                                 "open, or max_connections_per_peer open from the address")
                             .Register(registry);
  for (size_t i = 0; i < kRefuseReasonCount; ++i) {
    refusals[i] = &refusal_family.Add({{"reason", RefuseReasonName(static_cast<RefuseReason>(i))}});
  }
  auto& error_family = prometheus::BuildCounter()
                           .Name("bidder_http_request_errors_total")
                           .Help(
                               "Requests refused before reaching a handler, and handler faults, "
                               "by reason")
                           .Register(registry);
  for (size_t i = 0; i < kRequestErrorCount; ++i) {
    errors[i] = &error_family.Add({{"reason", RequestErrorName(static_cast<RequestError>(i))}});
  }
  auto& close_family = prometheus::BuildCounter()
                           .Name("bidder_http_closed_connections_total")
                           .Help("HTTP connections closed, by reason")
                           .Register(registry);
  for (size_t i = 0; i < kCloseReasonCount; ++i) {
    closes[i] = &close_family.Add({{"reason", CloseReasonName(static_cast<CloseReason>(i))}});
  }
}

}  // namespace rtb::bidder
