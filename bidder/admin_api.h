// The admin API over the event timelines and privacy erasure
// (bidder/events/). Served when server.admin_api_enabled is true; operator
// login will guard it (the sessions issue), so until then it belongs only on
// a listen address operators alone can reach.
//
//   GET    /api/devices/{id}/events?limit=N[&from=<ms>&to=<ms>]
//          a device's events, newest first (limit 1..10000, default 100); with
//          from/to only those with from <= event time < to
//   GET    /api/events?type=<impression|click|...>&from=<ms>&to=<ms>[&limit=N]
//          events of one type across all index buckets, newest first
//   DELETE /api/devices/{id}
//          erases the device: 202 with the erasure's status
//   GET    /api/devices/{id}/erasure
//          the erasure's steps (404 when the device was never erased)
//   POST   /api/put, POST /api/query, GET|POST /api/suggest
//          the OpenTSDB-compatible telemetry API (bidder/telemetry/opentsdb.h),
//          when telemetry is on
//
// {id} is the raw device id (advertising id or our user id), percent-encoded;
// it is hashed into the device key at once and never stored or logged.
// Answers are JSON; errors are {"error": "..."} with 400, 404 or 500.
// Storage calls run on the API's own threads, never on an I/O thread.
//
// Thread-safety: handlers are called concurrently from every I/O thread.
#ifndef RTB_BIDDER_ADMIN_API_H_
#define RTB_BIDDER_ADMIN_API_H_

#include <memory>

#include "bidder/http_server.h"
#include "config/config.h"

namespace rtb::bidder {

namespace events {
class EventStore;
class DeviceEraser;
}  // namespace events

namespace telemetry {
class Telemetry;
}  // namespace telemetry

class AdminApi {
 public:
  // `config`, `events`, `eraser` and `telemetry` (null: no telemetry
  // routes) must outlive the API.
  AdminApi(const config::BidderConfig& config, events::EventStore& events,
           events::DeviceEraser& eraser, telemetry::Telemetry* telemetry);
  // Waits for the calls still running.
  ~AdminApi();
  AdminApi(const AdminApi&) = delete;
  AdminApi& operator=(const AdminApi&) = delete;

  void Register(HttpServer& server);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rtb::bidder

#endif  // RTB_BIDDER_ADMIN_API_H_
