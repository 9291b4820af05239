#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The datamodel (datamodel/*.ksy, Kaitai Struct) against uroce-dump: every capture of
# ../shared/testdata/captures, uroce's own (tests/vectors, the crafted ones, examples/) and
# the hand-built layers.pcap (RoCE v1, VLAN and QinQ tags, IPv6, IPv4 options, a trailer)
# are parsed by the compiled datamodel and every header field is compared with uroce-dump's
# JSON (datamodel/check.py): any difference fails. Then the check must catch a wrong model:
# a copy of the datamodel whose RETH reads its R_Key and DMA Length swapped has to fail it.
# tests/interop/test_capture.sh runs the same check on a capture of uroce's own traffic.
set -u
: "${UROCE_DUMP:?the uroce-dump binary}" "${UROCE_VECTORS:?tests/vectors}" "${UROCE_SOURCE:?}"
run=$UROCE_SOURCE/datamodel/run-check.sh

captures=("$UROCE_VECTORS"/*.pcap "$UROCE_VECTORS"/tshark/crafted/*.pcap "$UROCE_SOURCE"/examples/*.pcapng)
shared=${UROCE_SHARED:-/nonexistent}/testdata/captures
if [ -d "$shared" ]; then
	captures+=("$shared"/*.pcap "$shared"/*.erf)
else
	echo "no ../shared captures: only uroce's own are compared"
fi

bash "$run" "$UROCE_DUMP" "${captures[@]}"
rc=$?
[ $rc = 2 ] && { echo "FAIL: the datamodel check cannot run: a tool is missing (above)"; exit 1; }
[ $rc = 0 ] || { echo "FAIL: the datamodel and uroce-dump differ (exit $rc)"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$UROCE_SOURCE"/datamodel/*.ksy "$tmp"/
sed -i 's/^  - id: r_key$/  - id: dma_length_x/; s/^  - id: dma_length$/  - id: r_key/; s/^  - id: dma_length_x$/  - id: dma_length/' "$tmp"/reth.ksy
cmp -s "$tmp"/reth.ksy "$UROCE_SOURCE"/datamodel/reth.ksy && { echo "FAIL: the mutation changed nothing"; exit 1; }
KSY_DIR=$tmp bash "$run" "$UROCE_DUMP" "$UROCE_VECTORS"/tshark/crafted/opcodes.pcap >"$tmp/mutant.log" 2>&1
rc=$?
grep -q 'infiniband.reth.r_key' "$tmp/mutant.log" && [ $rc = 1 ] ||
	{ echo "FAIL: a datamodel with the RETH's fields swapped passed the check (exit $rc)"; cat "$tmp/mutant.log"; exit 1; }
echo "ok: a datamodel with the RETH's R_Key and DMA Length swapped fails the check ($(grep -c 'reth' "$tmp/mutant.log") differences shown)"
