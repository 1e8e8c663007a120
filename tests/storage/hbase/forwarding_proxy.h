// A loopback TCP proxy in front of a real gateway that can cut every
// connection on demand, the way a restarting gateway or a load balancer
// dropping idle connections would.
#ifndef RTB_TESTS_STORAGE_HBASE_FORWARDING_PROXY_H_
#define RTB_TESTS_STORAGE_HBASE_FORWARDING_PROXY_H_

#include <array>
#include <atomic>
#include <future>
#include <list>
#include <memory>
#include <string>
#include <thread>

#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/write.hpp"

namespace rtb::storage::testing {

class ForwardingProxy {
 public:
  ForwardingProxy(const std::string& host, uint16_t port)
      : target_(boost::asio::ip::make_address(host), port),
        acceptor_(io_,
                  boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0)) {
    Accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~ForwardingProxy() {
    io_.stop();
    thread_.join();
  }

  std::string endpoint() const {
    return "127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port());
  }

  // Closes both sides of every connection made so far.
  void DropAll() {
    std::promise<void> done;
    boost::asio::post(io_, [&] {
      for (auto& link : links_) {
        boost::system::error_code ignored;
        link->client.close(ignored);
        link->server.close(ignored);
      }
      links_.clear();
      done.set_value();
    });
    done.get_future().wait();
  }

 private:
  struct Link {
    explicit Link(boost::asio::io_context& io) : client(io), server(io) {}
    boost::asio::ip::tcp::socket client;
    boost::asio::ip::tcp::socket server;
    std::array<char, 16384> up;
    std::array<char, 16384> down;
  };

  void Accept() {
    auto link = std::make_shared<Link>(io_);
    acceptor_.async_accept(link->client, [this, link](const boost::system::error_code& error) {
      if (error) return;
      link->server.async_connect(target_, [this, link](const boost::system::error_code& e) {
        if (e) return;
        links_.push_back(link);
        Pump(link, link->client, link->server, link->up);
        Pump(link, link->server, link->client, link->down);
      });
      Accept();
    });
  }

  void Pump(std::shared_ptr<Link> link, boost::asio::ip::tcp::socket& from,
            boost::asio::ip::tcp::socket& to, std::array<char, 16384>& buffer) {
    from.async_read_some(
        boost::asio::buffer(buffer),
        [this, link, &from, &to, &buffer](const boost::system::error_code& e, size_t n) {
          if (e) {
            boost::system::error_code ignored;
            to.close(ignored);
            return;
          }
          boost::asio::async_write(
              to, boost::asio::buffer(buffer.data(), n),
              [this, link, &from, &to, &buffer](const boost::system::error_code& w, size_t) {
                if (!w) Pump(link, from, to, buffer);
              });
        });
  }

  boost::asio::io_context io_;
  boost::asio::ip::tcp::endpoint target_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::list<std::shared_ptr<Link>> links_;
  std::thread thread_;
};

}  // namespace rtb::storage::testing

#endif  // RTB_TESTS_STORAGE_HBASE_FORWARDING_PROXY_H_
