#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every Debian binary and library that links libibverbs.so.1, libmlx5.so.1 or libefa.so.1
# (directly or through another library, librdmacm included), from the packages uroce means to
# serve, loads against uroce's copies in $UROCE_LIBDIR: ibverbs-utils, perftest,
# rdmacm-utils, qperf, python3-pyverbs, libucx0 and ucx-utils, libfabric1 and libfabric-bin,
# libopenmpi3 and openmpi-bin, mpich and libmpich12 (which link none today), librdmacm1, and
# ibverbs-providers (rdma-core's own providers, as if loaded by mistake). They use versioned
# symbols and BIND_NOW, so one missing symbol or version node stops them before main().
#
# Checked from the ELF tables (readelf), which names exactly what is missing and who needs
# it; by the dynamic loader itself: `ldd -r` under LD_BIND_NOW=1 for every file, which must
# report nothing that it does not also report with Debian's own libraries (some Open MPI
# components leave Open MPI's symbols to the program), and must resolve our three libraries
# to $UROCE_LIBDIR; by importing every pyverbs module in Debian's python3; and by a harmless
# start (--help) of the ibverbs-utils and perftest programs, which must not end in "symbol
# lookup error" or "version ... not found", nor crash or hang. And rdma-core's own provider
# libraries, preloaded into ibv_devices, change nothing; Debian's libmlx5 and libefa say
# that uroce0 is not theirs. A named package that is not installed is a failure
# (scripts/install-deps.sh installs them); exits 77 (skipped) when none is, or without dpkg.
# With a sanitizer build, the programs run with its runtimes preloaded (interop/lib.sh).
set -u

. "$(dirname "$0")/../interop/lib.sh"
libdir=$IC_LIBDIR
ours="libibverbs.so.1 libmlx5.so.1 libefa.so.1"
for tool in readelf ldd timeout dpkg-query; do
	command -v $tool >/dev/null || { echo "$tool missing: skipped"; exit 77; }
done

packages="ibverbs-utils perftest rdmacm-utils qperf python3-pyverbs libucx0 ucx-utils
	libfabric1 libfabric-bin libopenmpi3 openmpi-bin mpich libmpich12 librdmacm1
	ibverbs-providers"
installed=()
absent=()
for p in $packages; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		installed+=("$p")
	else
		absent+=("$p")
	fi
