#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every symbol the unmodified Debian verbs programs (ibverbs-utils, perftest) and librdmacm
# import from libibverbs.so.1, libmlx5.so.1 and libefa.so.1 must be exported, with the version
# it was linked against, by uroce's copies in $UROCE_LIBDIR. The programs use versioned
# symbols and BIND_NOW, so one missing symbol or version node stops them before main()
# (facts.md section 5).
#
# Checked twice: from the ELF tables (readelf), which names exactly what is missing, and by
# the dynamic loader itself: `ldd -r` under LD_BIND_NOW=1 for every file, and a harmless start
# (--help) of every program, which must not end in "symbol lookup error" or "version ... not
# found", and must not crash or hang. Exits 77 (skipped) when none of the programs is
# installed.
set -u

: "${UROCE_LIBDIR:?the directory of uroce libibverbs.so.1, libmlx5.so.1, libefa.so.1}"
libdir=$(cd "$UROCE_LIBDIR" && pwd) || { echo "FAIL no directory $UROCE_LIBDIR"; exit 1; }
ours="libibverbs.so.1 libmlx5.so.1 libefa.so.1"
for tool in readelf ldd timeout; do
	command -v $tool >/dev/null || { echo "$tool missing: skipped"; exit 77; }
done

files=()
for f in /usr/bin/ibv_devices /usr/bin/ibv_devinfo /usr/bin/ibv_rc_pingpong \
	/usr/bin/ibv_uc_pingpong /usr/bin/ibv_ud_pingpong /usr/bin/ibv_srq_pingpong \
	/usr/bin/ibv_xsrq_pingpong /usr/bin/ibv_asyncwatch /usr/bin/ib_*; do
	[ -x "$f" ] && files+=("$f")
