#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ibv_devices and ibv_devinfo (Debian ibverbs-utils, unmodified) see uroce's one device as an
# active RoCEv2 port: uroce0, PORT_ACTIVE, link layer Ethernet, MTU 4096 on lo, vendor
# 0xFFFFFF part 0 (as rxe, so perftest takes no vendor path), GID 0 = the UROCE_IP address
# as an IPv4-mapped RoCEv2 GID. Each process sees only its own address.
. "$(dirname "$0")/lib.sh"
ic_need ibverbs-utils ibv_devices ibv_devinfo

ip1=127.0.10.1
ip2=127.0.10.2

# ic_expect NAME FILE PATTERN...: every extended regular expression must match a line.
ic_expect()
{
	local name=$1 f=$2 re missing=()
	shift 2
	for re in "$@"; do
		grep -Eq -- "$re" "$f" || missing+=("'$re'")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		ic_fail "$name" "no line matches ${missing[*]}"
		ic_show output "$f"
		return 1
	fi
	if ic_error_lines "$f" >/dev/null; then
		ic_fail "$name" "error lines: $(ic_error_lines "$f" | head -n 3 | tr '\n' '|')"
		return 1
	fi
	if [ "$IC_SANITIZED" = 1 ] && ! ic_check_leaks "$f" >"$f.leaks"; then
		ic_fail "$name" "LeakSanitizer found memory leaked inside uroce"
		ic_show leaks "$f.leaks"
		return 1
	fi
	ic_pass "$name"
}

# ic_one NAME IP PROGRAM ARGS...: runs one program with UROCE_IP=IP into $IC_TMP/NAME; fails
# the case (and returns 1) unless it exits with 0.
ic_one()
{
	local name=$1 ip=$2 rc
	shift 2
	ic_cmd UROCE_IP="$ip" -- "$@"
	"${IC_CMD[@]}" >"$IC_TMP/$name" 2>&1 </dev/null
	rc=$?
	if [ $rc -ne 0 ]; then
		ic_fail "$name" "UROCE_IP=$ip $* exited with $rc"
		ic_show output "$IC_TMP/$name"
		return 1
	fi
}

ic_one devices $ip1 ibv_devices &&
	ic_expect devices "$IC_TMP/devices" '^[[:space:]]+uroce0[[:space:]]+[0-9a-f]{16}$'

ic_one devinfo $ip1 ibv_devinfo &&
	ic_expect devinfo "$IC_TMP/devinfo" \
		'^hca_id:[[:space:]]+uroce0$' \
		'^[[:space:]]+state:[[:space:]]+PORT_ACTIVE \(4\)$' \
		'^[[:space:]]+link_layer:[[:space:]]+Ethernet$'

# -v: every attribute, the GID table, and the device capabilities perftest relies on
# (facts.md section 5).
if ic_one devinfo_v $ip1 ibv_devinfo -v; then
	f=$IC_TMP/devinfo_v
	ic_expect devinfo_v "$f" \
		'^hca_id:[[:space:]]+uroce0$' \
		'^[[:space:]]+vendor_id:[[:space:]]+0xffffff$' \
		'^[[:space:]]+vendor_part_id:[[:space:]]+0$' \
		'^[[:space:]]+phys_port_cnt:[[:space:]]+1$' \
		'^[[:space:]]+state:[[:space:]]+PORT_ACTIVE \(4\)$' \
		'^[[:space:]]+phys_state:[[:space:]]+LINK_UP \(5\)$' \
		'^[[:space:]]+link_layer:[[:space:]]+Ethernet$' \
		'^[[:space:]]+active_mtu:[[:space:]]+4096 \(5\)$' \
		'^[[:space:]]+max_mtu:[[:space:]]+4096 \(5\)$' \
		"^[[:space:]]+GID\\[ +0\\]:[[:space:]]+::ffff:${ip1//./\\.}, RoCE v2\$" \
		'^[[:space:]]+num_comp_vectors:[[:space:]]+[1-9]' \
		'^[[:space:]]+max_qp_rd_atom:[[:space:]]+[1-9]' \
		'^[[:space:]]+atomic_cap:[[:space:]]+ATOMIC_(HCA|GLOB)'
	# UROCE_IP leaves exactly one GID.
	n=$(grep -Ec '^[[:space:]]+GID\[' "$f")
	if [ "$n" = 1 ]; then
		ic_pass devinfo_v_one_gid
	else
		ic_fail devinfo_v_one_gid "UROCE_IP=$ip1 shows $n GIDs, expected 1"
	fi
fi

# The port by name and number, and the other process's address.
ic_one devinfo_port $ip2 ibv_devinfo -d uroce0 -i 1 -v &&
	ic_expect devinfo_port "$IC_TMP/devinfo_port" \
		'^hca_id:[[:space:]]+uroce0$' \
		'^[[:space:]]+port:[[:space:]]+1$' \
		"^[[:space:]]+GID\\[ +0\\]:[[:space:]]+::ffff:${ip2//./\\.}, RoCE v2\$"

# Without UROCE_IP the GID table holds the host's addresses, 127.0.0.1 among them.
ic_cmd -- ibv_devinfo -v
if env -u UROCE_IP "${IC_CMD[@]}" >"$IC_TMP/devinfo_all" 2>&1 </dev/null; then
	ic_expect devinfo_all "$IC_TMP/devinfo_all" \
		'^[[:space:]]+GID\[ +[0-9]+\]:[[:space:]]+::ffff:127\.0\.0\.1, RoCE v2$'
else
	ic_fail devinfo_all "ibv_devinfo -v without UROCE_IP exited with $?"
	ic_show output "$IC_TMP/devinfo_all"
fi

# An address the host does not have: no device, a clear message, failure.
ic_cmd UROCE_IP=203.0.113.254 -- ibv_devinfo
"${IC_CMD[@]}" >"$IC_TMP/devinfo_bad" 2>&1 </dev/null
rc=$?
if [ $rc -ne 0 ] && grep -q 'UROCE_IP=203.0.113.254' "$IC_TMP/devinfo_bad" &&
	! grep -q 'uroce0' "$IC_TMP/devinfo_bad"; then
	ic_pass devinfo_foreign_ip
else
	ic_fail devinfo_foreign_ip "UROCE_IP=203.0.113.254 (not a local address): exit $rc"
	ic_show output "$IC_TMP/devinfo_bad"
fi

ic_finish
