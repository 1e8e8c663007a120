#include "bidder/http/internal/http_session.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <charconv>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "bidder/http/internal/string_views.h"
#include "boost/asio/buffer.hpp"
#include "boost/asio/dispatch.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/write.hpp"
#include "boost/beast/core/bind_handler.hpp"
#include "boost/beast/core/error.hpp"
#include "boost/beast/http/error.hpp"
#include "boost/beast/http/field.hpp"
#include "boost/beast/http/status.hpp"

namespace rtb::bidder::internal {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

// Bytes asked of the socket per read.
constexpr size_t kReadChunk = 16 << 10;
// What a lingering close reads and discards at most.
constexpr size_t kMaxLingerBytes = 1 << 20;
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
constexpr std::string_view kTextPlain = "text/plain; charset=utf-8";

// Delivers a handler's answer to its session exactly once, on the session's
// thread; answers 500 when every copy of the Responder is gone unanswered.
class ResponseSlot {
 public:
  ResponseSlot(std::shared_ptr<Session> session, uint64_t generation)
      : session_(std::move(session)), generation_(generation) {}
  ResponseSlot(const ResponseSlot&) = delete;
  ResponseSlot& operator=(const ResponseSlot&) = delete;

  // The session's executor is read through the session each lambda below
  // holds (a copy per request cost more than the rest of the slot).
  ~ResponseSlot() {
    if (answered_.exchange(true)) return;
    const asio::any_io_executor& executor = session_->executor();
    asio::post(executor, [session = std::move(session_), generation = generation_] {
      session->OnHandlerFault(generation);
    });
  }

  void Answer(HttpResponse response) {
    if (answered_.exchange(true)) return;
    const asio::any_io_executor& executor = session_->executor();
    asio::dispatch(executor, [session = std::move(session_), generation = generation_,
                              response = std::move(response)]() mutable {
      session->OnHandlerResponse(generation, std::move(response));
    });
  }

  void Fault() {
    if (answered_.exchange(true)) return;
    const asio::any_io_executor& executor = session_->executor();
    asio::dispatch(executor, [session = std::move(session_), generation = generation_] {
      session->OnHandlerFault(generation);
    });
  }

 private:
  std::atomic<bool> answered_{false};
  std::shared_ptr<Session> session_;
  const uint64_t generation_;
};

bool IsTokenChar(char c) {
  if (absl::ascii_isalnum(static_cast<unsigned char>(c))) return true;
  switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
      return true;
    default:
      return false;
  }
}

// Headers the server writes itself; a handler may not set them.
bool IsServerHeader(std::string_view name) {
  for (std::string_view reserved :
       {"content-length", "transfer-encoding", "connection", "date", "content-type"}) {
    if (absl::EqualsIgnoreCase(AbslView(name), AbslView(reserved))) return true;
  }
  return false;
}

bool IsValidResponse(const HttpResponse& response, size_t max_body) {
  if (response.status < 200 || response.status > 999) return false;
  if (response.body.size() > max_body) return false;
  for (const auto& [name, value] : response.headers) {
    if (name.empty() || IsServerHeader(name)) return false;
    for (char c : name) {
      if (!IsTokenChar(c)) return false;
    }
    for (char c : value) {
      if (c == '\r' || c == '\n' || c == '\0') return false;
    }
  }
  for (char c : response.content_type) {
    if (c == '\r' || c == '\n' || c == '\0') return false;
  }
  return true;
}

bool AllowsBody(unsigned status) { return status >= 200 && status != 204 && status != 304; }

bool IsAbortive(CloseReason reason) {
  switch (reason) {
    case CloseReason::kFirstByteTimeout:
    case CloseReason::kReadTimeout:
    case CloseReason::kEvicted:
      return true;
    default:
      return false;
  }
}

void AppendNumber(std::string& out, uint64_t n) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), n);
  out.append(digits, end);
}

// The body RecycledResponseBody hands out next: one per thread, the
// roomiest up to the limit.
constexpr size_t kRecycledBodyLimit = 64 << 10;
thread_local std::string recycled_body;

void RecycleResponseBody(std::string body) {
  if (body.capacity() > kRecycledBodyLimit || body.capacity() <= recycled_body.capacity()) return;
  body.clear();
  recycled_body.swap(body);
}

}  // namespace

Session::Session(Worker& worker, Socket socket, const asio::ip::address& peer, ConnectionSlot slot)
    : worker_(&worker),
      core_(worker.core),
      socket_(std::move(socket)),
      slot_(std::move(slot)),
      executor_(worker.ioc->get_executor()),
      buffer_(core_.limits.max_header_bytes + 2 * kReadChunk) {
  deadline_.session = this;
  Register();
  core_.metrics.open_connections.Increment();
  beast::error_code ec;
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  // Respond writes without blocking the I/O thread.
  socket_.non_blocking(true, ec);
  remote_address_ = peer.to_string();
}

