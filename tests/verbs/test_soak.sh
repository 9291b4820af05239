#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The verbs soak on the real path: two soak_verbs processes (tests/verbs/soak_verbs.c, a
# program written against <infiniband/verbs.h> and linked with uroce's libibverbs.so.1) run
# a seeded random stream of WRITE, READ, SEND, SEND and WRITE with immediate, FETCH_AND_ADD
# and CMP_AND_SWP over 4 RC QPs, every byte checked, with UROCE_IMPAIR on both sides (1 %
# loss, 1 % corruption, 2 % duplication, 2 % reordering), on each backend:
#   udp  the UDP socket backend: in a network namespace of its own, 127.0.16.1 and .2 on its
#        lo (without root, on the host's lo with the same addresses); the server's QPs
#        share an SRQ
#   xdp  the AF_XDP backend (UROCE_XDP=u0): two namespaces whose veths meet in a bridge in a
#        third, as test_xdp.sh has it; needs root, skipped without
# A case passes when both exit 0, the client prints PASS and 0 mismatches, the server 0
# mismatches and 0 errors, and neither prints a line of the library's (uroce: ...) or of a
# sanitizer. Where dumpcap and uroce-dump are at hand the traffic is captured (headers only)
# and the retransmissions uroce-dump --flows counts must be more than zero: the impairments
# acted.
#
# The CTest test (verbs/test_soak) runs 2000 operations per backend. Longer runs (README
# "Tests", docs/performance.md "Verbs soak"), e.g. five minutes on each backend:
#   UROCE_LIBDIR=build/lib UROCE_BUILD=build UROCE_VSOAK_SECONDS=300 bash tests/verbs/test_soak.sh
# Environment:
#   UROCE_VSOAK_SECONDS  run each backend this long (then UROCE_VSOAK_OPS is no limit)
#   UROCE_VSOAK_OPS      operations per backend (2000)
#   UROCE_VSOAK_SEED     the work's seed (1); the impairments' seeds follow from it
#   UROCE_VSOAK_IMPAIR   the UROCE_IMPAIR spec of both sides
#                        (loss=0.01,corrupt=0.01,dup=0.02,reorder=0.02)
# Why not more: with retry_cnt 7 a request fails with RETRY_EXC_ERR (the specified outcome)
# when its resend, or the first answer to it, is destroyed eight times in a row. At 2 % loss
# and 2 % corruption a resend fails 1 time in 15 to 20, a five-minute run resends some
# 5 x 10^5 PSNs, and about one such run in 300 to 500 ends in RETRY_EXC_ERR (measured on the
# simulated fabric: UROCE_SOAK_PROFILE=verbs of the engine soak; one run here did, on a
# loaded VM: docs/performance.md "Verbs soak"); at 1 % and 1 % a resend fails at most 1 time
# in 25, and eight in a row are some 200 times rarer still.
#   UROCE_VSOAK_BACKENDS which backends (udp xdp)
#   UROCE_VSOAK_ARGS     more client options (soak_verbs --help), e.g. "--qps 8 --depth 16"
#   UROCE_VSOAK_CAPTURE  0: no capture (1, the default, where the tools are at hand)
# plus those of tests/interop/lib.sh (UROCE_INTEROP_KEEP=1 keeps outputs and captures).
# A failure prints both command lines: the same seed replays the same work.
set -u
. "$(dirname "$0")/../interop/lib.sh"
soak=${UROCE_BUILD:-/nonexistent}/tests/soak_verbs
[ -x "$soak" ] || { echo "FAIL: no soak_verbs at $soak (UROCE_BUILD=${UROCE_BUILD:-})"; exit 1; }
dump=${UROCE_BUILD:-/nonexistent}/tools/uroce-dump/uroce-dump
ic_need iproute2 ip

seed=${UROCE_VSOAK_SEED:-1}
seconds=${UROCE_VSOAK_SECONDS:-0}
ops=${UROCE_VSOAK_OPS:-2000}
[ "$seconds" != 0 ] && ops=0
impair=${UROCE_VSOAK_IMPAIR:-loss=0.01,corrupt=0.01,dup=0.02,reorder=0.02}
backends=${UROCE_VSOAK_BACKENDS:-udp xdp}
capture=${UROCE_VSOAK_CAPTURE:-1}
# Each process stops itself (--timeout) before timeout(1) would.
IC_TIMEOUT=$((seconds + (IC_SANITIZED == 1 ? 900 : 300) + 60))
limit=$((IC_TIMEOUT - 60))
# shellcheck disable=SC2206 # options split on spaces, on purpose
client_args=(--seed "$seed" --ops "$ops" --seconds "$seconds" --timeout "$limit"
	${UROCE_VSOAK_ARGS:-})
[ "$seconds" != 0 ] && client_args+=(--progress 30)
command -v dumpcap >/dev/null 2>&1 && [ -x "$dump" ] && command -v python3 >/dev/null 2>&1 ||
	capture=0
