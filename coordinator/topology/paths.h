#pragma once

// The links a pair test's traffic crosses, per rail: the fabric indexed by
// the fleet's nodes, and the routing assumption that turns a pair into a
// set of candidate links. Pure.
//
// A link is the unit a verdict names:
//  * a node-side cable: one HCA port of one node to its leaf (kCable); its
//    fault is a rail verdict (one rail of one node);
//  * a leaf-spine link (kUplink): every cable between one leaf and one
//    spine. Parallel cables between the same two switches are one link: no
//    routing table in a fabric file says which of them a flow takes.
//
// A pair test on rail r is a 2-rank ring: traffic flows a -> b and b -> a.
// Same-leaf pairs cross only their two cables. A cross-leaf pair also
// crosses, for each direction, the source leaf's link to some spine and
// that spine's link to the destination leaf; a link carries both
// directions, so a degraded cable slows either. Which spine:
//
//  * Routing::kDestinationModK (the default; what localization to one link
//    needs): deterministic destination routing, OpenSM's ftree/updn with
//    LMC 0 in a two-tier fat-tree ("d-mod-k"): every leaf sends traffic for
//    node d through the same spine, common[rank(d) mod |common|], where
//    common are the spines both leaves reach, sorted by name, and rank(d)
//    is d's position on its leaf (its cable's leaf port, ascending). A
//    fabric routed another way (a different permutation of destinations
//    onto spines) needs its forwarding tables read, which this does not do:
//    then use kSpray, which is always sound but names less.
//  * Routing::kSpray: the choice is not known (ECMP hashing, adaptive
//    routing, NCCL's several queue pairs spread over spines): every spine
//    both leaves reach may carry part of the traffic, and a ring is as slow
//    as its slowest part, so every such link is on the path of a slow test
//    and a fine test clears them all. A bad uplink is then named only up to
//    its leaf's links (no pair crosses one of a leaf's uplinks and not the
//    others), which the localizer reports as inseparable.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/topology/fabric.h"

namespace eb::topology {

enum class Routing { kDestinationModK, kSpray };
const char* RoutingName(Routing routing);

enum class LinkKind { kCable, kUplink };

struct Link {
  LinkKind kind = LinkKind::kCable;
  // kCable: the node (fleet index), its HCA and rail, and the leaf port.
  int node = -1;
  std::string hca;
  int rail = -1;
  // Both kinds: the leaf. kUplink: the spine, and each parallel cable's
  // (leaf port, spine port).
  int leaf = -1;
  int spine = -1;
  std::vector<std::pair<int, int>> ports;
};

// At most 2 cables + 4 leaf-spine links with kDestinationModK.
struct PathLinks {
  std::vector<int> links;  // sorted, unique link ids
  bool reachable = true;   // false: a node has no cable on the rail, or the leaves share no spine
};

class FabricIndex {
 public:
  // `nodes`: the fleet's node names in fleet order. Cables of other nodes
  // are left out (CompareWithInventory names them).
  FabricIndex(const Fabric& fabric, const std::vector<std::string>& nodes);

  int node_count() const { return static_cast<int>(cable_.size()); }
  const std::string& NodeName(int node) const { return node_names_[node]; }
  int rail_count() const { return rails_; }
  const std::vector<Link>& links() const { return links_; }
  int CableOf(int node, int rail) const;  // link id, -1 when not cabled
  int LeafOf(int node, int rail) const;   // switch id, -1 when not cabled
  const std::string& SwitchName(int id) const { return switches_[id]; }
  int SwitchIdOf(const std::string& name) const;  // -1 when unknown
  const std::vector<int>& NodesOn(int leaf, int rail) const;
  // The leaves (switch ids) that carry cables of `rail`.
  std::vector<int> LeavesOf(int rail) const;
  int UplinkOf(int leaf, int spine) const;  // link id, -1 when none

  // The links a pair test of a and b crosses on `rail`.
  PathLinks Path(int a, int b, int rail, Routing routing) const;

  // "node007 mlx5_3 (rail 3) - leaf-r3-1 port 7" / "leaf-r3-1 port 33 - spine-2 port 4".
  std::string Describe(int link) const;

 private:
  int SwitchId(const std::string& name);
  // The spine that carries traffic towards `destination` (on its leaf at
  // `rail`) from `from_leaf`; -1 when the leaves share none.
  int SpineTowards(int from_leaf, int destination, int rail) const;

  int rails_ = 0;
  std::vector<std::string> node_names_;
  std::vector<std::string> switches_;
  std::map<std::string, int> switch_ids_;
  std::vector<Link> links_;
  std::vector<std::vector<int>> cable_;                      // [node][rail] -> link id
  std::vector<std::vector<int>> port_rank_;                  // [node][rail] -> position on its leaf
  std::map<std::pair<int, int>, std::vector<int>> on_leaf_;  // (leaf, rail) -> nodes by port
  // By switch id (Path is the hot loop of planning: vectors, not maps).
  std::vector<std::vector<int>> leaf_spines_;     // leaf -> spines, sorted by name
  std::vector<std::vector<int>> leaf_spine_ids_;  // leaf -> spines, sorted by id
  std::vector<std::vector<int>> leaf_uplinks_;    // leaf -> link id, parallel to leaf_spine_ids_
};

}  // namespace eb::topology
