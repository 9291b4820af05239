# SPDX-License-Identifier: MIT
# Helpers the perftest benchmarks share (bench_verbs.sh, bench_backends.sh); outputs are in
# $tmp/NAME.out.

# pt_field NAME N: field N of the figures row of perftest's report (the line after the one
# starting with " #bytes").
pt_field() {
	awk -v f="$2" 'found && NF > 3 { print $f; exit } /^ *#bytes/ { found = 1 }' "$tmp/$1.out"
}

# udp_field NAME KEY: key=value from udp_baseline's "result" line.
udp_field() {
	awk -v k="$2" '$1 == "result" { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1)
		{ print substr($i, length(k) + 2); exit } }' "$tmp/$1.out"
}

# best max|min VALUE...: the best of the numeric values (best-of-N, as bench_dissect.sh:
# other work on a shared VM only ever makes a run slower).
best() {
	local how=$1
	shift
	printf '%s\n' "$@" | awk -v how="$how" '/^[0-9.]+$/ {
		if (!n++ || (how == "max" ? $1 > b : $1 < b)) b = $1 }
		END { if (n) print b; else print "n/a" }'
}

# ratio A B: A / B to two decimals, or n/a.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0)
		printf "%.2f\n", a / b; else print "n/a" }'
}
