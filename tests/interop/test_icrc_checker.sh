#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Proves icrc_check.py (the independent ICRC check test_capture.sh relies on) right on real
# third-party packets before it judges uroce's: every RoCEv2 packet of the Linux rxe and
# ConnectX-4 Lx captures in ../shared/testdata/captures verifies (IPv4 and IPv6); a copy with
# every masked field changed (TOS/ECN, TTL, IPv4 checksum, UDP checksum, FECN/BECN; IPv6
# traffic class, flow label, hop limit) still verifies; a copy with one covered bit flipped in
# every packet fails on every packet; and scapy's RoCE layer agrees on every IPv4 packet when
# python3-scapy is installed. Needs only python3; exits 77 without the captures.
set -u
here=$(cd "$(dirname "$0")" && pwd)
check=$here/icrc_check.py
caps=${UROCE_SHARED:-$here/../../../shared}/testdata/captures
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
files=()
for f in "$caps"/rxe-*.pcap "$caps"/cx4lx-*.pcap; do
	[ -e "$f" ] && files+=("$f")
done
[ ${#files[@]} -gt 0 ] || { echo "SKIP: no captures in $caps"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

py=python3
scapy=
for p in python3 /usr/bin/python3; do
	if command -v $p >/dev/null && $p -c 'import scapy.contrib.roce' 2>/dev/null; then
		py=$p
		scapy=--scapy
		break
	fi
done
[ -n "$scapy" ] || echo "note: python3-scapy not installed: no cross-check with scapy"

# The number of RoCEv2 packets in FILE's summary line, when the line says they all verified.
all_ok()
{
	sed -n 's|^.*: \([0-9][0-9]*\) RoCEv2 packets, \1 ICRC ok, 0 bad\(;.*\)\{0,1\}$|\1|p' "$1" | tail -n 1
}

for f in "${files[@]}"; do
	name=$(basename "$f" .pcap)
	$py "$check" $scapy "$f" >"$tmp/out" 2>&1
	rc=$?
	n=$(all_ok "$tmp/out")
	# scapy computes the ICRC of IPv4 packets only: on the IPv4 captures it must agree on all.
	agree=ok
	if [ -n "$scapy" ] && [[ $name != *ipv6* ]] && ! grep -q "scapy agrees on $n\$" "$tmp/out"; then
		agree=
	fi
	if [ $rc = 0 ] && [ -n "$n" ] && [ "$n" -gt 0 ] && [ -n "$agree" ]; then
		pass "$name: all $n ICRCs verify${scapy:+ (scapy agrees on the IPv4 ones)}"
	else
		fail "$name: exit $rc"
		cat "$tmp/out"
		continue
	fi

	python3 "$check" --mutate masked "$f" "$tmp/masked.pcap" >/dev/null
	python3 "$check" "$tmp/masked.pcap" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc = 0 ] && [ "$(all_ok "$tmp/out")" = "$n" ]; then
		pass "$name/masked_fields_changed: all $n still verify"
	else
		fail "$name/masked_fields_changed: exit $rc"
		tail -n 5 "$tmp/out"
	fi

	python3 "$check" --mutate unmasked "$f" "$tmp/flipped.pcap" >/dev/null
	python3 "$check" "$tmp/flipped.pcap" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc = 1 ] && tail -n 1 "$tmp/out" | grep -q ": $n RoCEv2 packets, 0 ICRC ok, $n bad\$"; then
		pass "$name/bit_flipped: all $n rejected"
	else
		fail "$name/bit_flipped: exit $rc, expected all $n to fail"
		tail -n 5 "$tmp/out"
	fi
done

# No RoCEv2 packet at all is an error, not a success.
python3 "$check" "$caps/ib-native-erf.pcap" >"$tmp/out" 2>&1
rc=$?
if [ ! -e "$caps/ib-native-erf.pcap" ] || [ $rc = 2 ]; then
	pass "no_roce_packets_is_an_error"
else
	fail "no_roce_packets_is_an_error: exit $rc on a capture without RoCEv2"
fi

if [ $failed -gt 0 ]; then
	echo "test_icrc_checker: $passed passed, $failed failed"
	exit 1
fi
echo "test_icrc_checker: all $passed cases passed"
