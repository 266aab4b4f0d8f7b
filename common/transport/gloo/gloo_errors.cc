#include "common/transport/gloo/gloo_errors.h"

#include <exception>
#include <new>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gloo/common/error.h"
#include "gloo/common/logging.h"

namespace eb::transport {

absl::Status GlooIoErrorToStatus(absl::string_view what, const std::string& message) {
  const std::string lower = absl::AsciiStrToLower(message);
  std::string text = absl::StrCat(what, ": ", message);
  if (absl::StrContains(lower, "timed out") || absl::StrContains(lower, "timeout")) {
    return absl::DeadlineExceededError(text);
  }
  return absl::UnavailableError(text);
}

absl::Status CallGloo(absl::string_view what, absl::FunctionRef<void()> fn) {
  try {
    fn();
    return absl::OkStatus();
  } catch (const gloo::IoException& e) {
    return GlooIoErrorToStatus(what, e.what());
  } catch (const gloo::EnforceNotMet& e) {
    return absl::InternalError(absl::StrCat(what, ": gloo check failed: ", e.what()));
  } catch (const gloo::Exception& e) {
    return absl::InternalError(absl::StrCat(what, ": ", e.what()));
  } catch (const std::bad_alloc& e) {
    return absl::ResourceExhaustedError(absl::StrCat(what, ": out of memory: ", e.what()));
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat(what, ": ", e.what()));
  } catch (...) {
    return absl::InternalError(absl::StrCat(what, ": unknown exception"));
  }
}

}  // namespace eb::transport
