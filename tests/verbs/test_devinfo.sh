#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The device attributes uroce(7) states are the ones the library reports: every limit the
# man page's LIMITS section gives with its attribute name in parentheses ("256 per process
# (max_qp)", "up to 2 GiB (max_msg_sz 0x80000000)") must equal what unmodified
# `ibv_devinfo -v` prints for uroce0 (it reads ibv_query_device, ibv_query_device_ex and
# ibv_query_port). ibv_query_device and _ex agree with each other (tests/verbs/test_verbs,
# test_device_attrs_consistent), and ibv_modify_qp enforces the read/atomic limits they
# report (same test). Exits 77 (skipped) without ibv_devinfo. With a sanitizer build,
# ibv_devinfo runs with its runtimes preloaded (interop/lib.sh).
set -u

. "$(dirname "$0")/../interop/lib.sh"
: "${UROCE_SOURCE:?the source tree (for docs/uroce.7)}"
ic_need ibverbs-utils ibv_devinfo

info=$(LD_LIBRARY_PATH=$IC_LIBDIR LD_PRELOAD=$IC_PRELOAD UROCE_IP=127.0.0.1 \
	ibv_devinfo -v -d uroce0 2>&1) || {
	echo "FAIL ibv_devinfo -v failed:"
	echo "$info" | head -n 5
	exit 1
}

# "name value" pairs from the man page's LIMITS section: a number, then words without a
# number, then the names in parentheses; or the name with its value in parentheses.
limits=$(sed -n '/^\.SH LIMITS/,/^\.SH /p' "$UROCE_SOURCE/docs/uroce.7" | tr '\n' ' ' |
	grep -oE '([0-9]+|0x[0-9a-fA-F]+)[^();0-9]*\((max_[a-z_]+)(, max_[a-z_]+)*\)|\(max_[a-z_]+ (0x[0-9a-fA-F]+|[0-9]+)\)' |
	awk '{
		if ($0 ~ /^\(/) { gsub(/[()]/, ""); print $1, $2; next }
		value = $1
		sub(/^[^(]*\(/, ""); sub(/\)$/, ""); gsub(/,/, "")
		for (i = 1; i <= NF; i++) print $i, value
	}')
fails=0
n=0
while read -r name value; do
	[ -n "$name" ] || continue
	n=$((n + 1))
	got=$(awk -v k="$name:" '$1 == k { print $2; exit }' <<<"$info")
	if [ -z "$got" ]; then
		echo "FAIL uroce(7) names $name, which ibv_devinfo -v does not print"
		fails=$((fails + 1))
	elif [ $((got)) -ne $((value)) ]; then
		echo "FAIL $name: uroce(7) says $value, ibv_devinfo -v says $got"
		fails=$((fails + 1))
	else
		echo "$name: $got"
	fi
done <<<"$limits"
# The section gives ten limits today; fewer found means the page's wording drifted from
# what this test reads.
[ $n -ge 10 ] || { echo "FAIL read only $n limits from uroce(7)"; fails=$((fails + 1)); }
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