done
[ ${#installed[@]} -gt 0 ] || { echo "none of the packages is installed: skipped"; exit 77; }

# The ELF files of those packages whose dependency closure holds one of our libraries (ldd
# lists the closure; with Debian's libraries, since ours may not resolve yet).
files=()
for p in "${installed[@]}"; do
	while read -r f; do
		[ -f "$f" ] && [ ! -L "$f" ] || continue
		readelf -h "$f" >/dev/null 2>&1 || continue
		ldd "$f" 2>/dev/null | grep -qE '(libibverbs|libmlx5|libefa)\.so\.1 ' && files+=("$f")
	done < <(dpkg -L "$p")
done
[ ${#files[@]} -gt 0 ] || { echo "FAIL found no file that links libibverbs"; exit 1; }
# Programs started with --help: the ibverbs-utils and perftest ones.
progs=()
for f in "${files[@]}"; do
	case "$f" in /usr/bin/ibv_* | /usr/bin/ib_*) progs+=("$f") ;; esac
done

tmp=$IC_TMP
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
# What the loader says when a library, symbol or version is missing.
ldd_errors='undefined symbol|version .* not found|=> not found|symbol lookup error'
run_errors='symbol lookup error|version .* not found|error while loading shared libraries'
for f in "${files[@]}"; do
	name=$(basename "$f")
	out=$(LD_LIBRARY_PATH=$libdir LD_BIND_NOW=1 ldd -r "$f" 2>&1)
	base=$(LD_BIND_NOW=1 ldd -r "$f" 2>&1)
	new=$(comm -23 <(grep -E "$ldd_errors" <<<"$out" | sort -u) \
		<(grep -E "$ldd_errors" <<<"$base" | sort -u))
	if [ -n "$new" ]; then
		fail "ldd -r $name (not so with Debian's libraries):"
		head -n 5 <<<"$new" | sed 's/^/    /'
	fi
	for lib in $ours; do
		if readelf -d "$f" | grep -q "NEEDED.*\[$lib\]" &&
			! grep -qF "$lib => $libdir/$lib" <<<"$out"; then
			fail "$name: $lib does not resolve to $libdir/$lib"
		fi
	done
done
# pyverbs' modules, imported as a program imports them.
python=/usr/bin/python3
nmods=0
for f in "${files[@]}"; do
	case "$f" in */dist-packages/pyverbs/*.so) ;; *) continue ;; esac
	mod=${f#*/dist-packages/}
	mod=${mod%%.cpython-*}
	mod=${mod//\//.}
	nmods=$((nmods + 1))
	if ! out=$(LD_LIBRARY_PATH=$libdir LD_PRELOAD=$IC_PRELOAD timeout "$IC_TIMEOUT" "$python" -c \
		"import $mod" 2>&1); then
		fail "import $mod:"
		tail -n 3 <<<"$out" | sed 's/^/    /'
	fi
done
for f in "${progs[@]}"; do
	name=$(basename "$f")
	out=$(LD_LIBRARY_PATH=$libdir LD_PRELOAD=$IC_PRELOAD LD_BIND_NOW=1 \
		timeout "$IC_TIMEOUT" "$f" --help </dev/null 2>&1)
	rc=$?
	if grep -Eq "$run_errors" <<<"$out"; then
		fail "$name --help:"
		grep -E "$run_errors" <<<"$out" | head -n 5 | sed 's/^/    /'
	elif [ $rc -eq 124 ]; then
		fail "$name --help did not end within $IC_TIMEOUT s"
	elif [ $rc -gt 128 ] && [ $rc -lt 160 ]; then
		# 128 + N is how the shell reports death by signal N (ibv_devinfo exits with 255).
		fail "$name --help died of signal $((rc - 128))"
	fi
done

# rdma-core's providers loaded by mistake (preloaded here) register themselves with
# libibverbs from a constructor: uroce's ignores them, so a program still sees uroce0 alone;
# and the real libmlx5/libefa, asked about uroce's device, find it is not theirs (where their
# struct verbs_device keeps the provider's ops, uroce's device has NULL) and say so.
nprov=0
arch=/usr/lib/$(uname -m)-linux-gnu
if [ -x /usr/bin/ibv_devices ]; then
	for f in "${files[@]}"; do
		case "$f" in "$arch"/libibverbs/*.so | "$arch"/libmlx[45].so.* | "$arch"/libefa.so.* | \
			"$arch"/libmana.so.*) ;;
		*) continue ;;
		esac
		nprov=$((nprov + 1))
		out=$(LD_PRELOAD="${IC_PRELOAD:+$IC_PRELOAD }$f" LD_LIBRARY_PATH=$libdir \
			timeout "$IC_TIMEOUT" /usr/bin/ibv_devices 2>&1)
		rc=$?
		if [ $rc -ne 0 ] || [ "$(grep -c '^ *uroce0 ' <<<"$out")" != 1 ] ||
			[ "$(grep -cE '^ +[a-z]' <<<"$out")" != 2 ]; then
			fail "ibv_devices with $(basename "$f") preloaded (exit $rc):"
			head -n 5 <<<"$out" | sed 's/^/    /'
		fi
	done
fi
real_mlx5=$(ls "$arch"/libmlx5.so.1.*.* 2>/dev/null | head -n 1)
real_efa=$(ls "$arch"/libefa.so.1.*.* 2>/dev/null | head -n 1)
if [ -n "$real_mlx5" ] && [ -n "$real_efa" ]; then
	out=$(LD_LIBRARY_PATH=$libdir LD_PRELOAD=$IC_PRELOAD timeout "$IC_TIMEOUT" "$python" -c "
import ctypes
v = ctypes.CDLL('libibverbs.so.1', mode=ctypes.RTLD_GLOBAL)
m = ctypes.CDLL('$real_mlx5')
e = ctypes.CDLL('$real_efa')
v.ibv_get_device_list.restype = ctypes.POINTER(ctypes.c_void_p)
v.ibv_open_device.restype = ctypes.c_void_p
m.mlx5dv_is_supported.restype = ctypes.c_bool
dev = ctypes.c_void_p(v.ibv_get_device_list(None)[0])
ctx = ctypes.c_void_p(v.ibv_open_device(dev))
buf = ctypes.create_string_buffer(512)
print(m.mlx5dv_is_supported(dev), m.mlx5dv_query_device(ctx, buf),
      e.efadv_query_device(ctx, buf, 64))
" 2>"$tmp/ctypes.err")
	if [ "$out" != "False 95 95" ]; then
		fail "Debian's libmlx5/libefa on uroce0: '$out', expected 'False 95 95' (not theirs, EOPNOTSUPP)"
		head -n 5 "$tmp/ctypes.err" | sed 's/^/    /'
	fi
fi

for p in "${absent[@]}"; do
	fail "package $p is not installed (scripts/install-deps.sh installs it): not checked"
done
echo "loader: ${#files[@]} files from ${#installed[@]} packages, $nmods pyverbs modules imported," \
	"${#progs[@]} programs started, $nprov providers preloaded"
if [ $fails -gt 0 ]; then
	echo "$fails failures"
	exit 1
fi
echo "all imports resolve"