Session::~Session() {
  LeavePhase();
  if (state_ != State::kClosed) {
    core_.metrics.Closed(CloseReason::kShutdown).Increment();
    core_.metrics.open_connections.Decrement();
  }
  Unregister();
}

void Session::Register() {
  registration_ = worker_->sessions.insert(worker_->sessions.end(), this);
}

void Session::Unregister() {
  if (registration_) worker_->sessions.erase(*std::exchange(registration_, std::nullopt));
}

void Session::Start() { AwaitRequest(std::chrono::steady_clock::now()); }

void Session::Drain() {
  if (state_ == State::kIdle) {
    // The pending read ends with operation_aborted and closes the session.
    beast::error_code ec;
    socket_.cancel(ec);
  } else if (state_ != State::kClosed && state_ != State::kLingering) {
    CloseAfterWrite(CloseReason::kShutdown);
  }
}

void Session::ForceClose() { Close(CloseReason::kShutdown); }

void Session::Evict() {
  if (state_ == State::kIdle) Close(CloseReason::kEvicted);
}

void Session::OnDeadline() {
  LeavePhase();
  switch (state_) {
    case State::kIdle: {
      // Bytes already waiting mean the client was in time and this thread
      // was late to read them (a busy machine; the intake at its low
      // priority): the pending read takes them, as a request begun now.
      beast::error_code ec;
      if (socket_.available(ec) > 0 && !ec) return BeginRequest();
      return Close(awaiting_first_byte_ ? CloseReason::kFirstByteTimeout
                                        : CloseReason::kIdleTimeout);
    }
    case State::kReading:
      core_.metrics.Error(RequestError::kReadTimeout).Increment();
      return Close(CloseReason::kReadTimeout);
    case State::kWriting:
      // The client has not taken its response in idle_timeout.
      return Close(CloseReason::kIoError);
    case State::kLingering:
      return Close(*close_after_write_);
    case State::kHandling:
    case State::kClosed:
      return;
  }
}

void Session::EnterPhase(DeadlineList& list, std::chrono::steady_clock::time_point since) {
  LeavePhase();
  deadline_.list = &list;
  deadline_.since = since;
  list.push_back(deadline_);
}

void Session::LeavePhase() {
  if (deadline_.list == nullptr) return;
  deadline_.list->erase(deadline_.list->iterator_to(deadline_));
  deadline_.list = nullptr;
}

void Session::CloseAfterWrite(CloseReason reason) {
  if (!close_after_write_) close_after_write_ = reason;
}

void Session::AwaitRequest(std::chrono::steady_clock::time_point now) {
  if (core_.draining.load(std::memory_order_relaxed)) return Close(CloseReason::kShutdown);
  state_ = State::kIdle;
  // The previous request's fields are gone with its parser: their arena
  // starts over.
  parser_.reset();
  header_arena_.Reset();
  parser_.emplace(std::piecewise_construct, std::make_tuple(),
                  std::make_tuple(HeaderAllocator<char>(&header_arena_)));
  parser_->header_limit(core_.limits.max_header_bytes);
  parser_->body_limit(core_.limits.max_body_bytes);
  body_storage_.clear();
  parser_->get().body() = std::move(body_storage_);
  sent_continue_ = false;
  close_after_write_.reset();
  route_id_ = kInvalidRoute;
  if (buffer_.size() > 0) {
    // The next request arrived with the previous one.
    BeginRequest();
    return Parse();
  }
  EnterPhase(awaiting_first_byte_ ? worker_->fresh : worker_->idle, now);
  ReadSome();
}

void Session::BeginRequest() {
  state_ = State::kReading;
  awaiting_first_byte_ = false;
  arrival_ = std::chrono::steady_clock::now();
  EnterPhase(worker_->reading, arrival_);
}

void Session::ReadSome() {
  const size_t room = buffer_.max_size() - buffer_.size();
  if (room == 0) return Refuse(http::error::header_limit);
  socket_.async_read_some(buffer_.prepare(std::min(room, kReadChunk)),
                          beast::bind_front_handler(&Session::OnRead, shared_from_this()));
}

void Session::OnRead(beast::error_code ec, size_t bytes) {
  if (state_ == State::kClosed) return;
  if (ec) {
    if (ec == asio::error::operation_aborted) return Close(CloseReason::kShutdown);
    if (ec == asio::error::eof || ec == asio::error::connection_reset) {
      return Close(CloseReason::kPeer);
    }
    return Close(CloseReason::kIoError);
  }
  buffer_.commit(bytes);
  if (state_ == State::kIdle) BeginRequest();
  Parse();
}