[ "$(id -u)" -eq 0 ] || capture=0
echo "soak_verbs: seed $seed, ${seconds}s or $ops operations per backend, UROCE_IMPAIR=$impair"

namespaces=()
cap_pid=
dump_pid=
skipped=
skip() # WHY: this backend cannot run here
{
	echo "SKIP $backend: $1"
	skipped="${skipped:+$skipped; }$backend: $1"
}
cleanup()
{
	local ns
	[ -n "$cap_pid" ] && kill "$cap_pid" "$dump_pid" 2>/dev/null
	for ns in "${namespaces[@]}"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	ic_cleanup
}
trap cleanup EXIT

# ns_new NAME: a network namespace, or false where none can be had.
ns_new()
{
	ip netns add "$1" 2>/dev/null || return 1
	namespaces+=("$1")
	ip netns exec "$1" true 2>/dev/null && ip -n "$1" link set lo up
}

# side OUT NS VAR=VALUE... -- ARGS...: soak_verbs ARGS in namespace NS ("": this one), with
# that environment, output to OUT.
side()
{
	local out=$1 ns=$2 envs=()
	shift 2
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	ic_cmd "${envs[@]}" -- "$soak" "$@"
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "${IC_CMD[@]}" </dev/null >"$out" 2>&1
	else
		"${IC_CMD[@]}" </dev/null >"$out" 2>&1
	fi
}

# capture_start NAME NS IFACE SRC: dumpcap on IFACE in NS, the requests from SRC only (the
# READ responses would be most of the packets), headers only, straight into uroce-dump
# --flows through a pipe: a long run leaves no large file.
capture_start()
{
	[ "$capture" = 1 ] || return 0
	local fifo=$IC_TMP/$1.fifo
	cap_json=$IC_TMP/$1.flows.json
	cap_err=$IC_TMP/$1.dumpcap
	mkfifo "$fifo"
	"$dump" -q -r - --flows=json <"$fifo" >"$cap_json" 2>"$cap_json.err" &
	dump_pid=$!
	ip netns exec "$2" dumpcap -q -i "$3" -s 128 -B 64 -f "udp port 4791 and src host $4" \
		-w - >"$fifo" 2>"$cap_err" &
	cap_pid=$!
	for _ in $(seq 100); do
		grep -qs "Capturing on" "$cap_err" && break
		sleep 0.1
	done
}

# capture_stop: prints the packets uroce-dump --flows counts as sent again, or nothing.
capture_stop()
{
	[ -n "$cap_pid" ] || return 0
	sleep 0.5
	kill -INT "$cap_pid" 2>/dev/null
	wait "$cap_pid" "$dump_pid" 2>/dev/null
	cap_pid=
	python3 -c '
import json, sys
flows = json.load(open(sys.argv[1]))["flows"]
print(sum(((f.get("requests") or {}).get("sequence") or {}).get("retransmitted_packets") or 0
          for f in flows), sum(f["packets"] for f in flows))' "$cap_json" 2>/dev/null
}

# What is wrong with one side's output, nothing when it is right.
judge()
{
	local side=$1 f=$2 rc=$3 bad
	[ "$rc" = 0 ] || echo "$side exited with $rc"
	bad=$(grep -E '^uroce:|runtime error|Sanitizer|Segmentation|Aborted|FAIL|MISMATCH|ERROR' "$f" |
		grep -vE 'ERROR: LeakSanitizer: detected memory leaks|^SUMMARY: AddressSanitizer: [0-9]+ byte\(s\) leaked' |
		head -n 3)
	[ -n "$bad" ] && echo "$side printed: $(tr '\n' '|' <<<"$bad")"
	case $side in
	client)
		grep -q '^client: mismatches 0 ' "$f" || echo "client printed no 'mismatches 0'"
		grep -q '^client: PASS' "$f" || echo "client printed no PASS"
		;;
	server)
		grep -Eq '^server: [0-9]+ messages checked .* 0 mismatches, 0 errors$' "$f" ||
			echo "server printed no '0 mismatches, 0 errors'"
		;;
	esac
	if [ "$IC_SANITIZED" = 1 ] && ! ic_check_leaks "$f" >"$f.leaks"; then
		echo "$side: LeakSanitizer found memory leaked inside uroce"
	fi
}

