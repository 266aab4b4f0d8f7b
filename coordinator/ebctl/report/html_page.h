#pragma once

// One self-contained HTML report: the report JSON in a
// <script type="application/json"> block, Chart.js, and the page's own
// script (assets/report_*.js), which reads the JSON and draws the page in the
// browser. The page is a view of the data, never a second computation: what
// it shows is what `--json` prints. Pure functions, any thread.

#include <string>
#include <string_view>

#include "nlohmann/json.hpp"

namespace eb::ebctl::report {

// `json_text` made safe inside <script type="application/json">...</script>:
// `<`, `>` and `&` become \u003c, \u003e, \u0026 (so no "</script>" or
// "<!--" can end or change the block), U+2028 and U+2029 become \u2028 and
// \u2029 (line terminators to older JavaScript). `json_text` must be JSON text,
// where these characters occur only inside strings, so the escapes keep
// its meaning: JSON.parse gives back the same value.
std::string EscapeJsonForScript(std::string_view json_text);

// `text` as HTML character data or a quoted attribute value: & < > " '.
std::string EscapeHtml(std::string_view text);

// The page: `title` in <title> and the heading (escaped), `data` embedded
// (serialized with invalid UTF-8 replaced by U+FFFD, then
// EscapeJsonForScript), the styles and scripts of assets.h inlined. `data`
// is an object whose "kind" ("test", "validation", "node") picks what the
// page script draws.
std::string RenderReportHtml(std::string_view title, const nlohmann::json& data);

}  // namespace eb::ebctl::report