void Session::Parse() {
  beast::error_code ec;
  while (buffer_.size() > 0 && !parser_->is_done()) {
    const size_t used = parser_->put(buffer_.data(), ec);
    buffer_.consume(used);
    if (ec == http::error::need_more) {
      ec = {};
      break;
    }
    if (ec) return Refuse(ec);
  }
  if (parser_->is_done()) return Dispatch();
  if (parser_->is_header_done() && !sent_continue_) {
    sent_continue_ = true;
    const auto& req = parser_->get();
    if (req.version() >= 11 &&
        absl::EqualsIgnoreCase(AbslView(StdView(req[http::field::expect])), "100-continue")) {
      asio::async_write(socket_, asio::buffer(kContinue.data(), kContinue.size()),
                        beast::bind_front_handler(&Session::OnContinueWritten, shared_from_this()));
      return;
    }
  }
  ReadSome();
}

void Session::OnContinueWritten(beast::error_code ec, size_t) {
  if (state_ == State::kClosed) return;
  if (ec)
    return Close(ec == asio::error::operation_aborted ? CloseReason::kShutdown
                                                      : CloseReason::kIoError);
  ReadSome();
}

void Session::Refuse(beast::error_code parse_error) {
  state_ = State::kHandling;
  LeavePhase();
  if (parser_->is_header_done()) {
    const auto& req = parser_->get();
    const std::string_view target = StdView(req.target());
    route_id_ = core_.router.Find(req.method(), target.substr(0, target.find('?'))).route_id;
    version_ = req.version();
  } else {
    route_id_ = kInvalidRoute;
    version_ = 11;
  }
  RequestError error;
  if (parse_error == http::error::header_limit) {
    error = RequestError::kHeaderTooLarge;
    RespondLocal(431, "request header too large\n", &error, true);
  } else if (parse_error == http::error::body_limit ||
             parse_error == http::error::buffer_overflow) {
    error = RequestError::kBodyTooLarge;
    RespondLocal(413, "request body too large\n", &error, true);
  } else {
    error = RequestError::kMalformed;
    std::string message = "malformed request: " + parse_error.message() + "\n";
    RespondLocal(400, message, &error, true);
  }
}

void Session::Dispatch() {
  dispatching_ = true;
  DispatchRequest();
  dispatching_ = false;
  if (std::exchange(written_while_dispatching_, false)) AfterWriteUnnested();
}

void Session::DispatchRequest() {
  state_ = State::kHandling;
  // A handler bounds its own time (the bid deadline); no timeout runs.
  LeavePhase();
  if (worker_->intake) return MoveToIoThread();
  auto& req = parser_->get();
  keep_alive_ = req.keep_alive();
  version_ = req.version();
  const std::string_view target = StdView(req.target());
  const std::string_view path = target.substr(0, target.find('?'));
  const Router::Match match = core_.router.Find(req.method(), path);
  route_id_ = match.route_id;
  core_.metrics.request_bytes.Observe(static_cast<double>(req.body().size()));

  if (match.kind == Router::Kind::kNotFound) {
    return RespondLocal(404, "not found\n", nullptr, false);
  }
  if (match.kind == Router::Kind::kWrongMethod) {
    HttpResponse response;
    response.status = 405;
    response.content_type = kTextPlain;
    response.body = "method not allowed\n";
    response.headers.emplace_back("Allow", std::string(match.allow));
    return Respond(std::move(response));
  }

  std::string_view body = req.body();
  const std::string_view encoding_header = StdView(req[http::field::content_encoding]);
  if (!encoding_header.empty()) {
    const absl::string_view encoding = absl::StripAsciiWhitespace(AbslView(encoding_header));
    std::optional<BodyEncoding> compressed;
    if (absl::EqualsIgnoreCase(encoding, "gzip") || absl::EqualsIgnoreCase(encoding, "x-gzip")) {
      compressed = BodyEncoding::kGzip;
    } else if (absl::EqualsIgnoreCase(encoding, "deflate")) {
      compressed = BodyEncoding::kDeflate;
    } else if (!absl::EqualsIgnoreCase(encoding, "identity")) {
      RequestError error = RequestError::kUnsupportedEncoding;
      return RespondLocal(415, "unsupported Content-Encoding (gzip, deflate or identity)\n", &error,
                          false);
    }
    if (compressed) {
      const absl::Status inflated = worker_->inflater.Inflate(
          body, *compressed, core_.limits.max_inflated_body_bytes, inflated_);
      if (!inflated.ok()) {
        RequestError error;
        if (absl::IsResourceExhausted(inflated)) {
          error = RequestError::kInflatedTooLarge;
          return RespondLocal(413, "inflated request body too large\n", &error, false);
        }
        error = RequestError::kBadCompressedBody;
        return RespondLocal(400, std::string(inflated.message()) + "\n", &error, false);
      }
      core_.metrics.request_inflated_bytes.Observe(static_cast<double>(inflated_.size()));
      body = inflated_;
    }
  }

  request_.method = req.method();
  request_.target = target;
  request_.path = path;
  request_.body = body;
  request_.headers = &req;
  request_.arrival = arrival_;
  request_.executor = executor_;
  request_.remote_address = remote_address_;
  request_.wire_body_bytes = req.body().size();

  const uint64_t generation = ++generation_;
  auto slot = std::make_shared<ResponseSlot>(shared_from_this(), generation);
  try {
    (*match.handler)(request_,
                     [slot](HttpResponse response) { slot->Answer(std::move(response)); });
  } catch (...) {
    // Handlers should not throw; one that does costs its request, not the
    // I/O thread.
    slot->Fault();
  }
}

