#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the library tells a user who got something wrong, seen through unmodified programs
# (ibv_devinfo, ibv_rc_pingpong, ibv_ud_pingpong over uroce's libibverbs.so.1):
# - a wrong UROCE_IP, UROCE_XDP, UROCE_SPIN_US, UROCE_IMPAIR or UROCE_GSO of 5000 characters
#   is quoted by its first 64 bytes and "..." (common/echo.h), with the reason after it;
# - when another process (here another uroce program) has UDP port 4791 of the address, the
#   message names the address and the port and says what to do (another UROCE_IP); once the
#   port is free the same program gets past that point.
# Addresses 127.0.6.x, which no other test uses (CTest runs tests at the same time); TCP ports
# 18791..18793. Judged by exact lines, never by time.
set -u
. "$(dirname "$0")/../interop/lib.sh"
ic_need ibverbs-utils ibv_devinfo ibv_rc_pingpong ibv_ud_pingpong

long() { head -c "$2" /dev/zero | tr '\0' "$1"; } # long CHAR N: N times CHAR

# run OUT VAR=VALUE... -- PROGRAM ARGS...: the program on uroce, its output (both streams) in OUT.
run()
{
	local out=$1
	shift
	ic_cmd "$@"
	"${IC_CMD[@]}" </dev/null >"$out" 2>&1
}

# expect_line NAME OUT LINE: OUT has exactly that line, and no line of 300 characters or more.
expect_line()
{
	local name=$1 out=$2 want=$3
	if ! grep -qxF -- "$want" "$out"; then
		ic_fail "$name" "no line \"$want\""
		ic_show "$name output" "$out"
	elif awk 'length($0) >= 300 { long = 1 } END { exit !long }' "$out"; then
		ic_fail "$name" "a line of 300 characters or more"
		ic_show "$name output" "$out"
	else
		ic_pass "$name"
	fi
}

o=$IC_TMP
x64=$(long x 64)
run "$o/ip" UROCE_IP="$(long x 5000)" -- ibv_devinfo
expect_line uroce_ip "$o/ip" "uroce: UROCE_IP=$x64...: not an IPv4 or IPv6 address"

run "$o/xdp" UROCE_IP=127.0.6.1 UROCE_XDP="$(long x 5000)" -- ibv_devinfo
expect_line uroce_xdp "$o/xdp" "uroce: UROCE_XDP=$x64...: not an interface name"
run "$o/xdpq" UROCE_IP=127.0.6.1 UROCE_XDP="lo:$(long 9 5000)" -- ibv_devinfo
expect_line uroce_xdp_queue "$o/xdpq" \
	"uroce: UROCE_XDP=lo:$(long 9 61)...: the queue is not a number below 1024"

run "$o/spin" UROCE_IP=127.0.6.1 UROCE_SPIN_US="$(long z 5000)" -- ibv_devinfo
expect_line uroce_spin_us "$o/spin" "uroce: UROCE_SPIN_US=$(long z 64)... is not a number; using 0"

run "$o/impair" UROCE_IP=127.0.6.1 UROCE_IMPAIR="$(long q 5000)" -- ibv_devinfo
expect_line uroce_impair "$o/impair" "uroce: UROCE_IMPAIR: \"$(long q 64)...\": expected key=value"

# UROCE_GSO is read when the first queue pair opens the UDP port: a client whose server is
# absent gets that far, then fails to connect.
run "$o/gso" UROCE_IP=127.0.6.3 UROCE_GSO="$(long g 5000)" -- \
	ibv_rc_pingpong -g 0 -p 18793 127.0.0.1
expect_line uroce_gso "$o/gso" "uroce: UROCE_GSO=$(long g 64)... is not a number; using 1"

# Port 4791 of 127.0.6.2 taken by a uroce server that does not share it (UROCE_SHARE=0),
# waiting for its client: uroce's other processes cannot join it.
ic_cmd UROCE_IP=127.0.6.2 UROCE_SHARE=0 -- ibv_rc_pingpong -g 0 -p 18791
"${IC_CMD[@]}" </dev/null >"$o/holder" 2>&1 &
holder=$!
IC_PIDS+=("$holder")
for _ in $(seq 1 300); do # until it has bound the port or has ended
	ic_udp_bound 127.0.6.2 4791 && break
	ic_alive "$holder" || break
	sleep 0.1
done
if ! ic_udp_bound 127.0.6.2 4791; then
	ic_fail port_taken "the first program never bound 127.0.6.2:4791"
	ic_show holder "$o/holder"
else
	run "$o/taken" UROCE_IP=127.0.6.2 -- ibv_ud_pingpong -g 0 -p 18792 127.0.0.1
	expect_line port_taken "$o/taken" "uroce: UDP port 4791 of 127.0.6.2 is taken by a socket \
uroce cannot share it with (another program's, another user's, or a uroce program run with \
UROCE_SHARE=0): give this process another address with UROCE_IP, e.g. UROCE_IP=127.0.6.3 (any \
127.x.y.z is on the loopback interface)"
	grep -q "Couldn't create QP" "$o/taken" ||
		ic_fail port_taken/qp "the program did not fail to create its QP"
fi
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
# Free again: the same program creates its QP and stops only at the missing server.
run "$o/free" UROCE_IP=127.0.6.2 -- ibv_ud_pingpong -g 0 -p 18792 127.0.0.1
if grep -q "is taken\|Couldn't create QP" "$o/free" || ! grep -q "Couldn't connect" "$o/free"; then
	ic_fail port_free "the free port was not taken"
	ic_show free "$o/free"
else
	ic_pass port_free
fi
ic_finish
