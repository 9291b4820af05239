#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perftest (Debian 4.5, unmodified) on RC between two processes on 127.0.12.1 and 127.0.12.2:
# ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw (FETCH_AND_ADD and CMP_AND_SWAP) and the
# four latency tests. Each must print its result row with the requested iteration count
# (or, with -D, any count) and no error line; both sides must exit with 0.
#
# Post-send path: perftest 4.5 uses the ibv_wr_* API (ibv_qp_to_qp_ex) only on devices it
# recognizes by vendor part (ConnectX-4 and later, BlueField, EFA, HNS) and falls back to
# ibv_post_send on every other one, rxe and uroce included ("ibv_wr* API : OFF" in its banner).
# The default runs and the --use_old_post_send case therefore take the same path; the banner
# line is checked so that a change of perftest's choice is noticed.
. "$(dirname "$0")/lib.sh"
ic_need perftest ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_send_lat ib_write_lat \
	ib_read_lat ib_atomic_lat

s=127.0.12.1
c=127.0.12.2
bw=1000  # iterations of the bandwidth tests
lat=200  # iterations of the latency tests
pt() { ic_pair "$1" "$2" "$3" $s $c "$4" -- "${@:5}" -d uroce0 -x 0; }

# The banner must show the device, transport and GID the test asked for.
banner()
{
	local name=$1 conn=$2 f
	for f in "$IC_TMP/$name.client" "$IC_TMP/$name.server"; do
		if ! { grep -Eq "Device +: uroce0" "$f" && grep -Eq "Connection type : $conn" "$f" &&
			grep -Eq 'Link type +: Ethernet' "$f" && grep -Eq 'GID index +: 0' "$f" &&
			grep -q "GID: .*$(ic_perftest_gid $s)\$" "$f" &&
			grep -q "GID: .*$(ic_perftest_gid $c)\$" "$f"; }; then
			ic_fail "$name/banner" "$(basename "$f"): banner lacks uroce0, $conn, Ethernet, GID index 0 or the two GIDs"
			return 1
		fi
	done
	ic_pass "$name/banner"
}

pt send_bw perftest:$bw perftest:$bw 19121 ib_send_bw -n $bw && banner send_bw RC
pt write_bw perftest:$bw perftest:$bw 19122 ib_write_bw -n $bw
pt read_bw perftest:$bw perftest:$bw 19123 ib_read_bw -n $bw
pt atomic_bw_fadd perftest:$bw perftest:$bw 19124 ib_atomic_bw -A FETCH_AND_ADD -n $bw
pt atomic_bw_cswap perftest:$bw perftest:$bw 19125 ib_atomic_bw -A CMP_AND_SWAP -n $bw
pt send_lat perftest:$lat perftest:$lat 19126 ib_send_lat -n $lat
pt write_lat perftest:$lat perftest:$lat 19127 ib_write_lat -n $lat
# The passive side of READ and atomics prints no result row: it only waits.
pt read_lat perftest-quiet perftest:$lat 19128 ib_read_lat -n $lat
pt atomic_lat_fadd perftest-quiet perftest:$lat 19129 ib_atomic_lat -A FETCH_AND_ADD -n $lat
pt atomic_lat_cswap perftest-quiet perftest:$lat 19130 ib_atomic_lat -A CMP_AND_SWAP -n $lat

# Which post-send path perftest chose (see the top of this file), and the explicit old one.
if grep -Eq 'ibv_wr\* API +: OFF' "$IC_TMP/write_bw.client"; then
	ic_pass "write_bw/post_send_path" "perftest uses ibv_post_send on this device"
elif grep -Eq 'ibv_wr\* API +: ON' "$IC_TMP/write_bw.client"; then
	ic_pass "write_bw/post_send_path" "perftest uses the ibv_wr_* API on this device"
else
	ic_fail "write_bw/post_send_path" "no 'ibv_wr* API' line in perftest's banner"
fi
pt write_bw_old_post_send perftest:$bw perftest:$bw 19131 ib_write_bw --use_old_post_send -n $bw

# Message sizes around the MTU: one byte (pad 3), MTU + 1 (FIRST + LAST of one byte), a
# multi-packet message with pad 2; several QPs; bidirectional; duration mode, which ends on
# SIGALRM (the progress thread must not take it).
pt send_bw_1B perftest:$bw perftest:$bw 19132 ib_send_bw -s 1 -n $bw
pt write_bw_4097 perftest:$bw perftest:$bw 19133 ib_write_bw -s 4097 -n $bw
pt read_bw_10238 perftest:$bw perftest:$bw 19134 ib_read_bw -s 10238 -n $bw
pt write_bw_4qp perftest:$((4 * bw)) perftest:$((4 * bw)) 19135 ib_write_bw -q 4 -n $bw # counts all QPs
pt send_bw_bidir perftest:$bw perftest:$bw 19136 ib_send_bw -b -n $bw
pt send_bw_srq perftest:$bw perftest:$bw 19137 ib_send_bw --use-srq -n $bw
pt write_bw_duration perftest:- perftest:- 19138 ib_write_bw -D 1
pt send_lat_events perftest:$lat perftest:$lat 19139 ib_send_lat -e -n $lat

ic_finish
