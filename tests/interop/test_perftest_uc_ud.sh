#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perftest's UC and UD variants (Debian 4.5, unmodified) between two processes on 127.0.13.1
# and 127.0.13.2: ib_send_bw -c UC|UD, ib_write_bw -c UC, ib_send_lat -c UC|UD,
# ib_write_lat -c UC (READ and atomics exist only on RC; ib_write_*_lat has no UD).
# Each run must deliver every message: the receiving side counts them all.
#
# UC and UD do not recover a lost message, and perftest's receiving side waits for every one
# it expects, so a run passes only if nothing is lost. Over UDP sockets a message is lost when
# the receiving process falls behind and its socket receive buffer (SO_RCVBUF, capped by
# net.core.rmem_max) overflows, or when its receive queue runs dry: the sender never waits
# for the receiver, since a UC/UD SEND completes when it leaves. A 2-vCPU machine running
# other tests can starve the receiver for many milliseconds, so the SEND bandwidth cases send
# fewer messages (300) than the receive queue holds (perftest posts 512) and fewer bytes
# (<= 2 MiB) than the socket buffer can queue: they pass even if the receiver is descheduled
# for the whole run, and they still prove every message arrives. (perftest's defaults, 1000 or
# more 64 KiB UC SENDs 128 at a time, overflow the 4 MiB buffer on a loaded machine: the
# receiving side then hangs, as it would after any loss.) The ping-pong latency tests and
# UC WRITE (whose receiver counts nothing) have no such limit.
. "$(dirname "$0")/lib.sh"
ic_need perftest ib_send_bw ib_write_bw ib_send_lat ib_write_lat

s=127.0.13.1
c=127.0.13.2
bw=1000    # UC WRITE bandwidth iterations
sends=300  # UC/UD SEND bandwidth iterations (see above)
lat=200
pt() { ic_pair "$1" "$2" "$3" $s $c "$4" -- "${@:5}" -d uroce0 -x 0; }

pt uc_send_bw perftest:$sends perftest:$sends 19141 ib_send_bw -c UC -s 4096 -n $sends
# Multi-packet UC SENDs (FIRST, MIDDLE, LAST): 30 x 64 KiB.
pt uc_send_bw_64k perftest:30 perftest:30 19142 ib_send_bw -c UC -s 65536 -n 30
pt uc_write_bw perftest:$bw perftest:$bw 19143 ib_write_bw -c UC -n $bw
pt ud_send_bw perftest:$sends perftest:$sends 19144 ib_send_bw -c UD -s 2048 -n $sends
pt ud_send_bw_mtu perftest:$sends perftest:$sends 19145 ib_send_bw -c UD -s 4096 -n $sends
pt uc_send_lat perftest:$lat perftest:$lat 19146 ib_send_lat -c UC -n $lat
pt ud_send_lat perftest:$lat perftest:$lat 19147 ib_send_lat -c UD -n $lat
pt ud_send_lat_2k perftest:$lat perftest:$lat 19148 ib_send_lat -c UD -s 2048 -n $lat
pt uc_write_lat perftest:$lat perftest:$lat 19149 ib_write_lat -c UC -n $lat

for name in uc_send_bw ud_send_bw; do
	conn=$(tr a-z A-Z <<<"${name%%_*}")
	if grep -Eq "Connection type : $conn" "$IC_TMP/$name.client" "$IC_TMP/$name.server"; then
		ic_pass "$name/banner"
	else
		ic_fail "$name/banner" "perftest's banner does not say 'Connection type : $conn'"
	fi
done

ic_finish
