// A loopback TCP listener that accepts connections, reads whatever arrives
// and never answers: how a hung or overloaded gateway looks from the client.
// Used to show deadlines and hedging work whatever the server does.
#ifndef RTB_TESTS_STORAGE_HBASE_STALLED_LISTENER_H_
#define RTB_TESTS_STORAGE_HBASE_STALLED_LISTENER_H_

#include <atomic>
#include <list>
#include <memory>
#include <string>
#include <thread>

#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"

namespace rtb::storage::testing {

class StalledListener {
 public:
  StalledListener()
      : acceptor_(io_,
                  boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0)) {
    Accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~StalledListener() {
    io_.stop();
    thread_.join();
  }

  std::string endpoint() const {
    return "127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port());
  }
  int accepted() const { return accepted_.load(); }

 private:
  struct Peer {
    explicit Peer(boost::asio::io_context& io) : socket(io) {}
    boost::asio::ip::tcp::socket socket;
    char buffer[4096];
  };

  void Accept() {
    auto peer = std::make_shared<Peer>(io_);
    acceptor_.async_accept(peer->socket, [this, peer](const boost::system::error_code& error) {
      if (error) return;
      ++accepted_;
      peers_.push_back(peer);
      Drain(peer);
      Accept();
    });
  }

  void Drain(std::shared_ptr<Peer> peer) {
    peer->socket.async_read_some(boost::asio::buffer(peer->buffer),
                                 [this, peer](const boost::system::error_code& error, size_t) {
                                   if (!error) Drain(peer);
                                 });
  }

  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::list<std::shared_ptr<Peer>> peers_;
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

// A loopback port nothing listens on (bound, then closed).
inline std::string RefusingEndpoint() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor a(
      io, boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
  std::string e = "127.0.0.1:" + std::to_string(a.local_endpoint().port());
  a.close();
  return e;
}

}  // namespace rtb::storage::testing

#endif  // RTB_TESTS_STORAGE_HBASE_STALLED_LISTENER_H_
