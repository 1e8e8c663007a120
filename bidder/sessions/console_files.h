// The console's static files (bidder/sessions/console/, compiled into the
// binary so a deployed bidder needs nothing beside it): GET /console,
// /console/ and /console/<file>, with one level of plain file names only
// (no "..", no hidden files, no subdirectories), a content type by extension, and headers that keep
// the page to its own origin (Content-Security-Policy default-src 'self', no framing, nosniff). The
// page itself needs no session; the data it shows comes from the session-checked /api routes.
//
// Thread-safety: stateless; does not block (the files are in memory).
#ifndef RTB_BIDDER_SESSIONS_CONSOLE_FILES_H_
#define RTB_BIDDER_SESSIONS_CONSOLE_FILES_H_

#include <string_view>

#include "bidder/sessions/session_routes.h"

namespace rtb::bidder::sessions {

inline constexpr std::string_view kConsolePath = "/console";

// True for /console and everything under /console/.
bool IsConsolePath(std::string_view path);

// 200 with the file, 404 for anything else, 405 for methods other than
// GET/HEAD (HEAD: the GET answer; the server drops the body).
SessionHttpResponse ServeConsoleFile(std::string_view method, std::string_view path);

}  // namespace rtb::bidder::sessions

#endif  // RTB_BIDDER_SESSIONS_CONSOLE_FILES_H_
