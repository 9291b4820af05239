# SPDX-License-Identifier: MIT
# What matrix.sh and rdmacm.sh share around their cases (sourced; needs $vm, $tag, $tmp,
# $host_ip, $failed and the script's run_case): the tier's time budget, the result lines, the
# watchdog's hang reports, and the check that the guests can still reach the host after a
# failure.

# The tier's deadline (RXE_TIER_DEADLINE, seconds since the epoch, set by tier.sh): a case
# that would start after it is not run, so that the tier ends with its summary before CTest's
# timeout kills it and the log loses its end.
budget_spent() {
	[ -n "${RXE_TIER_DEADLINE:-}" ] && [ "$(date +%s)" -ge "$RXE_TIER_DEADLINE" ]
}

# hang_lines FILE...: what watchdog.sh said about a program it had to stop.
hang_lines() {
	grep -h '^\[hang\]' "$@" 2>/dev/null | head -60 | sed 's/^/  /'
}

# report OK NAME DIRECTION T0 NOTE WHAT: a case's result line; for a failure (WHAT says how),
# each program's error lines (its stderr comes before its buffered stdout, so these often
# sit above the last lines: rping's "rdma_get_cm_event: Bad file descriptor") and its last
# lines, then what the watchdog said. Reads $tmp/c (client) and $tmp/s (server).
report() {
	local t=$((SECONDS - $4)) f who
	if [ "$1" = 1 ]; then
		echo "PASS $tag $2 $3 (${t} s$5)"
		return
	fi
	echo "FAIL $tag $2 $3 (${t} s$5): $6"
	for f in c s; do
		who=client
		[ $f = s ] && who=server
		grep -v '^\[hang\]' "$tmp/$f" |
			grep -iE 'error|fail|reject|unreach|timeout|couldn|unable|status|cannot|invalid|bad |wait for|refused|abort' |
			sed "s/^/  $who: /" | head -4
		grep -v '^\[hang\]' "$tmp/$f" | sed "s/^/  $who: /" | tail -4
	done
	hang_lines "$tmp/c" "$tmp/s"
	failed=1
}

# path_lost HOST_IP4 HOST_IP: after a failed case, whether vm1 has lost its way to the host
# (over IPv4, the side channel's family, and over the RoCE family), and if so what the two
# ends of vm1's link counted: a guest whose qdisc has sent more than its virtio NIC has put
# on the wire, while the host's tap has received all that NIC sent, is stuck in its
# emulated NIC's transmit queue (QEMU 7.2 under TCG consumed nothing more from vm1's
# transmit ring, and neither a link reset in the guest nor time brought it back; a new guest
# does: docs/interop.md). Returns 0 (lost) or 1 (all well).
path_lost() {
	local to=$1
	[ "$2" = "$1" ] || to="$1 and $2"
	"$vm" exec vm1 "ping -c 2 -W 3 $1 >/dev/null && ping -c 2 -W 3 $2 >/dev/null" >/dev/null 2>&1 &&
		return 1
	echo "  path: vm1 cannot ping the host at $to"
	{
		"$vm" exec vm1 "echo vm1 eth0: \$(tc -s qdisc show dev eth0 | grep -o 'Sent [0-9]* bytes [0-9]* pkt')," \
			"NIC sent \$(cat /sys/class/net/eth0/statistics/tx_packets) pkt," \
			"received \$(cat /sys/class/net/eth0/statistics/rx_packets) pkt"
		echo "host rxe-tap1: received $(cat /sys/class/net/rxe-tap1/statistics/rx_packets) pkt from vm1," \
			"sent $(cat /sys/class/net/rxe-tap1/statistics/tx_packets) pkt to it"
		ip neigh show dev br-rxe
	} 2>&1 | head -12 | sed 's/^/  path: /'
	return 0
}

# run_cases CASE...: the script's run_case for each, then its exit status. A case that fails
# is followed by the check of vm1's way to the host (path_lost). When vm1 has lost it, the
# cases left would each wait out their timeouts for nothing: that case's result lines are
# printed as LOST instead of FAIL, with what the check saw, it and the cases after it are
# written to $RXE_CASES_RERUN, and the exit status is 3: tier.sh boots the guests again and
# runs them once more, with RXE_CASES_AGAIN set, under which a lost way fails them.
run_cases() {
	local c was lost= rerun=() spent="the tier's time budget is spent" may_rerun=
	[ -z "${RXE_CASES_AGAIN:-}" ] && [ -n "${RXE_CASES_RERUN:-}" ] && may_rerun=1
	for c in "$@"; do
		if [ -n "$lost" ] && [ -n "$may_rerun" ]; then
			rerun+=("$c")
			continue
		fi
		if [ -n "$lost" ] || budget_spent; then
			echo "FAIL $tag ${c%%:*}: not run (${lost:-$spent})"
			failed=1
			continue
		fi
		was=$failed failed=0
		run_case "$c" >"$tmp/lines"
		if [ $failed = 1 ] && path_lost 198.18.10.1 "$host_ip" >"$tmp/path"; then
			lost="vm1 lost its way to the host"
			if [ -n "$may_rerun" ]; then
				sed 's/^FAIL /LOST /' "$tmp/lines"
				cat "$tmp/path"
				failed=$was
				rerun+=("$c")
				continue
			fi
			cat "$tmp/lines" "$tmp/path"
		else
			cat "$tmp/lines"
		fi
		[ "$was" = 1 ] && failed=1
	done
	if [ ${#rerun[@]} -gt 0 ]; then
		echo "${rerun[*]}" >"$RXE_CASES_RERUN"
		exit 3
	fi
	[ -n "$lost" ] && exit 3
	exit "$failed"
}
