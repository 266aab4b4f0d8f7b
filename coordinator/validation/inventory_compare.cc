#include "coordinator/validation/inventory_compare.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <type_traits>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"

namespace eb::validation {
namespace v1 = ebnccl::v1;
namespace {

using Inventories = std::vector<const v1::NodeInventory*>;
// Per node: its value as printed, or nullopt when it is not compared.
using SubjectValues = std::vector<std::optional<std::string>>;

std::optional<std::string> CompareShown(std::string value, const InventoryFact& fact) {
  if (!value.empty()) return value;
  if (fact.absent == nullptr) return std::nullopt;  // unknown
  return std::string(fact.absent);
}

// Appends one difference per compared node whose value is not the
// majority's (every compared node when the most common values tie).
void CompareSubject(const InventoryFact& fact, const std::string& subject,
                    const SubjectValues& values, std::vector<FactDifference>& out) {
  std::map<std::string, int> counts;
  int compared = 0;
  for (const std::optional<std::string>& value : values) {
    if (!value.has_value()) continue;
    ++counts[*value];
    ++compared;
  }
  if (counts.size() < 2) return;
  int top = 0;
  for (const auto& [value, count] : counts) top = std::max(top, count);
  std::vector<std::string> tied;
  for (const auto& [value, count] : counts) {
    if (count == top) tied.push_back(value);
  }
  const bool has_majority = tied.size() == 1;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!values[i].has_value() || (has_majority && *values[i] == tied.front())) continue;
    FactDifference d;
    d.fact = fact.name;
    d.subject = subject;
    d.node = static_cast<int>(i);
    d.value = *values[i];
    if (has_majority) {
      d.majority = tied.front();
    } else {
      d.tied = tied;
    }
    d.majority_nodes = top;
    d.value_nodes = counts[*values[i]];
    d.compared_nodes = compared;
    out.push_back(std::move(d));
  }
}

void CompareNodeFact(const InventoryFact& fact, NodeFactReader read, const Inventories& inventories,
                     std::vector<FactDifference>& out) {
  SubjectValues values(inventories.size());
  for (size_t i = 0; i < inventories.size(); ++i) {
    if (inventories[i] != nullptr) values[i] = CompareShown(read(*inventories[i]), fact);
  }
  CompareSubject(fact, fact.name, values, out);
}

// The kinds of device a fact may be read on: how a node lists them, how
// one is told from another across nodes, and how it is printed.
struct CompareHcaPorts {
  using Device = v1::HcaInfo;
  using Key = std::string;  // "mlx5_3:1"
  static const auto& All(const v1::NodeInventory& inventory) { return inventory.hcas(); }
  static Key KeyOf(const Device& hca) { return HcaPortName(hca); }
  static std::string Label(const Key& key) { return absl::StrCat("HCA ", key); }
};

struct CompareGpus {
  using Device = v1::GpuInfo;
  using Key = int;  // GpuInfo.index: CUDA's index in PCI bus order
  static const auto& All(const v1::NodeInventory& inventory) { return inventory.gpus(); }
  static Key KeyOf(const Device& gpu) { return gpu.index(); }
  static std::string Label(Key key) { return absl::StrCat("GPU ", key); }
};

template <typename Kind>
void CompareDeviceFact(const InventoryFact& fact, std::string (*read)(const typename Kind::Device&),
                       const Inventories& inventories, std::vector<FactDifference>& out) {
  // Each node's devices by key, looked up once per device: a fleet of a
  // thousand nodes with 8 ports each is 8,000 lookups per fact.
  using Devices = std::map<typename Kind::Key, const typename Kind::Device*>;
  std::vector<Devices> devices(inventories.size());
  std::set<typename Kind::Key> keys;
  for (size_t i = 0; i < inventories.size(); ++i) {
    if (inventories[i] == nullptr) continue;
    for (const auto& device : Kind::All(*inventories[i])) {
      const typename Kind::Key key = Kind::KeyOf(device);
      devices[i].emplace(key, &device);  // a key listed twice: the first
      keys.insert(key);
    }
  }
  for (const typename Kind::Key& key : keys) {
    SubjectValues values(inventories.size());
    for (size_t i = 0; i < inventories.size(); ++i) {
      const auto device = devices[i].find(key);
      if (device != devices[i].end()) values[i] = CompareShown(read(*device->second), fact);
    }
    CompareSubject(fact, absl::StrCat(Kind::Label(key), " ", fact.name), values, out);
  }
}

}  // namespace

std::vector<FactDifference> CompareInventories(const Inventories& inventories,
                                               const std::vector<InventoryFact>& facts) {
  std::vector<FactDifference> out;
  for (const InventoryFact& fact : facts) {
    std::visit(
        [&](auto read) {
          using Read = decltype(read);
          if constexpr (std::is_same_v<Read, NodeFactReader>) {
            CompareNodeFact(fact, read, inventories, out);
          } else if constexpr (std::is_same_v<Read, HcaPortFactReader>) {
            CompareDeviceFact<CompareHcaPorts>(fact, read, inventories, out);
          } else {
            static_assert(std::is_same_v<Read, GpuFactReader>, "a reader of a new kind of device");
            CompareDeviceFact<CompareGpus>(fact, read, inventories, out);
          }
        },
        fact.read);
  }
  return out;
}

}  // namespace eb::validation
