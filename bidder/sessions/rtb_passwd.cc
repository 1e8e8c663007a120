// rtb-passwd: prints the argon2id hash (crypto_pwhash_str, libsodium's
// interactive limits) of a password read from stdin, for
// sessions.operators[].password_hash. On a terminal the password is read
// twice without echo; from a pipe, the first line is used.
#include <sodium.h>
#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

namespace {

bool ReadLine(std::string* out) {
  out->clear();
  int c = 0;
  while ((c = std::getchar()) != EOF && c != '\n') out->push_back(static_cast<char>(c));
  if (!out->empty() && out->back() == '\r') out->pop_back();
  return c != EOF || !out->empty();
}

bool ReadSecret(const char* prompt, bool tty, std::string* out) {
  if (!tty) return ReadLine(out);
  std::fputs(prompt, stderr);
  std::fflush(stderr);
  termios old_mode{};
  tcgetattr(STDIN_FILENO, &old_mode);
  termios quiet = old_mode;
  quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
  tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
  const bool ok = ReadLine(out);
  tcsetattr(STDIN_FILENO, TCSAFLUSH, &old_mode);
  std::fputs("\n", stderr);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    std::cerr << "usage: " << argv[0] << " < password\n"
              << "Prints the argon2id hash of the password read from stdin.\n";
    return 2;
  }
  if (sodium_init() < 0) {
    std::cerr << "rtb-passwd: libsodium failed to initialise\n";
    return 1;
  }
  const bool tty = isatty(STDIN_FILENO) != 0;
  std::string password;
  std::string again;
  if (!ReadSecret("Password: ", tty, &password) || password.empty()) {
    std::cerr << "rtb-passwd: no password given\n";
    return 1;
  }
  if (tty) {
    const bool same = ReadSecret("Again: ", tty, &again) && again == password;
    sodium_memzero(again.data(), again.size());
    if (!same) {
      sodium_memzero(password.data(), password.size());
      std::cerr << "rtb-passwd: the passwords differ\n";
      return 1;
    }
  }
  char hash[crypto_pwhash_STRBYTES];
  const int rc =
      crypto_pwhash_str(hash, password.data(), password.size(), crypto_pwhash_OPSLIMIT_INTERACTIVE,
                        crypto_pwhash_MEMLIMIT_INTERACTIVE);
  sodium_memzero(password.data(), password.size());
  if (rc != 0) {
    std::cerr << "rtb-passwd: out of memory while hashing\n";
    return 1;
  }
  std::cout << hash << "\n";
  return 0;
}
