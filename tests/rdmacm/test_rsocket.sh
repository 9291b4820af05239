#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stream rsockets over uroce's librdmacm.so.1 between 127.0.0.1 (server) and 127.0.0.2
# (client) in a network namespace of its own:
#  - tests/rdmacm/rsocket_api.c: the API's semantics at both ends (EAGAIN, rpoll, names,
#    options, iomaps, 1 MiB each way checked byte by byte, POLLHUP / end of stream / EPIPE after the
#    peer's rclose), "0 failures" on both sides;
#  - Debian's rstream, unmodified, 100 transfers of 64 KiB each way with data verification
#    (-T v), blocking (-T b), nonblocking (-T n) and asynchronous through rpoll (-T a): both
#    sides print their results line (12m bytes in 100 transfers);
#  - Debian's riostream the same way: the transfers by riowrite into the peer's riomap.
. "$(dirname "$0")/lib.sh"
ic_need rdmacm-utils rstream riostream
cm_enter
prog=$UROCE_BUILD/tests/rsocket_api
[ -x "$prog" ] || { echo "FAIL: $prog is not built"; exit 1; }

cm_pair rsocket_api '^0 failures$' '^0 failures$' -- "$prog" s 7480 -- "$prog" c 7480

# rstream binds its server to 127.0.0.1 (-b): a wildcard listener would bind no uroce port
# until a connection picks one (docs/rdmacm.md "Addresses and routes").
res='^custom +64k +100 +1 +12m '
port=7481
for mode in b n a; do
	cm_pair "rstream_$mode" "$res" "$res" -- \
		rstream -b $CM_S -p $port -T $mode -T v -S 65536 -C 100 -- \
		rstream -s $CM_S -p $port -T $mode -T v -S 65536 -C 100 &&
		echo "  $(grep -E "$res" "$IC_TMP/rstream_$mode.client")"
	port=$((port + 1))
done
# riostream: the same through riomap and riowrite (each side writes into the other's mapped
# buffer and watches its last byte), blocking, nonblocking and asynchronous
for mode in b n a; do
	cm_pair "riostream_$mode" "$res" "$res" -- \
		riostream -b $CM_S -p $port -T $mode -T v -S 65536 -C 100 -- \
		riostream -s $CM_S -p $port -T $mode -T v -S 65536 -C 100 &&
		echo "  $(grep -E "$res" "$IC_TMP/riostream_$mode.client")"
	port=$((port + 1))
done
ic_finish
