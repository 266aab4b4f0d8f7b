#include "coordinator/ebctl/output/node_json_text.h"

#include <cstdint>
#include <cstdio>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/spec/names.h"
#include "common/spec/verdicts.h"
#include "common/spec/wire_names.h"
#include "coordinator/ebctl/output/labels.h"
#include "nlohmann/json.hpp"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;
namespace {

// A JSON string as nlohmann's dump writes it (ensure_ascii off).
void AppendString(std::string_view text, std::string* out) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      // Non-ASCII: nlohmann checks the UTF-8 (and throws on invalid bytes);
      // the same call keeps the same behaviour.
      *out += nlohmann::json(std::string(text)).dump();
      return;
    }
  }
  *out += '"';
  for (const char c : text) {
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\b':
        *out += "\\b";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\f':
        *out += "\\f";
        break;
      case '\r':
        *out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned>(c));
          *out += escaped;
        } else {
          *out += c;
        }
    }
  }
  *out += '"';
}

// The members of one object or array: each on its own line at `indent` + 2,
// separated by commas; Close() puts the bracket at `indent`.
class Members {
 public:
  Members(int indent, std::string* out) : indent_(indent), out_(*out) {}

  // Starts the next member of an object; its value follows.
  std::string* Key(std::string_view key) {
    Next();
    out_ += '"';
    out_ += key;
    out_ += "\": ";
    return &out_;
  }
  // Starts the next element of an array.
  std::string* Element() {
    Next();
    return &out_;
  }
  int inner() const { return indent_ + 2; }
  void Close(char bracket) {
    if (count_ > 0) {
      out_ += '\n';
      out_.append(static_cast<size_t>(indent_), ' ');
    }
    out_ += bracket;
  }

 private:
  void Next() {
    out_ += count_++ == 0 ? "\n" : ",\n";
    out_.append(static_cast<size_t>(indent_) + 2, ' ');
  }
  const int indent_;
  std::string& out_;
  int count_ = 0;
};

void AppendInt(int64_t value, std::string* out) { absl::StrAppend(out, value); }
void AppendBool(bool value, std::string* out) { *out += value ? "true" : "false"; }
void AppendIntOrNull(bool present, int64_t value, std::string* out) {
  if (present) {
    AppendInt(value, out);
  } else {
    *out += "null";
  }
}
void AppendStringOrNull(std::string_view text, std::string* out) {
  if (text.empty()) {
    *out += "null";
  } else {
    AppendString(text, out);
  }
}

template <typename Strings>
void AppendStrings(const Strings& strings, int indent, std::string* out) {
  *out += '[';
  Members elements(indent, out);
  for (const auto& text : strings) AppendString(text, elements.Element());
  elements.Close(']');
}

// Keys in sorted order below: nlohmann's objects are std::maps.
void AppendGpu(const v1::GpuInfo& gpu, int indent, std::string* out) {
  *out += '{';
  Members m(indent, out);
  AppendStringOrNull(gpu.hca_affinity(), m.Key("hca_affinity"));
  AppendInt(gpu.index(), m.Key("index"));
  AppendInt(gpu.memory_bytes(), m.Key("memory_bytes"));
  AppendString(gpu.name(), m.Key("name"));
  AppendStringOrNull(gpu.nearest_hca(), m.Key("nearest_hca"));
  AppendIntOrNull(gpu.numa_node() >= 0 && !gpu.hca_affinity().empty(), gpu.numa_node(),
                  m.Key("numa_node"));
  AppendString(gpu.pci_bus_id(), m.Key("pci_bus_id"));
  m.Close('}');
}

void AppendHca(const v1::HcaInfo& hca, int indent, std::string* out) {
  *out += '{';
  Members m(indent, out);
  AppendString(hca.error(), m.Key("error"));
  AppendString(hca.fw_ver(), m.Key("fw_ver"));
  AppendString(hca.link_layer(), m.Key("link_layer"));
  AppendString(hca.name(), m.Key("name"));
  AppendIntOrNull(hca.numa_node() >= 0 && !hca.pci_bus_id().empty(), hca.numa_node(),
                  m.Key("numa_node"));
  AppendString(hca.pci_bus_id(), m.Key("pci_bus_id"));
  AppendString(hca.phys_state(), m.Key("phys_state"));
  AppendInt(hca.port(), m.Key("port"));
  AppendInt(hca.rate_gbps(), m.Key("rate_gbps"));
  AppendString(hca.state(), m.Key("state"));
  m.Close('}');
}

void AppendInterface(const v1::NetworkInterface& iface, int indent, std::string* out) {
  *out += '{';
  Members m(indent, out);
  AppendStrings(iface.addresses(), m.inner(), m.Key("addresses"));
  AppendInt(iface.mtu_bytes(), m.Key("mtu_bytes"));
  AppendString(iface.name(), m.Key("name"));
  AppendInt(iface.speed_mbps(), m.Key("speed_mbps"));
  AppendBool(iface.up(), m.Key("up"));
  m.Close('}');
}

template <typename Items, typename AppendItem>
void AppendObjects(const Items& items, int indent, std::string* out, AppendItem append) {
  *out += '[';
  Members elements(indent, out);
  for (const auto& item : items) append(item, elements.inner(), elements.Element());
  elements.Close(']');
}

}  // namespace

void AppendNodeJson(const v1::NodeStatus& node, int indent, std::string* out) {
  const v1::NodeInventory& inventory = node.inventory();
  *out += '{';
  Members m(indent, out);
  AppendString(node.peer_address(), m.Key("address"));
  AppendString(inventory.agent_version(), m.Key("agent_version"));
  AppendString(inventory.bootstrap_interface(), m.Key("bootstrap_interface"));
  AppendStringOrNull(node.current_test_id(), m.Key("current_test"));
  AppendString(inventory.driver_version(), m.Key("driver_version"));
  AppendObjects(inventory.gpus(), m.inner(), m.Key("gpus"), AppendGpu);
  AppendObjects(inventory.hcas(), m.inner(), m.Key("hcas"), AppendHca);
  AppendInt(node.heartbeat_age_ms(), m.Key("heartbeat_age_ms"));
  AppendString(inventory.host_id(), m.Key("host_id"));
  AppendString(inventory.hostname(), m.Key("hostname"));
  AppendObjects(inventory.interfaces(), m.inner(), m.Key("interfaces"), AppendInterface);
  // Only for nodes a validation judged (issue 11: repeat offenders).
  if (node.last_verdict() != v1::VERDICT_UNSPECIFIED) {
    std::string* value = m.Key("last_validation");
    *value += '{';
    Members v(m.inner(), value);
    AppendInt(node.bad_verdict_count(), v.Key("bad_count"));
    AppendBool(spec::IsRepeatOffender(node.bad_verdict_count()), v.Key("repeat_offender"));
    AppendString(FormatUtcTime(node.last_verdict_time_unix_ms()), v.Key("time"));
    AppendString(node.last_validation_id(), v.Key("validation_id"));
    AppendString(spec::WireName(node.last_verdict()), v.Key("verdict"));
    v.Close('}');
  }
  AppendString(node.node_name(), m.Key("name"));
  AppendString(inventory.nccl_version(), m.Key("nccl_version"));
  AppendInt(inventory.worker_slots(), m.Key("slots"));
  AppendString(NodeStateName(node.state()), m.Key("state"));
  std::vector<std::string> transports;
  for (int transport : inventory.transports()) {
    transports.emplace_back(spec::DisplayName(static_cast<v1::Transport>(transport)));
  }
  AppendStrings(transports, m.inner(), m.Key("transports"));
  m.Close('}');
}

}  // namespace eb::ebctl
