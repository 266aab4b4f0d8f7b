#include "coordinator/ebctl/output/report_evidence_json.h"

#include <string>
#include <vector>

namespace eb::ebctl {
namespace v1 = ebnccl::v1;
using nlohmann::json;

namespace {

json CounterToJson(const v1::PortCounter& counter) {
  return json{{"before", counter.before()},
              {"after", counter.after()},
              {"delta", counter.delta()},
              {"reset", counter.reset()}};
}

json LinkToJson(const v1::PortLinkState& link) {
  return json{{"state", link.state()},
              {"phys_state", link.phys_state()},
              {"rate_gbps", link.rate_gbps()},
              {"link_layer", link.link_layer()}};
}

}  // namespace

json PortCountersToJson(const v1::TestReport& report) {
  json ports = json::array();
  for (const v1::PortEvidence& port : report.port_counters()) {
    json counters = json::object();
    for (const v1::PortCounter& counter : port.counters()) {
      counters[counter.name()] = CounterToJson(counter);
      counters[counter.name()]["error"] = counter.error_counter();
    }
    ports.push_back(json{
        {"node", port.node_name()},
        {"hca", port.hca()},
        {"port", port.port()},
        {"start", port.error().empty() ? LinkToJson(port.start()) : json()},
        {"end", port.error().empty() ? LinkToJson(port.end()) : json()},
        {"counters", std::move(counters)},
        {"grown_errors",
         std::vector<std::string>(port.grown_errors().begin(), port.grown_errors().end())},
        {"link_flapped", port.link_flapped()},
        {"refused_counters",
         std::vector<std::string>(port.refused_counters().begin(), port.refused_counters().end())},
        {"error", port.error().empty() ? json() : json(port.error())},
    });
  }
  return ports;
}

json TcpCountersToJson(const v1::TestReport& report) {
  json nodes = json::array();
  for (const v1::TcpEvidence& tcp : report.tcp_counters()) {
    json counters = json::object();
    for (const v1::PortCounter& counter : tcp.counters()) {
      counters[counter.name()] = CounterToJson(counter);
    }
    nodes.push_back(json{{"node", tcp.node_name()},
                         {"counters", std::move(counters)},
                         {"error", tcp.error().empty() ? json() : json(tcp.error())}});
  }
  return nodes;
}

json NcclWarningsToJson(const v1::TestReport& report) {
  json ranks = json::array();
  for (const v1::RankNcclWarnings& rank : report.nccl_warnings()) {
    ranks.push_back(
        json{{"rank", rank.rank()},
             {"node", rank.node_name()},
             {"lines", std::vector<std::string>(rank.lines().begin(), rank.lines().end())},
             {"truncated", rank.truncated()}});
  }
  return ranks;
}

json NcclRasToJson(const v1::TestReport& report) {
  json nodes = json::array();
  for (const v1::NcclRasStatus& ras : report.nccl_ras()) {
    nodes.push_back(json{{"node", ras.node_name()},
                         {"port", ras.port()},
                         {"text", ras.text()},
                         {"truncated", ras.truncated()},
                         {"error", ras.error().empty() ? json() : json(ras.error())}});
  }
  return nodes;
}

namespace {

json ChannelsToJson(const v1::RankNicUse& use) {
  json channels = json::array();
  for (const v1::NcclChannelPath& channel : use.channels()) {
    channels.push_back(json{{"channel", channel.channel()},
                            {"peer_rank", channel.peer_rank()},
                            {"path", channel.path()},
                            {"nic", channel.nic().empty() ? json() : json(channel.nic())},
                            {"send", channel.send()}});
  }
  return channels;
}

}  // namespace

json NicUseToJson(const v1::TestReport& report) {
  json ranks = json::array();
  for (const v1::RankNicUse& use : report.nic_use()) {
    ranks.push_back(json{
        {"rank", use.rank()},
        {"node", use.node_name()},
        {"nics", std::vector<std::string>(use.nics().begin(), use.nics().end())},
        {"expected_hca", use.expected_hca().empty() ? json() : json(use.expected_hca())},
        {"unexpected", use.unexpected()},
        {"info_level", use.info_level()},
        {"nccl_version", use.nccl_version().empty() ? json() : json(use.nccl_version())},
        {"net_transport", use.net_transport().empty() ? json() : json(use.net_transport())},
        {"net_devices",
         std::vector<std::string>(use.net_devices().begin(), use.net_devices().end())},
        {"channels", ChannelsToJson(use)},
        {"channels_dropped", use.channels_dropped()},
        {"coll_channels", use.coll_channels() > 0 ? json(use.coll_channels()) : json()},
        {"gdr", use.has_gdr() ? json(use.gdr()) : json()},
        {"intra_transports",
         std::vector<std::string>(use.intra_transports().begin(), use.intra_transports().end())},
        {"nccl_env", std::vector<std::string>(use.nccl_env().begin(), use.nccl_env().end())},
        {"findings", std::vector<std::string>(use.findings().begin(), use.findings().end())},
        {"unknown_reason", use.unknown_reason().empty() ? json() : json(use.unknown_reason())}});
  }
  return ranks;
}

}  // namespace eb::ebctl
