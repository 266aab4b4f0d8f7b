#include "coordinator/validation/baselines_toml.h"

#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/spec/byte_size.h"
#include "common/spec/toml_tables.h"
#include "common/spec/wire_names.h"

namespace eb::validation {
namespace {

const spec::TomlTablesSchema& Schema() {
  static const auto* const schema =
      new spec::TomlTablesSchema{"baselines", {"intra", "pairs", "gloo_pairs"}};
  return *schema;
}

// Counts, rates and bandwidths of a baseline are far below this.
constexpr double kMaxBaselineNumber = 1e6;

absl::StatusOr<double> Number(const spec::TomlEntry& entry, const std::string& key, bool whole) {
  return spec::TomlPositiveNumber(Schema(), entry, key, kMaxBaselineNumber, whole);
}

// Where the entry's figure holds: `collective` (a wire name, "all_reduce")
// and `size` ("8G"), both required: a figure is compared only at its size
// and above (baselines.h, Comparable).
absl::StatusOr<FigureAt> FigureAtOf(const spec::TomlEntry& entry) {
  absl::StatusOr<std::string> collective = spec::TomlString(Schema(), entry, "collective");
  if (!collective.ok()) return collective.status();
  absl::StatusOr<std::string> size = spec::TomlString(Schema(), entry, "size");
  if (!size.ok()) return size.status();
  const int collective_line = entry.keys.at("collective").line;
  const int size_line = entry.keys.at("size").line;
  absl::StatusOr<ebnccl::v1::Collective> parsed =
      spec::ParseWireName<ebnccl::v1::Collective>(*collective, "collective");
  if (!parsed.ok()) {
    return spec::TomlLineError(Schema(), collective_line, parsed.status().message());
  }
  absl::StatusOr<int64_t> bytes = spec::ParseSize(*size, "size");
  if (!bytes.ok()) return spec::TomlLineError(Schema(), size_line, bytes.status().message());
  if (*bytes <= 0) return spec::TomlLineError(Schema(), size_line, "size must be positive");
  return FigureAt{*parsed, *bytes};
}

// What every entry gives after its hardware keys: the figure, where it
// holds, and its source (read in that order, so errors come in it too).
struct EntryFigure {
  double busbw_gbps = 0;
  FigureAt at;
  std::string source;
};

absl::StatusOr<EntryFigure> EntryFigureOf(const spec::TomlEntry& entry) {
  absl::StatusOr<double> busbw = Number(entry, "busbw_gbps", /*whole=*/false);
  if (!busbw.ok()) return busbw.status();
  absl::StatusOr<FigureAt> at = FigureAtOf(entry);
  if (!at.ok()) return at.status();
  absl::StatusOr<std::string> source = spec::TomlString(Schema(), entry, "source");
  if (!source.ok()) return source.status();
  return EntryFigure{*busbw, *at, *std::move(source)};
}

absl::Status AddIntra(const spec::TomlEntry& entry, BaselineTable& table) {
  absl::Status keys = spec::OnlyTomlKeys(
      Schema(), entry, {"gpu_model", "gpu_count", "busbw_gbps", "collective", "size", "source"});
  if (!keys.ok()) return keys;
  absl::StatusOr<std::string> model = spec::TomlString(Schema(), entry, "gpu_model");
  if (!model.ok()) return model.status();
  absl::StatusOr<double> count = Number(entry, "gpu_count", /*whole=*/true);
  if (!count.ok()) return count.status();
  absl::StatusOr<EntryFigure> figure = EntryFigureOf(entry);
  if (!figure.ok()) return figure.status();
  if (absl::StripAsciiWhitespace(*model).empty()) {
    return spec::TomlLineError(Schema(), entry.line, "[[intra]] gpu_model is empty");
  }
  table.intra.push_back(
      {*model, static_cast<int>(*count), figure->busbw_gbps, figure->source, figure->at});
  return absl::OkStatus();
}

absl::Status AddPairs(const spec::TomlEntry& entry, BaselineTable& table) {
  absl::Status keys = spec::OnlyTomlKeys(
      Schema(), entry,
      {"hca_rate_gbps", "hca_count", "busbw_gbps", "collective", "size", "source"});
  if (!keys.ok()) return keys;
  absl::StatusOr<double> rate = Number(entry, "hca_rate_gbps", /*whole=*/true);
  if (!rate.ok()) return rate.status();
  absl::StatusOr<double> count = Number(entry, "hca_count", /*whole=*/true);
  if (!count.ok()) return count.status();
  absl::StatusOr<EntryFigure> figure = EntryFigureOf(entry);
  if (!figure.ok()) return figure.status();
  table.pairs.push_back({static_cast<int64_t>(*rate), static_cast<int>(*count), figure->busbw_gbps,
                         figure->source, figure->at});
  return absl::OkStatus();
}

// A site's own Gloo figure: link_mbps is optional (absent: any link).
absl::Status AddGlooPairs(const spec::TomlEntry& entry, BaselineTable& table) {
  absl::Status keys = spec::OnlyTomlKeys(
      Schema(), entry, {"link_mbps", "busbw_gbps", "collective", "size", "source"});
  if (!keys.ok()) return keys;
  int64_t link_mbps = 0;
  if (entry.keys.count("link_mbps") > 0) {
    absl::StatusOr<double> link = Number(entry, "link_mbps", /*whole=*/true);
    if (!link.ok()) return link.status();
    link_mbps = static_cast<int64_t>(*link);
  }
  absl::StatusOr<EntryFigure> figure = EntryFigureOf(entry);
  if (!figure.ok()) return figure.status();
  for (const GlooPairBaseline& other : table.gloo_pairs) {
    if (other.link_mbps == link_mbps) {
      return spec::TomlLineError(
          Schema(), entry.line,
          link_mbps > 0 ? absl::StrCat("a second [[gloo_pairs]] entry for link_mbps = ", link_mbps)
                        : std::string("a second [[gloo_pairs]] entry without link_mbps"));
    }
  }
  table.gloo_pairs.push_back({link_mbps, figure->busbw_gbps, figure->source, figure->at});
  return absl::OkStatus();
}

absl::Status AddEntry(const spec::TomlEntry& entry, BaselineTable& table) {
  if (entry.table == "intra") return AddIntra(entry, table);
  if (entry.table == "pairs") return AddPairs(entry, table);
  return AddGlooPairs(entry, table);
}

}  // namespace

absl::StatusOr<BaselineTable> ParseBaselinesToml(const std::string& text) {
  absl::StatusOr<spec::TomlTables> tables = spec::ParseTomlTables(text, Schema());
  if (!tables.ok()) return tables.status();
  if (auto version = tables->top.find("version"); version != tables->top.end()) {
    const int64_t* number = std::get_if<int64_t>(&version->second.value);
    if (number != nullptr && *number == 1) {
      // Version 1 figures said nothing of their size, and were compared
      // with 32 MiB results below the plateau they were measured at.
      return spec::TomlLineError(
          Schema(), version->second.line,
          "version 1 is no longer read: version 2 gives each entry the collective and size its "
          "figure holds at (collective = \"all_reduce\", size = \"8G\"; docs/VALIDATION.md, "
          "\"Baselines\")");
    }
  }
  if (absl::Status version = spec::CheckTomlVersion(Schema(), *tables, 2); !version.ok()) {
    return version;
  }
  BaselineTable table;
  for (const spec::TomlEntry& entry : tables->entries) {
    absl::Status added = AddEntry(entry, table);
    if (!added.ok()) return added;
  }
  return table;
}

}  // namespace eb::validation