done
[ ${#files[@]} -gt 0 ] || { echo "ibverbs-utils and perftest not installed: skipped"; exit 77; }
progs=("${files[@]}")
rdmacm=/usr/lib/$(uname -m)-linux-gnu/librdmacm.so.1
[ -e "$rdmacm" ] && files+=("$rdmacm")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	echo "FAIL $*"
	fails=$((fails + 1))
}

# What a library defines: "symbol@VERSION" lines (default @@ and hidden @ alike: a versioned
# reference binds to either), and its version nodes.
for lib in $ours; do
	: >"$tmp/$lib.syms"
	: >"$tmp/$lib.nodes"
	if [ ! -e "$libdir/$lib" ]; then
		fail "$libdir/$lib does not exist"
		continue
	fi
	readelf -W --dyn-syms "$libdir/$lib" |
		awk '$7 != "UND" && $8 ~ /@/ { sub(/@@/, "@", $8); print $8 }' |
		sort -u >"$tmp/$lib.syms"
	readelf -W -V "$libdir/$lib" |
		awk '/Version definition section/ { d = 1; next } /^Version/ { d = 0 }
		     d && /Name:/ { for (i = 1; i < NF; i++) if ($i == "Name:") print $(i + 1) }' |
		sort -u >"$tmp/$lib.nodes"
done

# What a file needs from our libraries: "LIB sym SYMBOL@NODE" lines from its undefined dynamic
# symbols (the version index in parentheses after a name points into the version needs) and
# "LIB node NODE" lines from the version needs themselves, which the loader checks even
# before it looks at symbols. Weak references may stay unresolved, so they are left out.
needs() {
	readelf -W -V "$1" | awk '
		/Version needs section/ { d = 1; next }
		/^Version/ { d = 0 }
		d && /File:/ { for (i = 1; i < NF; i++) if ($i == "File:") file = $(i + 1) }
		d && /Name:/ {
			for (i = 1; i < NF; i++) {
				if ($i == "Name:") name = $(i + 1)
				if ($i == "Version:") idx = $(i + 1)
			}
			print idx, file, name
		}' >"$tmp/needs"
	readelf -W --dyn-syms "$1" | awk -v ours=" $ours " '
		FNR == NR { file[$1] = $2; next }
		$7 == "UND" && $5 != "WEAK" && $8 ~ /@/ && $9 ~ /^\([0-9]+\)$/ {
			idx = substr($9, 2, length($9) - 2)
			if (index(ours, " " file[idx] " ")) print file[idx], "sym", $8
		}' "$tmp/needs" -
	awk -v ours=" $ours " 'index(ours, " " $2 " ") { print $2, "node", $3 }' "$tmp/needs"
}

: >"$tmp/all"
for f in "${files[@]}"; do
	needs "$f" | sed "s|\$| $(basename "$f")|" >>"$tmp/all"
done
# Each "LIB sym|node ITEM FILE" line whose item the library lacks, then one failure per item
# naming the files that need it.
while read -r lib what item name; do
	grep -qxF "$item" "$tmp/$lib.${what}s" || echo "$lib $what $item $name"
done <"$tmp/all" >"$tmp/missing"
while read -r lib what item users; do
	if [ "$what" = node ]; then
		fail "$lib lacks version node $item (needed by $users)"
	else
		fail "$lib lacks $item (imported by $users)"
	fi
done < <(awk '{ k = $1 " " $2 " " $3; u[k] = u[k] (u[k] != "" ? "," : "") $4 }
	      END { for (k in u) print k, u[k] }' "$tmp/missing" | sort)
nsyms=$(awk '$2 == "sym" { print $1, $3 }' "$tmp/all" | sort -u | wc -l)
echo "ELF tables: ${#files[@]} files import $nsyms distinct versioned symbols from $ours"
[ "$nsyms" -gt 0 ] || fail "found no imports at all: is readelf's output format unexpected?"

# The loader's view. LD_BIND_NOW resolves every function at load time, as BIND_NOW does.
# A sanitized build's library would bring its runtime into unsanitized programs, which ASan
# refuses unless told not to check the link order.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
# ThreadSanitizer's runtime cannot start late at all (the programs crash): a TSan build's
# library gets it preloaded, as the interop tests do (tests/interop/lib.sh).
tsan=$(ldd "$libdir/libibverbs.so.1" 2>/dev/null | awk '$1 ~ /^libtsan\./ { print $3 }')
preload=${tsan:-${LD_PRELOAD:-}}
# What the loader says when a library, symbol or version is missing.
ldd_errors='undefined symbol|version .* not found|=> not found|symbol lookup error'
run_errors='symbol lookup error|version .* not found|error while loading shared libraries'
for f in "${files[@]}"; do
	name=$(basename "$f")
	out=$(LD_LIBRARY_PATH=$libdir LD_BIND_NOW=1 ldd -r "$f" 2>&1)
	if grep -Eq "$ldd_errors" <<<"$out"; then
		fail "ldd -r $name:"
		grep -E "$ldd_errors" <<<"$out" | head -n 5 | sed 's/^/    /'
	fi
	for lib in $ours; do
		if readelf -d "$f" | grep -q "NEEDED.*\[$lib\]" &&
			! grep -qF "$lib => $libdir/$lib" <<<"$out"; then
			fail "$name: $lib does not resolve to $libdir/$lib"
		fi
	done
done
for f in "${progs[@]}"; do
	name=$(basename "$f")
	out=$(LD_LIBRARY_PATH=$libdir LD_PRELOAD=$preload LD_BIND_NOW=1 timeout 20 "$f" --help </dev/null 2>&1)
	rc=$?
	if grep -Eq "$run_errors" <<<"$out"; then
		fail "$name --help:"
		grep -E "$run_errors" <<<"$out" | head -n 5 | sed 's/^/    /'
	elif [ $rc -eq 124 ]; then
		fail "$name --help did not end within 20 s"
	elif [ $rc -gt 128 ] && [ $rc -lt 160 ]; then
		# 128 + N is how the shell reports death by signal N (ibv_devinfo exits with 255).
		fail "$name --help died of signal $((rc - 128))"
	fi
done

if [ $fails -gt 0 ]; then
	echo "$fails failures"
	exit 1
fi
echo "all imports resolve"