void Session::MoveToIoThread() {
  // No operation is pending on the socket (the request has been read), and
  // the session is on no deadline list: nothing on the intake refers to it
  // once it leaves the intake's session list.
  Worker& target = core_.NextWorker();
  beast::error_code ec;
  const asio::ip::tcp protocol = socket_.local_endpoint(ec).protocol();
  if (ec) return Close(CloseReason::kIoError);
  const Socket::native_handle_type descriptor = socket_.release(ec);
  if (ec) return Close(CloseReason::kIoError);
  Socket moved(target.ioc->get_executor());
  moved.assign(protocol, descriptor, ec);
  if (ec) {
    ::close(descriptor);
    return Close(CloseReason::kIoError);
  }
  moved.non_blocking(true, ec);
  if (ec) return Close(CloseReason::kIoError);
  Unregister();
  socket_ = std::move(moved);
  worker_ = &target;
  executor_ = target.ioc->get_executor();
  asio::post(executor_, [self = shared_from_this()] {
    self->Register();
    self->Dispatch();
  });
}

void Session::OnHandlerResponse(uint64_t generation, HttpResponse response) {
  if (generation != generation_ || state_ != State::kHandling) return;
  if (!IsValidResponse(response, core_.limits.max_response_bytes)) {
    return OnHandlerFault(generation);
  }
  Respond(std::move(response));
}

void Session::OnHandlerFault(uint64_t generation) {
  if (generation != generation_ || state_ != State::kHandling) return;
  RequestError error = RequestError::kHandlerFault;
  RespondLocal(500, "internal error\n", &error, false);
}

void Session::RespondLocal(unsigned status, std::string_view message, RequestError* error,
                           bool close) {
  if (error != nullptr) core_.metrics.Error(*error).Increment();
  if (close) CloseAfterWrite(CloseReason::kProtocol);
  HttpResponse response;
  response.status = status;
  response.content_type = kTextPlain;
  response.body = message;
  Respond(std::move(response));
}

void Session::Respond(HttpResponse response) {
  if (!keep_alive_) CloseAfterWrite(CloseReason::kNoKeepAlive);
  if (core_.draining.load(std::memory_order_relaxed)) CloseAfterWrite(CloseReason::kShutdown);
  response_ = std::move(response);
  const bool with_body = AllowsBody(response_.status) && !response_.content_type.empty();
  WriteHead(response_, with_body);

  const auto now = std::chrono::steady_clock::now();
  worker_->RequestCounter(route_id_, response_.status).Increment();
  core_.durations[route_id_]->Observe(std::chrono::duration<double>(now - arrival_).count());
  core_.metrics.response_bytes.Observe(with_body ? static_cast<double>(response_.body.size()) : 0);

  state_ = State::kWriting;
  EnterPhase(worker_->writing, now);
  const asio::const_buffer head = asio::buffer(std::as_const(head_));
  const asio::const_buffer body =
      with_body ? asio::buffer(std::as_const(response_.body)) : asio::const_buffer();
  // A response that fits the socket's send buffer (nearly all) is written
  // here, with no write operation: its completion would cost a turn of the
  // I/O loop, an epoll_wait of its own at a bidder's rates. The socket is
  // non-blocking; what does not fit goes by async_write.
  using Buffers = std::array<asio::const_buffer, 2>;
  beast::error_code ec;
  const size_t written = socket_.write_some(Buffers{head, body}, ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) ec = {};
  if (ec) return Close(CloseReason::kIoError);
  if (written == head.size() + body.size()) {
    responded_at_ = now;
    if (dispatching_) {
      written_while_dispatching_ = true;
      return;
    }
    return AfterWriteUnnested();
  }
  const Buffers rest = written < head.size()
                           ? Buffers{head + written, body}
                           : Buffers{asio::const_buffer(), body + (written - head.size())};
  asio::async_write(socket_, rest,
                    beast::bind_front_handler(&Session::OnWrite, shared_from_this()));
}