# soak NAME HOST SERVER-NS "SERVER-ENV" CLIENT-NS "CLIENT-ENV" [CLIENT-OPTIONS...]: one run.
soak()
{
	local name=$1 host=$2 sns=$3 senv=$4 cns=$5 cenv=$6 spid rc_s rc_c problems retx reqs
	local t0=$SECONDS
	shift 6
	local s=$IC_TMP/$name.server c=$IC_TMP/$name.client port=18516
	# shellcheck disable=SC2086 # the environments split on spaces, on purpose
	side "$s" "$sns" $senv -- server -p $port --timeout "$limit" &
	spid=$!
	for _ in $(seq 300); do
		grep -qs "listening on TCP port" "$s" && break
		ic_alive "$spid" || break
		sleep 0.1
	done
	# shellcheck disable=SC2086
	side "$c" "$cns" $cenv -- client "$host" -p $port "${client_args[@]}" "$@"
	rc_c=$?
	# The server ends once it has sent its report; without its client it would wait.
	for _ in $(seq 100); do
		ic_alive "$spid" || break
		sleep 0.1
	done
	ic_alive "$spid" && kill "$spid"
	wait "$spid"
	rc_s=$?
	# Only a run that was captured (in a namespace of its own) can show its retransmissions.
	local captured=${cap_pid:+1}
	read -r retx reqs < <(capture_stop)
	cap_pid= # capture_stop ran in a subshell
	problems=$( {
		judge server "$s" "$rc_s"
		judge client "$c" "$rc_c"
		if [ -n "$captured" ] && ! [ "${retx:-0}" -gt 0 ] 2>/dev/null; then
			echo "the capture shows no request sent again: did UROCE_IMPAIR act? (${retx:-no flows})"
			ic_show "dumpcap" "$cap_err"
			ic_show "uroce-dump" "$cap_json.err"
		fi
	})
	sed -n 's/^client: \(operations\|bytes checked\|mismatches\|payload\)/  \1/p' "$c"
	[ -n "$retx" ] && echo "  request packets $reqs, of them retransmitted $retx (uroce-dump --flows of a capture)"
	if [ -z "$problems" ]; then
		ic_pass "$name" "$((SECONDS - t0))s"
		return
	fi
	ic_fail "$name" "$(tr '\n' ';' <<<"$problems")"
	echo "  replay: ${sns:+ip netns exec $sns }env $senv $soak server -p $port"
	echo "          ${cns:+ip netns exec $cns }env $cenv $soak client $host -p $port ${client_args[*]} $*"
	ic_show "server output" "$s"
	ic_show "client output" "$c"
	[ -s "$s.leaks" ] && ic_show "server leaks inside uroce" "$s.leaks"
	[ -s "$c.leaks" ] && ic_show "client leaks inside uroce" "$c.leaks"
}

# The impairments' seeds differ per side and follow the work's seed; a seed in
# UROCE_VSOAK_IMPAIR wins (the last of a repeated key counts).
imp_s="UROCE_IMPAIR=seed=$((2 * seed + 1)),$impair"
imp_c="UROCE_IMPAIR=seed=$((2 * seed + 2)),$impair"

for backend in $backends; do
	case $backend in
	udp)
		ns=uroce-vsoak-$$
		if ns_new "$ns"; then
			# lo cuts GSO sends into datagrams before the capture point, as a wire would.
			ip -n "$ns" link set lo gso_max_segs 1
			capture_start udp "$ns" lo 127.0.16.2
		else
			ns=
			echo "no network namespace here: on the host's lo"
			if ic_udp_bound 127.0.16.1 4791 || ic_udp_bound 127.0.16.2 4791; then
				ic_fail udp "UDP port 4791 on 127.0.16.1 or .2 is in use (another soak?)"
				continue
			fi
		fi
		soak udp 127.0.16.1 "$ns" "UROCE_IP=127.0.16.1 $imp_s" "$ns" "UROCE_IP=127.0.16.2 $imp_c" --srq
		;;
	xdp)
		if [ "$(id -u)" -ne 0 ]; then
			skip "needs root for network namespaces and XDP"
			continue
		fi
		a=uroce-vsa-$$ b=uroce-vsb-$$ w=uroce-vsw-$$
		if ! ns_new "$a" || ! ns_new "$b" || ! ns_new "$w" ||
			! ip -n "$w" link add br0 type bridge 2>/dev/null; then
			skip "cannot create network namespaces and a bridge"
			continue
		fi
		# Each side's u0 is a veth into the bridge in w, where the capture listens (an
		# AF_XDP socket sends past u0's own taps).
		for end in "$a:pa:1" "$b:pb:2"; do
			IFS=: read -r ns port n <<<"$end"
			ip link add u0 netns "$ns" type veth peer name "$port" netns "$w" ||
				{ skip "cannot create a veth pair"; continue 2; }
			ip -n "$w" link set "$port" master br0 up
			ip -n "$ns" link set u0 up
			ip -n "$ns" addr add "10.78.0.$n/24" dev u0
		done
		ip -n "$w" link set br0 up
		capture_start xdp "$w" br0 10.78.0.2
		soak xdp 10.78.0.1 "$a" "UROCE_XDP=u0 $imp_s" "$b" "UROCE_XDP=u0 $imp_c"
		;;
	*)
		ic_fail "$backend" "no such backend (udp, xdp)"
		;;
	esac
done
# Only skipped backends: the test is skipped.
[ "$IC_PASSED" -eq 0 ] && [ "$IC_FAILED" -eq 0 ] && [ -n "$skipped" ] && ic_skip "$skipped"
ic_finish
