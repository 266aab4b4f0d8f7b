#pragma once

// The files an HTML report inlines, embedded in ebctl at build time
// (embed_assets.cmake): Chart.js as Debian's libjs-chart.js installs it, and
// the page's own script and styles (assets/). Immutable, any thread.

#include <string_view>

namespace eb::ebctl::report {

// Chart.js (chart.min.js of libjs-chart.js, MIT licence, its banner kept).
std::string_view ChartJs();
// assets/report_*.js, joined in load order (CMakeLists.txt): draws the page
// from its embedded report JSON.
std::string_view ReportJs();
// assets/report.css.
std::string_view ReportCss();

}  // namespace eb::ebctl::report
