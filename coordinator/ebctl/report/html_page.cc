#include "coordinator/ebctl/report/html_page.h"

#include "coordinator/ebctl/report/assets.h"

namespace eb::ebctl::report {
namespace {

// `text` with bytes that are not UTF-8 replaced by U+FFFD, as dump() does.
std::string Utf8OrReplaced(std::string_view text) {
  const std::string quoted = nlohmann::json(std::string(text))
                                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return nlohmann::json::parse(quoted).get<std::string>();
}

}  // namespace

std::string EscapeJsonForScript(std::string_view json_text) {
  std::string out;
  out.reserve(json_text.size() + json_text.size() / 16);
  for (size_t i = 0; i < json_text.size(); ++i) {
    const char c = json_text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xe2' && i + 2 < json_text.size() && json_text[i + 1] == '\x80' &&
               (json_text[i + 2] == '\xa8' || json_text[i + 2] == '\xa9')) {
      // U+2028 / U+2029 in UTF-8.
      out += json_text[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string EscapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string RenderReportHtml(std::string_view title, const nlohmann::json& data) {
  // A node name is whatever an agent registered: bytes that are not UTF-8
  // must not make dump() throw; they show as U+FFFD.
  const std::string data_text =
      data.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
  const std::string shown_title = EscapeHtml(Utf8OrReplaced(title));
  const std::string block = EscapeJsonForScript(data_text);
  // The fixed markup around the data, as named constants: one literal each.
  constexpr std::string_view kHead =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      // Nothing may leave the file: no network, no other origin.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n<title>";
  constexpr std::string_view kBodyStart =
      "</style>\n</head>\n<body>\n"
      "<div id=\"eb-status\" data-state=\"loading\" hidden></div>\n<header><h1>";
  constexpr std::string_view kDataStart =
      "</h1><p id=\"eb-noscript\">This report is drawn by JavaScript; enable it to see the "
      "charts.</p></header>\n<main id=\"eb-main\"></main>\n"
      "<script type=\"application/json\" id=\"eb-data\">";
  std::string page;
  page.reserve(block.size() + ChartJs().size() + ReportJs().size() + ReportCss().size() + 2048);
  page.append(kHead);
  page.append(shown_title);
  page.append("</title>\n<style>\n");
  page.append(ReportCss());
  page.append(kBodyStart);
  page.append(shown_title);
  page.append(kDataStart);
  page.append(block);
  page.append("</script>\n<script>\n");
  page.append(ChartJs());
  page.append("\n</script>\n<script>\n");
  page.append(ReportJs());
  page.append("\n</script>\n</body>\n</html>\n");
  return page;
}

}  // namespace eb::ebctl::report
