#!/usr/bin/env python3
"""Writes the seed corpus of each fuzz target into tests/fuzz/corpus/<target>/.

The seeds are committed (CI fuzzes from them); run this again after changing
it. Protos are encoded from text format with `protoc --encode`; the sequence
targets take frames of [op][length: u16 little-endian][payload] (fuzz_frames.h).
"""
import hashlib
import os
import pathlib
import struct
import subprocess

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
PROTO_DIR = REPO / "proto"


def encode(message_type, text):
    proto = {"AgentMessage": "agent", "CoordinatorMessage": "agent", "TestSpec": "common",
             "ReportWorkerEventRequest": "worker"}[message_type]
    return subprocess.run(
        ["protoc", f"--encode=ebnccl.v1.{message_type}", f"-I{PROTO_DIR}",
         f"{PROTO_DIR}/ebnccl/v1/{proto}.proto"],
        input=text.encode(), check=True, capture_output=True).stdout


def frame(op, payload=b""):
    if isinstance(payload, str):
        payload = payload.encode()
    return bytes([op]) + struct.pack("<H", len(payload)) + payload


def write(target, seeds):
    # Replaces the generated seeds; keeps the regression-* inputs (crashes
    # found by fuzzing and fixed, replayed by every run).
    directory = HERE / "corpus" / target
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.iterdir():
        if not old.name.startswith("regression-"):
            old.unlink()
    for seed in seeds:
        if isinstance(seed, str):
            seed = seed.encode()
        (directory / hashlib.sha1(seed).hexdigest()).write_bytes(seed)


def size_parse():
    write("size_parse_fuzz", ["8", "64M", "1G", "1.5K", "512KiB", "64mb", " 2 ", "-8", "1e3",
                              "8T", "0", "B", "1.25K", "9223372036854775807", "0x10", "1.5"])


def numbers_parse():
    write("numbers_parse_fuzz", ["90", "90s", "500ms", "1h30m", "nan", "inf", "-inf", "1e308",
                                 "9223372036854775807ms", "99999999999h", "-5", "0", "0.5",
                                 "99999999999999999999", "1e400", b"x\xe2\x82", b"\xff\xfe",
                                 b"test_id=x\xe2\x82\xac\xe2\x82\xac", "168h", "169h"])


def spec_validator():
    specs = [
        'collective: COLLECTIVE_ALL_REDUCE min_bytes: 8 max_bytes: 134217728 step_factor: 2 '
        'iterations: 20 warmup_iterations: 5',
        'collective: COLLECTIVE_BROADCAST root_rank: 1 min_bytes: 1024 max_bytes: 1048576 '
        'step_bytes: 4096 node_names: "node-a" node_names: "node-b" workers_per_node: 2',
        'collective: COLLECTIVE_ALL_GATHER data_type: DATA_TYPE_DOUBLE transport: TRANSPORT_NCCL '
        'min_bytes: 64 max_bytes: 64 step_factor: 2 iterations: 1 timeout_ms: 60000 '
        'launch_timeout_ms: 1000 init_timeout_ms: 1000 step_timeout_ms: 1000 '
        'nccl_env { key: "NCCL_ALGO" value: "Ring" } cuda_graph_launches: 4',
        'collective: COLLECTIVE_REDUCE reduce_op: REDUCE_OP_MAX min_busbw_gbps: 10.5 '
        'min_bytes: 1 max_bytes: 8 step_factor: 2 check_iterations: 1',
    ]
    write("spec_validator_fuzz", [encode("TestSpec", s) for s in specs] + [b""])


def configs():
    agent = (REPO / "deploy/config/agent.toml").read_text()
    coordinator = (REPO / "deploy/config/coordinator.toml").read_text()
    write("agent_config_fuzz", [
        agent, "", '[agent]\nworkers = 2\ngpus = [0, 1]\n',
        '[worker.env]\nNCCL_DEBUG = "INFO"\n[worker]\ngrace = 1500\n',
        '[nccl]\nib_hca = ["=mlx5_0:1", "^mlx5_1"]\nib_gid_index = -1\n',
        '[agent]\nworkerz = 2\n', '[agent\nworkers = "eight"\n'])
    write("coordinator_config_fuzz", [
        coordinator, "", '[coordinator]\nlisten = "[::1]:0"\n',
        '[heartbeat]\nperiod = "1.5s"\nmiss_limit = 1\n[timeouts]\ntest = 60000\n',
        '[history]\nlimit = -1\n', 'coordinator = { listen = "x" }\n'])


