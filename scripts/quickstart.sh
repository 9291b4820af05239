#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's first command: install what is missing, build, and run the main job: two
# processes on this machine (127.0.0.1 and 127.0.0.2) exchange SEND/RECV, RDMA WRITE, RDMA
# READ and atomics through the verbs API over RoCEv2/UDP, verify the data and measure, while
# the traffic is captured; uroce-dump then explains the capture per queue pair.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" --target uroce-dump uroce-demo
dump=build/tools/uroce-dump/uroce-dump
demo=build/tools/uroce-demo/uroce-demo

echo
if [ "$(id -u)" -eq 0 ]; then
	echo "== Two processes (127.0.0.1 and 127.0.0.2) through the verbs API: $demo --capture build/demo.pcap"
	"$demo" --capture build/demo.pcap
	echo
	echo "== What they said on the wire, per queue pair: $dump -r build/demo.pcap --flows"
	"$dump" -r build/demo.pcap --flows
else
	echo "== Two processes (127.0.0.1 and 127.0.0.2) through the verbs API: $demo"
	echo "   (capturing the traffic needs root)"
	"$demo"
fi
