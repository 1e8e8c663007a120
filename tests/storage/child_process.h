// A child process for the storage fault and secrets tests: spawned with
// extra environment, its stdout and stderr in files, waited for with bounds,
// killed with the signal a test chooses. Never outlives the test: the
// destructor kills it.
#ifndef RTB_TESTS_STORAGE_CHILD_PROCESS_H_
#define RTB_TESTS_STORAGE_CHILD_PROCESS_H_

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

extern char** environ;

namespace rtb::storage::testing {

inline std::string ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ChildProcess {
 public:
  // `out` and `err` receive the child's stdout and stderr (appended).
  ChildProcess(std::filesystem::path out, std::filesystem::path err)
      : out_(std::move(out)), err_(std::move(err)) {}
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() { Kill(); }

  // Starts argv[0] with `argv`, the test's environment plus `env`
  // ("NAME=value" entries, which replace the test's own).
  bool Start(const std::vector<std::string>& argv, const std::vector<std::string>& env = {}) {
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string_view entry(*e);
      bool replaced = false;
      for (const std::string& extra : env) {
        const std::string_view name = std::string_view(extra).substr(0, extra.find('=') + 1);
        if (entry.starts_with(name)) replaced = true;
      }
      if (!replaced) env_strings.emplace_back(entry);
    }
    env_strings.insert(env_strings.end(), env.begin(), env.end());
    std::vector<std::string> args = argv;
    std::vector<char*> c_argv, c_env;
    for (std::string& a : args) c_argv.push_back(a.data());
    c_argv.push_back(nullptr);
    for (std::string& e : env_strings) c_env.push_back(e.data());
    c_env.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    const int rc = posix_spawn(&pid_, c_argv[0], &actions, nullptr, c_argv.data(), c_env.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) pid_ = -1;
    return rc == 0;
  }

  // The port the child wrote to `port_file`, waiting at most `timeout`; 0
  // when it exits first or never writes one.
  int AwaitPortFile(const std::filesystem::path& port_file,
                    std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    const auto give_up = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < give_up) {
      std::ifstream in(port_file);
      int port = 0;
      if (in >> port && port > 0) return port;
      if (!Running()) return 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return 0;
  }

  bool Running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      status_ = status;
      return false;
    }
    return true;
  }

  // Waits at most `timeout` for the exit; the exit code, or nullopt when the
  // child is still running or died by a signal.
  std::optional<int> AwaitExit(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    const auto give_up = std::chrono::steady_clock::now() + timeout;
    while (Running() && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (Running() || !WIFEXITED(status_)) return std::nullopt;
    return WEXITSTATUS(status_);
  }

  void Signal(int signal) {
    if (pid_ > 0) ::kill(pid_, signal);
  }

  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    status_ = status;
  }

  std::string Stdout() const { return ReadWholeFile(out_); }
  std::string Stderr() const { return ReadWholeFile(err_); }

 private:
  std::filesystem::path out_;
  std::filesystem::path err_;
  pid_t pid_ = -1;
  int status_ = 0;
};

// A loopback port nobody listens on now (the kernel's pick for a socket
// closed at once), for a server that must come back on the same port.
inline int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  ::close(fd);
  return port;
}

// Whether something accepts connections on 127.0.0.1:`port`.
inline bool Accepts(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  const bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  ::close(fd);
  return connected;
}

}  // namespace rtb::storage::testing

#endif  // RTB_TESTS_STORAGE_CHILD_PROCESS_H_
