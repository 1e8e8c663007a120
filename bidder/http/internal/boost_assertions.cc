// Where Boost's assertions go in the builds that keep them (Debug, Sanitize,
// Fuzz; bidder_http defines BOOST_ENABLE_ASSERT_DEBUG_HANDLER for every
// target that links it). A failed assertion is reported as assert() would
// and aborts, except one that Boost 1.81 gets wrong.
//
// Beast's chunked-body parser asserts that a call resuming after a final
// chunk header ("0\r\n") has at least 5 bytes. A client that sends "0\r\n"
// and then one byte ("\r") meets it with 4: a valid request, which the
// parser goes on to handle correctly once the assertion is not there (as in
// Release). Beast fixed the bound in May 2024 (pull request 2861, in Boost
// 1.86); before that, the fuzz build aborted on such a client.
#include <boost/version.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace boost {
namespace {

bool IsBeastFinalChunkBound(const char* expr, const char* file) {
#if BOOST_VERSION < 108600
  return std::strcmp(expr, "n >= 5") == 0 &&
         std::string_view(file).ends_with("boost/beast/http/impl/basic_parser.ipp");
#else
  (void)expr;
  (void)file;
  return false;
#endif
}

[[noreturn]] void ReportAndAbort(const char* expr, const char* msg, const char* function,
                                 const char* file, long line) {
  std::fprintf(stderr, "%s:%ld: %s: Assertion `%s' failed.%s%s\n", file, line, function, expr,
               msg != nullptr ? " " : "", msg != nullptr ? msg : "");
  std::fflush(stderr);
  std::abort();
}

}  // namespace

// Declared by boost/assert.hpp when the handler is enabled.
void assertion_failed(const char* expr, const char* function, const char* file, long line);
void assertion_failed_msg(const char* expr, const char* msg, const char* function, const char* file,
                          long line);

void assertion_failed(const char* expr, const char* function, const char* file, long line) {
  if (IsBeastFinalChunkBound(expr, file)) return;
  ReportAndAbort(expr, nullptr, function, file, line);
}

void assertion_failed_msg(const char* expr, const char* msg, const char* function, const char* file,
                          long line) {
  ReportAndAbort(expr, msg, function, file, line);
}

}  // namespace boost
