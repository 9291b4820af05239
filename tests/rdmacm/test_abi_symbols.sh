#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# uroce's librdmacm.so.1 exports exactly the dynamic symbols of Debian 12's (rdma-core 44,
# librdmacm1): every name with its version, every version node, the kind of each, and the
# soname and file name. Any difference, in either direction, is a failure (a program linked
# against Debian's must find every name it imports; nothing else leaks out). Exits 77
# (skipped) when Debian's library is not installed.
set -u

: "${UROCE_LIBDIR:?the directory of uroce librdmacm.so.1}"
debian=/usr/lib/$(uname -m)-linux-gnu/librdmacm.so.1
ours=$UROCE_LIBDIR/librdmacm.so.1
command -v nm >/dev/null || { echo "nm missing: skipped"; exit 77; }
[ -e "$debian" ] || { echo "$debian is not installed (librdmacm1): skipped"; exit 77; }
[ -e "$ours" ] || { echo "FAIL $ours does not exist"; exit 1; }

exports() {
	nm -D --with-symbol-versions --defined-only "$1" | awk '{ print $2, $3 }' | sort
}

fails=0
theirs=$(exports "$debian")
mine=$(exports "$ours")
[ -n "$theirs" ] || { echo "FAIL nm listed nothing for $debian"; exit 1; }
missing=$(comm -23 <(echo "$theirs") <(echo "$mine"))
extra=$(comm -13 <(echo "$theirs") <(echo "$mine"))
if [ -n "$missing$extra" ]; then
	fails=$((fails + 1))
	echo "FAIL librdmacm.so.1 differs from Debian's ($(echo "$theirs" | wc -l) exports):"
	[ -n "$missing" ] && echo "$missing" | sed 's/^/    missing: /'
	[ -n "$extra" ] && echo "$extra" | sed 's/^/    extra:   /'
else
	echo "librdmacm.so.1: the same $(echo "$mine" | wc -l) exports as Debian's"
fi
soname=$(objdump -p "$ours" | awk '$1 == "SONAME" { print $2 }')
if [ "$soname" != librdmacm.so.1 ]; then
	echo "FAIL soname is '$soname', not librdmacm.so.1"
	fails=$((fails + 1))
fi
if [ "$(readlink "$ours")" != librdmacm.so.1.3.44.0 ]; then
	echo "FAIL librdmacm.so.1 -> $(readlink "$ours"), not librdmacm.so.1.3.44.0 (rdma-core 44's file)"
	fails=$((fails + 1))
fi
# It must run on uroce's libibverbs: linked against libibverbs.so.1, and with -z defs nothing
# is left undefined but libc's, pthread's and libibverbs' names.
if ! objdump -p "$ours" | grep -q 'NEEDED *libibverbs.so.1'; then
	echo "FAIL librdmacm.so.1 does not need libibverbs.so.1"
	fails=$((fails + 1))
fi
if ! readelf -d "$ours" | grep -q 'FLAGS_1.*NODELETE'; then
	echo "FAIL librdmacm.so.1 is not linked with -z nodelete (the port's thread runs its callbacks)"
	fails=$((fails + 1))
fi
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