def rendezvous():
    def key_value(test, key, value):
        return bytes([test, len(key)]) + key.encode() + value.encode()
    write("rendezvous_kv_fuzz", [
        frame(0, b"\x00") + frame(2, key_value(0, "rank0", "10.0.0.1:4000")) +
        frame(3, b"\x00\x0arank0,rank1") + frame(2, key_value(0, "rank1", "10.0.0.2:4000")),
        frame(0, b"\x01") + frame(3, b"\x01\x05a,b") + frame(4, b"\x06") + frame(1, b"\x01gone"),
        frame(3, b"\x02\x01x") + frame(0, b"\x02") + frame(3, b"\x02\x00x,x") +
        frame(2, key_value(2, "x", "")) + frame(1, b"\x02"),
    ])


def agent_messages():
    def message(session, text):
        return frame(0, bytes([session]) + encode("AgentMessage", text))

    def event(rank, kind, extra=""):
        return f'worker_event {{ test_id: "t-1" rank: {rank} kind: {kind} {extra} }}'

    def size_done(rank, size):
        return event(rank, "WORKER_EVENT_KIND_SIZE_DONE",
                     f"size_result {{ size_bytes: {size} count: {size // 4} "
                     "out_of_place { time_us: 12.5 } in_place { time_us: 11 } }")

    # node-a (session 0 -> 1) runs ranks 0-1, node-b (session 1 -> 2) ranks 2-3.
    session_of = [0, 0, 1, 1]
    happy = b""
    for kind in ["WORKER_EVENT_KIND_REGISTERED", "WORKER_EVENT_KIND_JOINED"]:
        for rank in range(4):
            happy += message(session_of[rank], event(rank, kind))
    for size in [1024, 2048]:
        for rank in range(4):
            happy += message(session_of[rank], size_done(rank, size))
    for rank in range(4):
        happy += message(session_of[rank], event(rank, "WORKER_EVENT_KIND_FINISHED"))
    happy += message(0, 'workers_stopped { test_id: "t-1" }')
    happy += message(1, 'workers_stopped { test_id: "t-1" }')
    failure = (message(0, event(0, "WORKER_EVENT_KIND_REGISTERED")) +
               message(1, event(2, "WORKER_EVENT_KIND_FAILED",
                                'failure { message: "ibv_create_qp failed" }')) +
               frame(2, b"\x40") + message(1, 'workers_stopped { test_id: "t-1" }'))
    sessions = (message(2, 'register { node_name: "node-c" inventory { hostname: "node-c" '
                           'worker_slots: 1 transports: TRANSPORT_GLOO } }') +
                message(2, 'heartbeat { sequence: 1 running_test_ids: "t-1" }') +
                message(3, 'heartbeat { sequence: 1 }') + frame(1, b"\x00") +
                frame(2, b"\xff") + frame(3, encode("TestSpec",
                    'collective: COLLECTIVE_ALL_REDUCE min_bytes: 8 max_bytes: 8 step_factor: 2 '
                    'iterations: 1 node_names: "node-c"')) +
                frame(5) + message(2, 'log_content { request_id: 1 content: "tail" }') +
                frame(4, b"\x01cancelled by the fuzzer"))
    write("agent_messages_fuzz", [happy, failure, sessions, b""])


def agent_commands():
    launch = encode("CoordinatorMessage", """launch {
      test_id: "t-1"
      spec { collective: COLLECTIVE_ALL_REDUCE min_bytes: 1024 max_bytes: 4096 step_factor: 2
             iterations: 5 transport: TRANSPORT_GLOO nccl_env { key: "NCCL_DEBUG" value: "INFO" } }
      ranks { rank: 2 world_size: 4 node_name: "node-a" node_index: 1 local_rank: 0 device_index: -1 }
      ranks { rank: 3 world_size: 4 node_name: "node-a" node_index: 1 local_rank: 1 device_index: -1 }
      register_timeout_ms: 10000 init_timeout_ms: 30000 op_timeout_ms: 5000
      sizes_bytes: 1024 sizes_bytes: 2048 sizes_bytes: 4096 }""")
    stop = encode("CoordinatorMessage", 'stop { test_id: "t-1" reason: "cancelled" }')
    joined = encode("ReportWorkerEventRequest",
                    'event { test_id: "t-1" rank: 2 kind: WORKER_EVENT_KIND_JOINED }')
    write("agent_commands_fuzz", [
        frame(0, launch) + frame(1, b"\x00\x00") + frame(1, b"\x01\x00") +
        frame(1, b"\x00\x01") + frame(1, b"\x00\x02" + joined) + frame(3, b"\x14") +
        frame(2, b"\x00\x00") + frame(2, b"\x01\x00"),
        frame(0, launch) + frame(0, launch) + frame(3, b"\xff") + frame(0, stop) +
        frame(2, b"\x00\x89") + frame(3, b"\x64"),
        frame(0, launch) + frame(4, b"\x01shutdown") + frame(3, b"\x32"),
    ])


if __name__ == "__main__":
    size_parse()
    numbers_parse()
    spec_validator()
    configs()
    rendezvous()
    agent_messages()
    agent_commands()
