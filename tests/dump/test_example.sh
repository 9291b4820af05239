#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's main job on the capture shipped in examples/ (runs without ../shared): every
# ICRC verifies, the two PSN-sequence NAKs and the go-back-N episodes they caused are found.
set -u
: "${UROCE_DUMP:?the uroce-dump binary}" "${UROCE_SOURCE:?the source tree}"
cap=$UROCE_SOURCE/examples/rxe-write-loss.pcapng
fails=0
check() { # description, command output, expected text
	if grep -qF -- "$3" <<<"$2"; then echo "ok   $1"; else echo "FAIL $1: no '$3' in:"; echo "$2"; fails=$((fails + 1)); fi
}

out=$("$UROCE_DUMP" -r "$cap" 2>&1)
check "summary" "$out" "uroce-dump: 320 packets, 298 RoCE/InfiniBand, 0 malformed; ICRC 298 ok, 0 bad, 0 unchecked"
acks=$("$UROCE_DUMP" -q -r "$cap" -f 'udp port 4791 and udp[8] == 0x11')
check "NAK line" "$acks" "RC ACKNOWLEDGE qp 0x00001d psn 16384016 NAK PSN Sequence Error"
[ "$(grep -c 'NAK PSN Sequence Error' <<<"$acks")" -eq 2 ] || { echo "FAIL two NAKs expected"; fails=$((fails + 1)); }
flows=$("$UROCE_DUMP" -q -r "$cap" --flows)
check "episode 1" "$flows" "episode 1   frame 165     back to PSN 16384016 from 16384144, 127 packets, after a PSN Sequence Error NAK (frame 101)"
check "NAK count" "$flows" "NAK           2: PSN Sequence Error 2"
check "WRITE reassembled" "$flows" "RDMA WRITE va 0x00007f40a1b1d000 rkey 0x00000e2f len 65536: 65536 bytes in 64 packets, complete"
echo "$fails failed"
[ "$fails" -eq 0 ]
