#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The libibverbs example programs (Debian ibverbs-utils, unmodified) between two processes on
# 127.0.11.1 and 127.0.11.2: ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong and
# ibv_srq_pingpong, with -g 0 (RoCE needs a GID). Each side must complete every iteration and
# print its "bytes in ... seconds" and "iters in ..." lines.
. "$(dirname "$0")/lib.sh"
ic_need ibverbs-utils ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong

s=127.0.11.1
c=127.0.11.2
n=100
pp() { ic_pair "$1" "pingpong:$n" "pingpong:$n" $s $c "$2" -- "${@:3}" -g 0 -n $n; }

# RC: 4096-byte SENDs at the examples' default path MTU of 1024: FIRST, MIDDLE, LAST.
pp rc 19111 ibv_rc_pingpong
# Path MTU 4096 with a message of 3 pages and a bit (pad bytes on the LAST packet).
pp rc_mtu4096 19112 ibv_rc_pingpong -m 4096 -s 12289
# Small messages sent inline (max_inline_data allows it).
pp rc_inline 19113 ibv_rc_pingpong -s 1
# Completion channels: ibv_req_notify_cq, ibv_get_cq_event, ibv_ack_cq_events.
pp rc_events 19114 ibv_rc_pingpong -e
pp uc 19115 ibv_uc_pingpong
pp ud 19116 ibv_ud_pingpong
# UD at the largest payload the port MTU allows (ibv_ud_pingpong keeps -s <= MTU).
pp ud_mtu 19117 ibv_ud_pingpong -s 4096
# 16 RC QPs sharing one SRQ.
pp srq 19118 ibv_srq_pingpong
pp srq_events 19119 ibv_srq_pingpong -e

ic_finish
