#include "storage/hbase/connection.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "boost/asio/bind_executor.hpp"
#include "boost/asio/buffer.hpp"
#include "boost/asio/error.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/read.hpp"
#include "boost/asio/write.hpp"
#include "storage/hbase/errors.h"
#include "storage/hbase/wire.h"

namespace rtb::storage::hbase {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {
// Bytes asked of the socket per read of an unframed reply: growing with the
// reply, so a large one takes few reads.
constexpr size_t kMinReadChunk = 16 * 1024;
constexpr size_t kMaxReadChunk = 1024 * 1024;
}  // namespace

Connection::Connection(Strand strand, ThriftTransport framing, size_t max_message_bytes)
    : strand_(strand),
      socket_(strand),
      timer_(strand),
      framing_(framing),
      max_message_bytes_(max_message_bytes),
      scanner_(max_message_bytes) {}

void Connection::ArmTimer(Clock::time_point when) {
  uint64_t generation = ++generation_;
  timed_out_ = false;
  timer_.expires_at(when);
  timer_.async_wait(asio::bind_executor(
      strand_, [self = shared_from_this(), generation](const boost::system::error_code& error) {
        if (error || generation != self->generation_) return;
        self->timed_out_ = true;
        boost::system::error_code ignored;
        self->socket_.close(ignored);
      }));
}

void Connection::Connect(const tcp::endpoint& address, std::chrono::milliseconds connect_timeout,
                         Clock::time_point deadline, std::function<void(absl::Status)> done) {
  boost::system::error_code error;
  socket_.open(address.protocol(), error);
  if (error) {
    asio::post(strand_, [done = std::move(done), error] {
      done(StatusFromNetworkError(error, "opening a socket"));
    });
    return;
  }
  ArmTimer(std::min(deadline, Clock::now() + connect_timeout));
  socket_.async_connect(
      address, asio::bind_executor(strand_, [self = shared_from_this(), address, deadline,
                                             done = std::move(done)](
                                                const boost::system::error_code& error) {
        ++self->generation_;  // disarms the timer
        self->timer_.cancel();
        const std::string where =
            absl::StrCat("connecting to ", address.address().to_string(), ":", address.port());
        if (self->timed_out_) {
          if (Clock::now() >= deadline) {
            done(absl::DeadlineExceededError(absl::StrCat(where, ": deadline passed")));
          } else {
            done(absl::UnavailableError(absl::StrCat(where, ": timed out")));
          }
          return;
        }
        if (error) {
          done(StatusFromNetworkError(error, where));
          return;
        }
        boost::system::error_code ignored;
        self->socket_.set_option(tcp::no_delay(true), ignored);
        done(absl::OkStatus());
      }));
}

void Connection::Exchange(std::shared_ptr<const std::string> request, Clock::time_point deadline,
                          std::function<void(ExchangeResult)> done) {
  done_ = std::move(done);
  request_ = std::move(request);
  received_any_ = false;
  ArmTimer(deadline);
  std::vector<asio::const_buffer> buffers;
  if (framing_ == ThriftTransport::kFramed) {
    header_ = FrameHeader(static_cast<uint32_t>(request_->size()));
    buffers.push_back(asio::buffer(header_));
  }
  buffers.push_back(asio::buffer(*request_));
  asio::async_write(
      socket_, buffers,
      asio::bind_executor(
          strand_, [self = shared_from_this()](const boost::system::error_code& error, size_t) {
            if (error) {
              self->Finish({self->FailureStatus(error, "sending"), false, true});
              return;
            }
            if (self->framing_ == ThriftTransport::kFramed) {
              self->ReadFrameHeader();
            } else {
              self->reply_.clear();
              self->scanner_ = MessageScanner(self->max_message_bytes_);
              self->ReadUnframed();
            }
          }));
}

void Connection::ReadFrameHeader() {
  asio::async_read(
      socket_, asio::buffer(header_),
      asio::bind_executor(
          strand_, [self = shared_from_this()](const boost::system::error_code& error, size_t) {
            if (error) {
              self->Finish(
                  {self->FailureStatus(error, "reading a reply"), false, !self->received_any_});
              return;
            }
            self->received_any_ = true;
            uint32_t size = hbase::ReadFrameHeader(self->header_.data());
            if (size > self->max_message_bytes_ || size > 0x7fffffffu) {
              self->Finish({absl::InternalError(absl::StrCat("reply frame of ", size,
                                                             " bytes exceeds max_message_bytes")),
                            false, false});
              return;
            }
            self->ReadFrameBody(size);
          }));
}

void Connection::ReadFrameBody(uint32_t size) {
  reply_.resize(size);
  asio::async_read(
      socket_, asio::buffer(reply_),
      asio::bind_executor(
          strand_, [self = shared_from_this()](const boost::system::error_code& error, size_t) {
            if (error) {
              self->Finish({self->FailureStatus(error, "reading a reply"), false, false});
              return;
            }
            self->Finish({std::move(self->reply_), true, false});
          }));
}

void Connection::ReadUnframed() {
  size_t old_size = reply_.size();
  size_t chunk = std::clamp(old_size, kMinReadChunk, kMaxReadChunk);
  reply_.resize(old_size + chunk);
  socket_.async_read_some(
      asio::buffer(reply_.data() + old_size, chunk),
      asio::bind_executor(strand_, [self = shared_from_this(), old_size](
                                       const boost::system::error_code& error, size_t read) {
        self->reply_.resize(old_size + read);
        if (error) {
          self->Finish({self->FailureStatus(error, "reading a reply"), false,
                        !self->received_any_ && read == 0});
          return;
        }
        if (read > 0) self->received_any_ = true;
        absl::StatusOr<size_t> complete = self->scanner_.Scan(self->reply_);
        if (!complete.ok()) {
          self->Finish({complete.status(), false, false});
          return;
        }
        if (*complete == 0) {
          self->ReadUnframed();
          return;
        }
        if (*complete != self->reply_.size()) {
          self->Finish(
              {absl::InternalError("hbase gateway sent bytes after its reply"), false, false});
          return;
        }
        self->Finish({std::move(self->reply_), true, false});
      }));
}

absl::Status Connection::FailureStatus(const boost::system::error_code& error,
                                       const char* step) const {
  if (timed_out_) return absl::DeadlineExceededError(absl::StrCat(step, ": deadline passed"));
  if (error == asio::error::eof) {
    return absl::UnavailableError(absl::StrCat(step, ": the gateway closed the connection"));
  }
  return StatusFromNetworkError(error, step);
}

void Connection::Finish(ExchangeResult result) {
  ++generation_;
  timer_.cancel();
  ++exchanges_;
  request_.reset();
  reply_.clear();
  if (!result.reusable) Close();
  auto done = std::move(done_);
  done_ = nullptr;
  done(std::move(result));
}

bool Connection::LooksAlive() {
  if (!socket_.is_open()) return false;
  boost::system::error_code error;
  socket_.non_blocking(true, error);
  if (error) return false;
  char byte;
  size_t n = socket_.receive(asio::buffer(&byte, 1), tcp::socket::message_peek, error);
  return n == 0 && error == asio::error::would_block;
}

void Connection::Close() {
  boost::system::error_code ignored;
  socket_.close(ignored);
}

}  // namespace rtb::storage::hbase
