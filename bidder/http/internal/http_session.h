// One HTTP/1.1 connection: read a request, hand it to its route's handler,
// write the answer, and only then read the next request (backpressure).
//
// The session owns everything a request needs - the read buffer, the
// parser's body string, the inflated body, the response head - and reuses
// their memory from request to request. Its timeouts are kept by its worker:
// in each phase the session is on that phase's deadline list, and the
// worker's sweep closes it once the phase has lasted its timeout -
// first_byte_timeout from accept to the first byte of the first request,
// idle_timeout while waiting for a later request's first byte, read_timeout
// from there to its last byte, idle_timeout again for writing the response,
// linger while closing. While it waits for a request the session is on one
// of the two lists from which sessions are evicted when the server nears
// max_connections (Worker::EvictOldestIdle). A wait for a request that the
// sweep finds past its deadline with bytes already in the socket is not
// closed: the client was in time, the thread was late.
//
// A session that starts on the intake moves once, when its first request is
// complete: its socket is re-registered with an I/O thread's io_context and
// the request is dispatched there, so handlers never run on the intake.
//
// Thread-safety: a session lives on its worker's thread; every member
// function runs there (after the move, on the new worker's). The Responder
// it hands out may be called from any thread and re-posts itself there.
#ifndef RTB_BIDDER_HTTP_INTERNAL_HTTP_SESSION_H_
#define RTB_BIDDER_HTTP_INTERNAL_HTTP_SESSION_H_

#include <chrono>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bidder/http/http_server.h"
#include "bidder/http/internal/http_metrics.h"
#include "bidder/http/internal/server_core.h"
#include "boost/asio/any_io_executor.hpp"
#include "boost/beast/core/flat_buffer.hpp"
#include "boost/beast/http/parser.hpp"
#include "boost/beast/http/string_body.hpp"

namespace rtb::bidder::internal {

class Session : public std::enable_shared_from_this<Session> {
 public:
  // On the worker's thread.
  Session(Worker& worker, Socket socket, const boost::asio::ip::address& peer, ConnectionSlot slot);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void Start();
  // Shutdown has begun: close now if waiting for a request, otherwise close
  // after the response in progress.
  void Drain();
  // Closes the socket whatever the session is doing.
  void ForceClose();
  // Closes a session that waits for a request, to make room for a new
  // connection.
  void Evict();
  // The session's phase has lasted its timeout: close, counting why.
  void OnDeadline();

  // The executor of the session's thread; set before a request is
  // dispatched, not changed while it is handled.
  const boost::asio::any_io_executor& executor() const { return executor_; }

  // The handler's answer (or its failure) to request number `generation`;
  // stale answers are dropped.
  void OnHandlerResponse(uint64_t generation, HttpResponse response);
  void OnHandlerFault(uint64_t generation);

 private:
  enum class State { kIdle, kReading, kHandling, kWriting, kLingering, kClosed };

  // Waits for the next request; the connection is idle from `now`.
  void AwaitRequest(std::chrono::steady_clock::time_point now);
  void BeginRequest();
  // Moves the session to `list` (the deadline list of the phase it enters
  // at `since`), or off every list.
  void EnterPhase(DeadlineList& list, std::chrono::steady_clock::time_point since);
  void LeavePhase();
  void ReadSome();
  void OnRead(boost::beast::error_code ec, size_t bytes);
  void Parse();
  void OnContinueWritten(boost::beast::error_code ec, size_t bytes);
  void Refuse(boost::beast::error_code parse_error);
  // Hands the request to its handler, and finishes a response the handler
  // wrote before returning (AfterWrite), since the handler's views of the
  // request live until then.
  void Dispatch();
  void DispatchRequest();
  // From the intake to an I/O thread, which then dispatches the request.
  void MoveToIoThread();
  void Register();
  void Unregister();
  void RespondLocal(unsigned status, std::string_view message, RequestError* error, bool close);
  void Respond(HttpResponse response);
  void OnWrite(boost::beast::error_code ec, size_t bytes);
  // The response is written (its last byte at `written_at`): the next
  // request, or the close.
  void AfterWrite(std::chrono::steady_clock::time_point written_at);
  // AfterWrite now, or by the I/O loop when the next request is already
  // here (pipelined): answering it from here would nest each pipelined
  // request's stack in its predecessor's.
  void AfterWriteUnnested();
  void Linger();
  void OnLinger(boost::beast::error_code ec, size_t bytes);
  void Close(CloseReason reason);
  void CloseAfterWrite(CloseReason reason);
  void WriteHead(const HttpResponse& response, bool with_body);

  Worker* worker_;
  ServerCore& core_;
  Socket socket_;
  ConnectionSlot slot_;
  boost::asio::any_io_executor executor_;
  // The session's place in worker_->sessions, while it is on that list (not
  // while it moves between workers).
  std::optional<std::list<Session*>::iterator> registration_;
  std::string remote_address_;

  State state_ = State::kIdle;
  // No byte of any request read yet: the first-byte timeout applies.
  bool awaiting_first_byte_ = true;
  DeadlineEntry deadline_;
  boost::beast::flat_buffer buffer_;
  HeaderArena header_arena_;  // before the parser, whose fields live in it
  std::optional<
      boost::beast::http::request_parser<boost::beast::http::string_body, HeaderAllocator<char>>>
      parser_;
  std::string body_storage_;  // the parser's body string between requests
  std::string inflated_;
  bool sent_continue_ = false;

  uint64_t generation_ = 0;
  std::chrono::steady_clock::time_point arrival_;
  int route_id_ = kInvalidRoute;
  bool keep_alive_ = true;
  unsigned version_ = 11;
  HttpRequest request_;

  std::optional<CloseReason> close_after_write_;
  // Inside Dispatch: a response written now waits for it to return.
  bool dispatching_ = false;
  bool written_while_dispatching_ = false;
  HttpResponse response_;
  // When Respond wrote the whole response at once: the time it read, which
  // the idle phase after it starts from rather than reading the clock again.
  std::chrono::steady_clock::time_point responded_at_;
  std::string head_;
  size_t lingered_bytes_ = 0;
};

}  // namespace rtb::bidder::internal

#endif  // RTB_BIDDER_HTTP_INTERNAL_HTTP_SESSION_H_
