#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates the tshark golden files that tests/dump/test_tshark_fields.sh compares uroce-dump
# with: tshark/<capture>.fields.txt holds `tshark -T fields` over the fields listed in
# fields-ib.txt, fields-net.txt and fields-mgmt.txt (those present, in that order), for every
# pcap, pcapng and ERF file in the captures folder and in tshark/crafted (synthetic packets for
# what the real captures lack, rebuilt by tshark/crafted/make-opcodes.py). tshark/VERSION
# records the tshark used.
#
# Usage: tests/vectors/make-tshark-golden.sh [CAPTURES_DIR]
#   CAPTURES_DIR defaults to $UROCE_SHARED/testdata/captures, else ../shared/testdata/captures
#   next to the source tree.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
shared=${UROCE_SHARED:-$here/../../../shared}
captures=${1:-$shared/testdata/captures}
out=$here/tshark

fields=()
for list in fields-ib.txt fields-net.txt fields-mgmt.txt; do
	[ -f "$here/$list" ] || continue
	while read -r name; do
		case $name in '' | '#'*) continue ;; esac
		fields+=(-e "$name")
	done <"$here/$list"
done

mkdir -p "$out"
rm -f "$out"/*.fields.txt
tshark -v | head -n 1 >"$out/VERSION"
python3 "$out/crafted/make-opcodes.py" "$out/crafted/opcodes.pcap"
for cap in "$captures"/*.pcap "$captures"/*.pcapng "$captures"/*.erf "$out"/crafted/*.pcap; do
	[ -f "$cap" ] || continue
	# The exact command the golden files come from: tshark's defaults for every -E option,
	# spelled out, and no name resolution.
	LC_ALL=C tshark -n -r "$cap" -T fields -E header=y -E separator=/t -E occurrence=a \
		-E aggregator=, "${fields[@]}" >"$out/$(basename "$cap").fields.txt" 2>/dev/null
	echo "$(basename "$cap"): $(($(wc -l <"$out/$(basename "$cap").fields.txt") - 1)) frames"
done
