#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The interop set again with UROCE_IMPAIR dropping 1 % of the packets each side receives
# (127.0.14.1 and 127.0.14.2). RC recovers every loss (PSN-sequence NAKs, retransmit timer,
# READ re-issue, atomic replay), so the RC programs must complete exactly as without loss,
# with one exception no transport can avoid: in programs where both sides send and each
# exits on its own counts (the pingpongs, ib_send_lat, ib_write_lat), the ACK of one side's
# last request can be lost after the other side exited. That failure alone is accepted, and
# only when the other side completed every iteration (ic_end_race in lib.sh).
#
# UC and UD do not recover losses by design, and the programs wait for each message they
# expect: ibv_uc_pingpong, ibv_ud_pingpong and perftest's UC/UD runs with a fixed iteration
# count would wait forever for a lost message on any fabric, real NICs included. The UC/UD
# perftest runs therefore use duration mode (-D), which ends on time, and must still complete
# and report. The UC/UD pingpongs are left out. That loss really happens and is recovered is
# checked on the wire by test_capture.sh (retransmissions in uroce-dump --flows).
. "$(dirname "$0")/lib.sh"
ic_need ibverbs-utils ibv_rc_pingpong ibv_srq_pingpong
ic_need perftest ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_send_lat ib_write_lat \
	ib_read_lat ib_atomic_lat

s=127.0.14.1
c=127.0.14.2
loss=${UROCE_INTEROP_LOSS:-loss=0.01,seed=7}
n=100    # pingpong iterations
bw=1000  # bandwidth iterations
lat=200  # latency iterations
echo "UROCE_IMPAIR=$loss on both sides"
pp() { IC_END_RACE=1 ic_pair "$1" "pingpong:$n" "pingpong:$n" $s $c "$2" UROCE_IMPAIR="$loss" -- "${@:3}" -g 0 -n $n; }
pt() { ic_pair "$1" "$2" "$3" $s $c "$4" UROCE_IMPAIR="$loss" -- "${@:5}" -d uroce0 -x 0; }

pp rc 19161 ibv_rc_pingpong
pp rc_mtu4096 19162 ibv_rc_pingpong -m 4096 -s 12289
pp srq 19163 ibv_srq_pingpong

pt send_bw perftest:$bw perftest:$bw 19164 ib_send_bw -n $bw
pt write_bw perftest:$bw perftest:$bw 19165 ib_write_bw -n $bw
pt read_bw perftest:$bw perftest:$bw 19166 ib_read_bw -n $bw
pt atomic_bw_fadd perftest:$bw perftest:$bw 19167 ib_atomic_bw -A FETCH_AND_ADD -n $bw
pt atomic_bw_cswap perftest:$bw perftest:$bw 19168 ib_atomic_bw -A CMP_AND_SWAP -n $bw
# Both sides of these send, and each exits once it has its own counts: the last ACK can be
# lost after its sender exited, as with the pingpongs (ic_end_race).
IC_END_RACE=1 pt send_lat perftest:$lat perftest:$lat 19169 ib_send_lat -n $lat
IC_END_RACE=1 pt write_lat perftest:$lat perftest:$lat 19170 ib_write_lat -n $lat
pt read_lat perftest-quiet perftest:$lat 19171 ib_read_lat -n $lat
pt atomic_lat_fadd perftest-quiet perftest:$lat 19172 ib_atomic_lat -A FETCH_AND_ADD -n $lat
pt atomic_lat_cswap perftest-quiet perftest:$lat 19173 ib_atomic_lat -A CMP_AND_SWAP -n $lat
pt write_bw_4qp perftest:$((4 * bw)) perftest:$((4 * bw)) 19174 ib_write_bw -q 4 -n $bw
pt send_bw_bidir perftest:$bw perftest:$bw 19175 ib_send_bw -b -n $bw

pt uc_send_bw perftest:- perftest:- 19176 ib_send_bw -c UC -s 4096 -D 1
pt uc_write_bw perftest:- perftest:- 19177 ib_write_bw -c UC -D 1
pt ud_send_bw perftest:- perftest:- 19178 ib_send_bw -c UD -s 2048 -D 1
pt uc_send_lat perftest:- perftest:- 19179 ib_send_lat -c UC -D 1
pt ud_send_lat perftest:- perftest:- 19180 ib_send_lat -c UD -D 1
# A lost WRITE leaves both sides spinning on memory until the SIGALRM of -D ends the test.
# ThreadSanitizer delivers a signal only when the thread next calls into libc, which that
# spin never does: under TSan the run could never end, on any fabric.
if [ "$IC_TSAN" = 1 ]; then
	ic_skip_case uc_write_lat "ThreadSanitizer holds -D's SIGALRM back from a program spinning on memory"
else
	pt uc_write_lat perftest:- perftest:- 19181 ib_write_lat -c UC -D 1
fi

ic_finish
