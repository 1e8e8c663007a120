// A storage-server process for tests and benchmarks: started on an
// ephemeral loopback port with its own data directory, its /metrics on
// another (unless the arguments say otherwise), stopped with a signal,
// waited for with bounds. The binary's path comes from the build
// (RTB_STORAGE_SERVER_BINARY). Also the plain loopback GET its /metrics is
// scraped with, which tests of the other processes share.
#ifndef RTB_TESTS_STORAGE_SERVER_SERVER_PROCESS_H_
#define RTB_TESTS_STORAGE_SERVER_SERVER_PROCESS_H_

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace rtb::storage::testing {

// The whole response (status line, headers, body) to GET `path` on
// 127.0.0.1:`port`, "" when it cannot connect or send; reads end when the
// server closes or after 5 s without a byte. Any process of the project that
// serves HTTP on loopback (a /metrics port) is read this way in tests.
inline std::string LoopbackHttpGet(int port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) {
    const std::string request =
        "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    // MSG_NOSIGNAL: a server gone mid-test fails the send, not the test binary.
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
        static_cast<ssize_t>(request.size())) {
      char buffer[4096];
      ssize_t n;
      while ((n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) response.append(buffer, n);
    }
  }
  ::close(fd);
  return response;
}

class StorageServerProcess {
 public:
  // `dir` holds the store (dir/data), the port files and stderr.txt.
  explicit StorageServerProcess(std::filesystem::path dir) : dir_(std::move(dir)) {}
  StorageServerProcess(const StorageServerProcess&) = delete;
  StorageServerProcess& operator=(const StorageServerProcess&) = delete;
  ~StorageServerProcess() { Kill(); }

  // Starts storage-server with --path, --port 0 and --port-file set, and
  // /metrics on a free loopback port unless `args` name a
  // --metrics-address, plus `args`; waits (at most 30 s) until it listens.
  // False when it did not.
  bool Start(const std::vector<std::string>& args) {
    std::filesystem::create_directories(dir_);
    const std::filesystem::path port_file = dir_ / "port";
    const std::filesystem::path metrics_port_file = dir_ / "metrics-port";
    std::filesystem::remove(port_file);
    std::filesystem::remove(metrics_port_file);
    metrics_port_ = 0;
    std::vector<std::string> argv_strings = {
        RTB_STORAGE_SERVER_BINARY, "--path", (dir_ / "data").string(), "--port", "0", "--port-file",
        port_file.string()};
    // Never the default port: tests run side by side, and beside deployments.
    if (std::find(args.begin(), args.end(), "--metrics-address") == args.end()) {
      argv_strings.insert(argv_strings.end(), {"--metrics-address", "127.0.0.1:0",
                                               "--metrics-port-file", metrics_port_file.string()});
    }
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_strings) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string err = (dir_ / "stderr.txt").string();
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      pid_ = -1;
      return false;
    }
    for (int i = 0; i < 3000; ++i) {
      std::ifstream in(port_file);
      int port = 0;
      if (in >> port && port > 0) {
        port_ = port;
        // Written before the Thrift port's file, when metrics are served.
        std::ifstream metrics_in(metrics_port_file);
        if (!(metrics_in >> metrics_port_)) metrics_port_ = 0;
        return true;
      }
      if (!Running()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  int port() const { return port_; }
  std::string endpoint() const { return "127.0.0.1:" + std::to_string(port_); }
  // The /metrics port Start chose; 0 when the arguments chose another.
  int metrics_port() const { return metrics_port_; }

  // The body of GET /metrics on metrics_port(), "" on failure (5 s).
  std::string ScrapeMetrics() const {
    const std::string response = LoopbackHttpGet(metrics_port_, "/metrics");
    const size_t body = response.find("\r\n\r\n");
    if (response.rfind("HTTP/1.1 200", 0) != 0 || body == std::string::npos) return "";
    return response.substr(body + 4);
  }
  pid_t pid() const { return pid_; }

  // True while the process has not exited.
  bool Running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      exit_status_ = status;
      return false;
    }
    return true;
  }

  // Sends `signal` and waits (at most 30 s) for the exit code; nullopt when
  // the process did not exit normally in time.
  std::optional<int> Stop(int signal = SIGTERM) {
    if (pid_ > 0) ::kill(pid_, signal);
    return AwaitExit();
  }

  std::optional<int> AwaitExit() {
    for (int i = 0; i < 3000 && Running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (Running()) return std::nullopt;
    if (!WIFEXITED(exit_status_)) return std::nullopt;
    return WEXITSTATUS(exit_status_);
  }

  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  std::string Stderr() const {
    std::ifstream in(dir_ / "stderr.txt");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
  int metrics_port_ = 0;
  int exit_status_ = 0;
};

// The value of the series named `series` (name and labels as exposed, e.g.
// `storage_server_requests_total{method="get",outcome="ok"}`) in a Prometheus
// text exposition; -1 when it is not there.
inline double SeriesValue(const std::string& exposition, const std::string& series) {
  const std::string prefix = series + " ";
  for (size_t at = 0; at < exposition.size();) {
    size_t end = exposition.find('\n', at);
    if (end == std::string::npos) end = exposition.size();
    if (exposition.compare(at, prefix.size(), prefix) == 0) {
      return std::strtod(exposition.substr(at + prefix.size(), end - at - prefix.size()).c_str(),
                         nullptr);
    }
    at = end + 1;
  }
  return -1;
}

}  // namespace rtb::storage::testing

#endif  // RTB_TESTS_STORAGE_SERVER_SERVER_PROCESS_H_
