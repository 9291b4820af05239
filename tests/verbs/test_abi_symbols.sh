#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# uroce's libibverbs.so.1, libmlx5.so.1 and libefa.so.1 export exactly the dynamic symbols of
# Debian 12's (rdma-core 44: libibverbs1, ibverbs-providers): every name with its version,
# default (name@@NODE) and compat (name@NODE) alike, every version node, and the kind of each
# (function, data). A program or library linked against Debian's then finds everything it can
# import; any difference, in either direction, is a failure. A library whose Debian
# counterpart is not installed is not compared; exits 77 (skipped) when none is.
set -u

: "${UROCE_LIBDIR:?the directory of uroce libibverbs.so.1, libmlx5.so.1, libefa.so.1}"
debian=/usr/lib/$(uname -m)-linux-gnu
command -v nm >/dev/null || { echo "nm missing: skipped"; exit 77; }

# "KIND NAME@VERSION" per defined dynamic symbol (nm's A for a version node, T for a
# function, B/D for data, ...).
exports() {
	nm -D --with-symbol-versions --defined-only "$1" | awk '{ print $2, $3 }' | sort
}

fails=0
compared=0
for lib in libibverbs.so.1 libmlx5.so.1 libefa.so.1; do
	if [ ! -e "$debian/$lib" ]; then
		echo "$debian/$lib is not installed: $lib not compared"
		continue
	fi
	if [ ! -e "$UROCE_LIBDIR/$lib" ]; then
		echo "FAIL $UROCE_LIBDIR/$lib does not exist"
		fails=$((fails + 1))
		continue
	fi
	theirs=$(exports "$debian/$lib")
	ours=$(exports "$UROCE_LIBDIR/$lib")
	[ -n "$theirs" ] || { echo "FAIL nm listed nothing for $debian/$lib"; fails=$((fails + 1)); }
	missing=$(comm -23 <(echo "$theirs") <(echo "$ours"))
	extra=$(comm -13 <(echo "$theirs") <(echo "$ours"))
	compared=$((compared + 1))
	if [ -n "$missing$extra" ]; then
		fails=$((fails + 1))
		echo "FAIL $lib differs from Debian's ($(echo "$theirs" | wc -l) exports):"
		[ -n "$missing" ] && echo "$missing" | sed 's/^/    missing: /'
		[ -n "$extra" ] && echo "$extra" | sed 's/^/    extra:   /'
	else
		echo "$lib: the same $(echo "$ours" | wc -l) exports as Debian's"
	fi
done
[ $compared -gt 0 ] || { echo "no Debian library to compare with: skipped"; exit 77; }
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
