#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perftest 4.5, unmodified, connecting through rdma_cm (-R) over uroce's librdmacm.so.1:
# ib_send_bw, ib_write_lat, ib_read_bw (RC) and ib_send_bw -c UD (SIDR), server on 127.0.0.1
# and client on 127.0.0.2 in a network namespace of its own. Each side must print its result
# row with the iteration count (the passive side of READ prints none) and no error line.
. "$(dirname "$0")/lib.sh"
ic_need perftest ib_send_bw ib_write_lat ib_read_bw
cm_enter

n=1000
row() { echo "^ *[0-9]+ +$1 +[0-9]+\\.[0-9]+"; }
pt() { # NAME PORT SERVER_RE CLIENT_RE ARGS...
	local name=$1 port=$2 sre=$3 cre=$4
	shift 4
	cm_pair "$name" "$sre" "$cre" -- "$@" -R -d uroce0 -p "$port" -- "$@" -R -d uroce0 -p "$port" $CM_S
}
pt send_bw 18515 "$(row $n)" "$(row $n)" ib_send_bw -n $n
pt write_lat 18516 "$(row $n)" "$(row $n)" ib_write_lat -n $n
pt read_bw 18517 - "$(row $n)" ib_read_bw -n $n
pt send_bw_ud 18518 "$(row $n)" "$(row $n)" ib_send_bw -c UD -n $n
ic_finish
