// Thrift binary-protocol messages as byte strings, so that the sockets can be
// driven by Asio instead of Thrift's blocking transports. A request is
// written by the generated THBaseServiceClient::send_<call> into a memory
// buffer; the reply bytes are read back by recv_<call> from one. Both run
// inside a catch-all that turns Thrift exceptions into absl::Status.
//
// Framing on the socket:
//   framed:   [4-byte big-endian length][message]
//   buffered: [message], its end found by walking the binary protocol
#ifndef RTB_STORAGE_HBASE_WIRE_H_
#define RTB_STORAGE_HBASE_WIRE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "storage/hbase/errors.h"
#include "storage/thrift/THBaseService.h"
#include "thrift/protocol/TBinaryProtocol.h"
#include "thrift/transport/TBufferTransports.h"

namespace rtb::storage::hbase {

// `send(client)` calls one client.send_<call>(...); returns its bytes.
template <typename Send>
absl::StatusOr<std::string> EncodeRequest(std::string_view call, Send&& send) {
  namespace at = ::apache::thrift;
  try {
    auto buffer = std::make_shared<at::transport::TMemoryBuffer>(512);
    auto protocol = std::make_shared<at::protocol::TBinaryProtocol>(buffer);
    thrift2::THBaseServiceClient client(protocol);
    std::forward<Send>(send)(client);
    return buffer->getBufferAsString();
  } catch (...) {
    return StatusFromThriftException(std::current_exception(), call);
  }
}

// `receive(client)` calls one client.recv_<call>(...) on the reply bytes.
template <typename Receive>
absl::Status DecodeReply(std::string_view call, std::string& reply, Receive&& receive) {
  namespace at = ::apache::thrift;
  try {
    auto buffer = std::make_shared<at::transport::TMemoryBuffer>(
        reinterpret_cast<uint8_t*>(reply.data()), static_cast<uint32_t>(reply.size()),
        at::transport::TMemoryBuffer::OBSERVE);
    auto protocol = std::make_shared<at::protocol::TBinaryProtocol>(buffer);
    thrift2::THBaseServiceClient client(protocol);
    std::forward<Receive>(receive)(client);
    return absl::OkStatus();
  } catch (...) {
    return StatusFromThriftException(std::current_exception(), call);
  }
}

// Finds where a binary-protocol message ends as its bytes arrive, without
// building it. Each call resumes where the previous one stopped, so reading
// a reply costs one pass over its bytes however it is split.
class MessageScanner {
 public:
  explicit MessageScanner(size_t max_bytes) : max_bytes_(max_bytes) {}

  // `data` is everything received so far (the previous `data` plus more).
  // Returns the message length once it is complete, 0 while more bytes are
  // needed, or an error when the bytes cannot be a message or it would
  // exceed `max_bytes`.
  absl::StatusOr<size_t> Scan(std::string_view data);

 private:
  struct Frame {
    uint8_t kind;        // struct, list/set or map
    uint8_t first = 0;   // element type (key type of a map)
    uint8_t second = 0;  // value type of a map
    int32_t remaining = 0;
    bool value_next = false;
  };
  enum class Step { kDone, kProgress, kNeedMore, kError };

  Step ScanHeader(std::string_view data);
  Step ScanValue(std::string_view data);
  Step ScanValueStart(std::string_view data, uint8_t type, size_t* p, std::optional<Frame>* child);
  Step Fail(std::string reason);

  size_t max_bytes_;
  size_t pos_ = 0;
  bool header_done_ = false;
  std::vector<Frame> stack_;
  absl::Status error_;
};

// The length of the complete message at the start of `data`, as above.
absl::StatusOr<size_t> CompleteMessageSize(std::string_view data, size_t max_bytes);

// Frame header of a framed-transport message of `size` bytes.
std::array<uint8_t, 4> FrameHeader(uint32_t size);
uint32_t ReadFrameHeader(const uint8_t* header);

}  // namespace rtb::storage::hbase

#endif  // RTB_STORAGE_HBASE_WIRE_H_
