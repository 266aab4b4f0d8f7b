#pragma once

// How ebctl's text renderers meet the one output sanitizer: each public
// renderer of a reply (tables, `show`, `run-test`, `audit`, `nodes`,
// `validate`) starts from a copy whose every string field went through
// spec::Printable (common/spec/terminal_text.h), so a new column of any
// string field cannot forget it (SECURITY_FINDINGS P2-2.18, P2-6.3). The
// leaf renderers only: Printable is not idempotent ('\' becomes "\\"), so
// a renderer calling another passes the raw message on. JSON output
// escapes by itself and takes the raw message.

#include "common/spec/terminal_text.h"

namespace eb::ebctl {

template <typename M>
M PrintableCopy(const M& message) {
  M copy = message;
  spec::MakePrintable(copy);
  return copy;
}

}  // namespace eb::ebctl
