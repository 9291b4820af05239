#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# RoCEv2 over IPv6 end to end with unmodified programs: in a network namespace of its own,
# two IPv6 addresses on lo (fd00:75::1 and ::2, without duplicate address detection so that
# they are usable at once), one process on each through UROCE_IP, GID index 0 = that address.
# RC and UD pingpong and an RDMA WRITE bandwidth run. Needs root (ip netns); skipped without.
# The programs run and are judged as the interop tests' are (tests/interop/lib.sh: the
# sanitizer runtimes preloaded in a sanitizer build, leaks inside uroce fail a case, no error
# lines, the programs' success lines).
set -u
. "$(dirname "$0")/../interop/lib.sh"
ic_need iproute2 ip ss
ic_need ibverbs-utils ibv_rc_pingpong ibv_ud_pingpong
ic_need perftest ib_write_bw
[ "$(id -u)" -eq 0 ] || ic_skip "needs root for a network namespace"
ns=uroce-v6-$$
ip netns add "$ns" || ic_skip "cannot create a network namespace"
trap 'ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null; ip netns del "$ns"; ic_cleanup' EXIT
# ip netns exec needs / to be a mount point (not so in a plain chroot): skip where it cannot run.
ip netns exec "$ns" true 2>/dev/null || ic_skip "ip netns exec does not work here"
ip -n "$ns" link set lo up
ip -n "$ns" addr add fd00:75::1/128 dev lo nodad
ip -n "$ns" addr add fd00:75::2/128 dev lo nodad

run() # ADDR PROGRAM ARGS...: runs a program in the namespace on uroce with UROCE_IP=ADDR
{
	local addr=$1
	shift
	ic_cmd UROCE_IP="$addr" -- "$@"
	ip netns exec "$ns" "${IC_CMD[@]}" </dev/null
}

ic_server() { run fd00:75::1 "$@"; }
ic_client() { run fd00:75::2 "$@"; }
pair() # NAME KIND SERVER-ARGS... -- CLIENT-EXTRA...: server on ::1, client on ::2; KIND as
{      # ic_check_output takes it, for both sides
	ic_ns_pair "$1" "$2" "$2" "$ns" "${@:3}"
}

# The programs exchange connection data over TCP on IPv4 (perftest's socket is AF_INET only):
# the client dials 127.0.0.1, while RoCE runs between the IPv6 GIDs. The port comes last in
# the arguments so that pair() can find it.
pair rc_pingpong pingpong:200 ibv_rc_pingpong -g 0 -n 200 -p 18701 -- 127.0.0.1
pair ud_pingpong pingpong:200 ibv_ud_pingpong -g 0 -n 200 -s 512 -p 18702 -- 127.0.0.1
pair write_bw perftest:500 ib_write_bw -d uroce0 -x 0 -s 65536 -n 500 -p 18703 -- 127.0.0.1
if grep -q "GID: 253:00:00:117:" "$IC_TMP/write_bw.client"; then
	ic_pass "write_bw/ipv6_gid"
else
	ic_fail "write_bw/ipv6_gid" "perftest did not use the IPv6 GID (it prints GID bytes in decimal)"
fi
ic_finish
