#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's first command: install what is missing, build, and run the main job.
# Until the transport engine lands, the main job is uroce-dump explaining a real capture of
# two Linux rxe peers under 5 % loss: packet lines, then the per-QP analysis.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" --target uroce-dump
dump=build/tools/uroce-dump/uroce-dump
capture=examples/rxe-write-loss.pcapng

echo
echo "== The first RoCEv2 packets: $dump -r $capture -f 'udp port 4791' -c 4"
"$dump" -r "$capture" -f 'udp port 4791' -c 4
echo
echo "== The responder's ACKs and NAKs (BTH opcode 0x11): -f 'udp port 4791 and udp[8] == 0x11'"
"$dump" -r "$capture" -f 'udp port 4791 and udp[8] == 0x11'
echo
echo "== Per-QP analysis: $dump -r $capture --flows"
"$dump" -r "$capture" --flows
