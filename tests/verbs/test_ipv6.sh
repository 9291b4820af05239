#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# RoCEv2 over IPv6 end to end with unmodified programs: in a network namespace of its own,
# two IPv6 addresses on lo (fd00:75::1 and ::2, without duplicate address detection so that
# they are usable at once), one process on each through UROCE_IP, GID index 0 = that address.
# RC and UD pingpong and an RDMA WRITE bandwidth run. Needs root (ip netns); skipped without.
set -u
: "${UROCE_LIBDIR:?}"
lib=$(cd "$UROCE_LIBDIR" && pwd)
for p in ip ibv_rc_pingpong ibv_ud_pingpong ib_write_bw; do
	command -v "$p" >/dev/null || { echo "SKIP: $p is not installed"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for a network namespace"; exit 77; }
ns=uroce-v6-$$
ip netns add "$ns" || { echo "SKIP: cannot create a network namespace"; exit 77; }
tmp=$(mktemp -d)
trap 'ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null; ip netns del "$ns"; rm -rf "$tmp"' EXIT
# ip netns exec needs / to be a mount point (not so in a plain chroot): skip where it cannot run.
ip netns exec "$ns" true 2>/dev/null || { echo "SKIP: ip netns exec does not work here"; exit 77; }
ip -n "$ns" link set lo up
ip -n "$ns" addr add fd00:75::1/128 dev lo nodad
ip -n "$ns" addr add fd00:75::2/128 dev lo nodad

# A sanitizer build of the library needs its runtime loaded first into these programs.
preload=
if nm -D "$lib/libibverbs.so.1" 2>/dev/null | grep -q __asan_init; then
	preload=$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)
fi
run() # ADDR PROGRAM ARGS...: runs a program in the namespace on uroce with UROCE_IP=ADDR
{
	local addr=$1
	shift
	ip netns exec "$ns" env LD_LIBRARY_PATH="$lib" LD_PRELOAD="$preload" \
		ASAN_OPTIONS=detect_leaks=0 UROCE_IP="$addr" timeout 60 "$@"
}

failed=0
pair() # NAME MARKER SERVER-ARGS... -- CLIENT-EXTRA...: server on ::1, client on ::2
{
	local name=$1 marker=$2
	shift 2
	local args=() srv cli rc_s rc_c
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	run fd00:75::1 "${args[@]}" >"$tmp/$name.srv" 2>&1 &
	srv=$!
	for _ in $(seq 100); do
		ip netns exec "$ns" ss -ltn | grep -q ":${args[-1]} " && break
		sleep 0.1
	done
	run fd00:75::2 "${args[@]}" "$@" >"$tmp/$name.cli" 2>&1
	rc_c=$?
	[ $rc_c -eq 0 ] || kill "$srv" 2>/dev/null # a server without its client never ends
	wait "$srv"
	rc_s=$?
	if [ $rc_s -eq 0 ] && [ $rc_c -eq 0 ] && grep -q "$marker" "$tmp/$name.cli" &&
		grep -q "$marker" "$tmp/$name.srv"; then
		echo "PASS $name"
	else
		echo "FAIL $name (server $rc_s, client $rc_c)"
		sed 's/^/  server: /' "$tmp/$name.srv"
		sed 's/^/  client: /' "$tmp/$name.cli"
		failed=1
	fi
}

# The programs exchange connection data over TCP on IPv4 (perftest's socket is AF_INET only):
# the client dials 127.0.0.1, while RoCE runs between the IPv6 GIDs. The port comes last in
# the arguments so that pair() can find it.
pair rc_pingpong "iters in" ibv_rc_pingpong -g 0 -n 200 -p 18701 -- 127.0.0.1
pair ud_pingpong "iters in" ibv_ud_pingpong -g 0 -n 200 -s 512 -p 18702 -- 127.0.0.1
pair write_bw "^ 65536 " ib_write_bw -d uroce0 -x 0 -s 65536 -n 500 -p 18703 -- 127.0.0.1
grep -q "GID: 253:00:00:117:" "$tmp/write_bw.cli" || { echo "FAIL: perftest did not use the IPv6 GID (it prints GID bytes in decimal)"; failed=1; }
exit $failed