void Session::WriteHead(const HttpResponse& response, bool with_body) {
  head_.clear();
  head_ += "HTTP/1.1 ";
  AppendNumber(head_, response.status);
  head_ += ' ';
  const auto reason = http::obsolete_reason(static_cast<http::status>(response.status));
  if (!reason.starts_with("<")) head_.append(reason.data(), reason.size());
  head_ += "\r\nDate: ";
  head_ += worker_->Date();
  head_ += "\r\n";
  if (with_body) {
    head_ += "Content-Type: ";
    head_ += response.content_type;
    head_ += "\r\nContent-Length: ";
    AppendNumber(head_, response.body.size());
    head_ += "\r\n";
  } else if (AllowsBody(response.status)) {
    head_ += "Content-Length: 0\r\n";
  }
  if (close_after_write_) {
    head_ += "Connection: close\r\n";
  } else if (version_ == 10) {
    head_ += "Connection: keep-alive\r\n";
  }
  for (const auto& [name, value] : response.headers) {
    head_ += name;
    head_ += ": ";
    head_ += value;
    head_ += "\r\n";
  }
  head_ += "\r\n";
}

void Session::OnWrite(beast::error_code ec, size_t) {
  if (state_ == State::kClosed) return;
  if (ec) {
    return Close(ec == asio::error::operation_aborted ? CloseReason::kShutdown
                                                      : CloseReason::kIoError);
  }
  AfterWrite(std::chrono::steady_clock::now());
}

void Session::AfterWriteUnnested() {
  if (buffer_.size() == 0) return AfterWrite(responded_at_);
  asio::post(executor_, [self = shared_from_this()] {
    if (self->state_ == State::kWriting) self->AfterWrite(self->responded_at_);
  });
}

void Session::AfterWrite(std::chrono::steady_clock::time_point written_at) {
  // The request's views are released; keep the body's memory for the next.
  body_storage_ = std::move(parser_->get().body());
  parser_.reset();
  RecycleResponseBody(std::move(response_.body));
  response_.body.clear();
  response_.headers.clear();
  if (close_after_write_) return Linger();
  AwaitRequest(written_at);
}

void Session::Linger() {
  // Shut down our side, then drain what the client still sends so our close
  // does not reset the connection before it has read the response.
  state_ = State::kLingering;
  beast::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ec);
  if (ec) return Close(*close_after_write_);
  lingered_bytes_ = 0;
  buffer_.clear();
  EnterPhase(worker_->lingering, std::chrono::steady_clock::now());
  socket_.async_read_some(buffer_.prepare(kReadChunk),
                          beast::bind_front_handler(&Session::OnLinger, shared_from_this()));
}

void Session::OnLinger(beast::error_code ec, size_t bytes) {
  if (state_ == State::kClosed) return;
  lingered_bytes_ += bytes;
  if (ec || lingered_bytes_ > kMaxLingerBytes) return Close(*close_after_write_);
  buffer_.clear();
  socket_.async_read_some(buffer_.prepare(kReadChunk),
                          beast::bind_front_handler(&Session::OnLinger, shared_from_this()));
}

void Session::Close(CloseReason reason) {
  if (state_ == State::kClosed) return;
  LeavePhase();
  state_ = State::kClosed;
  core_.metrics.Closed(reason).Increment();
  beast::error_code ec;
  if (IsAbortive(reason)) {
    // A connection that let a timeout pass, or was evicted while waiting
    // for a request, is reset rather than shut down: no FIN exchange and no
    // TIME_WAIT socket is left behind, which a flood of them would
    // otherwise pile up by the ten thousand.
    socket_.set_option(asio::socket_base::linger(true, 0), ec);
  }
  socket_.close(ec);
  // The descriptor is gone: its slot is free for a new connection now, not
  // only when the session's last handler has run.
  slot_.Release();
  core_.metrics.open_connections.Decrement();
}

}  // namespace rtb::bidder::internal

namespace rtb::bidder {

std::string RecycledResponseBody() {
  std::string body;
  body.swap(internal::recycled_body);
  return body;
}

}  // namespace rtb::bidder
