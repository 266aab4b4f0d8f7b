#include "coordinator/validation/baselines.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "common/spec/byte_size.h"
#include "common/spec/wire_names.h"

namespace eb::validation {
namespace {

std::vector<std::string> Tokens(const std::string& text) {
  std::vector<std::string> tokens;
  for (absl::string_view t : absl::StrSplit(text, absl::ByAnyChar(" -_"), absl::SkipEmpty())) {
    std::string token(t);
    for (char& c : token) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    tokens.push_back(std::move(token));
  }
  return tokens;
}

// Number of tokens of `model` when every one is a token of `node_model`, else 0.
size_t ModelMatch(const std::string& model, const std::vector<std::string>& node_tokens) {
  const std::vector<std::string> wanted = Tokens(model);
  for (const std::string& t : wanted) {
    if (std::find(node_tokens.begin(), node_tokens.end(), t) == node_tokens.end()) return 0;
  }
  return wanted.size();
}

std::string Figure(double gbps) { return absl::StrFormat("%.4g GB/s", gbps); }

// "370 GB/s at all_reduce 8G"
std::string FigureText(double gbps, const FigureAt& at) {
  return absl::StrCat(Figure(gbps), " at ", FigureAtText(at));
}

}  // namespace

bool Comparable(const FigureAt& at, ebnccl::v1::Collective collective, int64_t graded_bytes) {
  return at.collective == collective && graded_bytes >= at.size_bytes;
}

std::string FigureAtText(const FigureAt& at) {
  return absl::StrCat(spec::WireName(at.collective), " ", spec::FormatSize(at.size_bytes));
}

std::optional<Expected> ExpectedIntra(const BaselineTable& table, const std::string& gpu_model,
                                      int gpu_count) {
  const std::vector<std::string> node_tokens = Tokens(gpu_model);
  const IntraBaseline* best = nullptr;
  size_t best_tokens = 0;
  for (const IntraBaseline& entry : table.intra) {
    if (entry.gpu_count != gpu_count) continue;
    const size_t tokens = ModelMatch(entry.gpu_model, node_tokens);
    if (tokens > best_tokens) {
      best = &entry;
      best_tokens = tokens;
    }
  }
  if (best == nullptr) return std::nullopt;
  return Expected{best->busbw_gbps,
                  absl::StrCat(best->gpu_model, " x", gpu_count, " intra: ",
                               FigureText(best->busbw_gbps, best->at), " (", best->source, ")"),
                  best->at};
}

std::optional<Expected> ExpectedPair(const BaselineTable& table, int64_t hca_rate_gbps,
                                     int hca_count) {
  for (const PairBaseline& entry : table.pairs) {
    if (entry.hca_rate_gbps == hca_rate_gbps && entry.hca_count == hca_count) {
      return Expected{entry.busbw_gbps,
                      absl::StrCat(hca_count, " x ", hca_rate_gbps, "G pair: ",
                                   FigureText(entry.busbw_gbps, entry.at), " (", entry.source, ")"),
                      entry.at};
    }
  }
  const std::optional<Expected> rail = ExpectedRail(table, hca_rate_gbps);
  if (!rail.has_value() || hca_count < 1) return std::nullopt;
  const double gbps = rail->busbw_gbps * hca_count;
  return Expected{
      gbps,
      absl::StrCat(hca_count, " x ", hca_rate_gbps, "G pair: ", FigureText(gbps, rail->at),
                   " (derived: ", hca_count, " x the per-NIC figure; ", rail->description, ")"),
      rail->at};
}

std::optional<Expected> ExpectedRail(const BaselineTable& table, int64_t hca_rate_gbps) {
  for (const PairBaseline& entry : table.pairs) {
    if (entry.hca_rate_gbps == hca_rate_gbps && entry.hca_count == 1) {
      return Expected{entry.busbw_gbps,
                      absl::StrCat("one ", hca_rate_gbps, "G NIC: ",
                                   FigureText(entry.busbw_gbps, entry.at), " (", entry.source, ")"),
                      entry.at};
    }
  }
  return std::nullopt;
}

std::optional<Expected> ExpectedGlooPair(const BaselineTable& table, int64_t link_mbps) {
  const GlooPairBaseline* found = nullptr;
  for (const GlooPairBaseline& entry : table.gloo_pairs) {
    if (link_mbps > 0 && entry.link_mbps == link_mbps) {
      found = &entry;
      break;
    }
    if (entry.link_mbps == 0 && found == nullptr) found = &entry;
  }
  if (found == nullptr) return std::nullopt;
  const std::string link = found->link_mbps > 0
                               ? absl::StrCat("over ", found->link_mbps, " Mb/s links")
                               : std::string("over any link");
  return Expected{found->busbw_gbps,
                  absl::StrCat("Gloo pair ", link, ": ", FigureText(found->busbw_gbps, found->at),
                               " (", found->source, ")"),
                  found->at};
}

}  // namespace eb::validation
