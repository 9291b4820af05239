#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rdma-core's own test suite over uroce: the 273 tests (pyverbs, unittest) that Debian's
# python3-pyverbs 44 ships in /usr/share/doc/rdma-core/tests, copied and unzipped into the
# build tree at each run (nothing of it is in this repository), run by Debian's
# /usr/bin/python3 against uroce's libibverbs.so.1 on device uroce0, GID 0, at 127.0.21.1
# (an address no other test uses). A test that needs two nodes runs both in this process, on
# that address.
#
# As root the suite runs in network and mount namespaces of its own, on 10.79.0.1 of a veth
# pair, where /sys/class/infiniband/uroce0/device/net/ names that interface: the rdma_cm
# tests (test_rdmacm.py) take their address from there, as on a NIC, and skip without it.
# That view of sysfs is a tmpfs over /sys/class holding a link to each of the host's classes
# and the one directory; it ends with the suite. Not as root they skip, with that reason. rdma_core_suite.py runs the suite, prints each test's outcome and the counts
# per module (passed, skipped and why, failed, errors), and fails on a failure, an error, or
# a skip for a reason it does not know (docs/verbs.md "rdma-core's test suite" keeps the
# table). Exits 77 (skipped) when python3-pyverbs is not installed. With a sanitizer build,
# Python runs with the sanitizer runtimes preloaded (interop/lib.sh): any error report fails,
# and so does a leak of memory allocated inside uroce (a ThreadSanitizer build's runtime,
# preloaded the same way, stops the suite at its first report).
set -u

. "$(dirname "$0")/../interop/lib.sh"
: "${UROCE_BUILD:?UROCE_BUILD must name the build directory}"
python=/usr/bin/python3
suite=/usr/share/doc/rdma-core/tests
[ -x "$python" ] || ic_skip "no $python (Debian's python3)"
[ -e "$suite/run_tests.py" ] ||
	ic_skip "$suite not found: install python3-pyverbs (scripts/install-deps.sh)"
"$python" -c 'import pyverbs' 2>/dev/null ||
	ic_skip "pyverbs does not import in $python: install python3-pyverbs"

addr=127.0.21.1
# A namespace of its own where the system allows one (not in a chroot whose root is no mount
# point: its propagation cannot change); else on the host's lo, as without root.
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
	unshare --net --mount --propagation private true 2>/dev/null; then
	if [ -z "${RC_INSIDE:-}" ]; then
		trap - EXIT
		rm -rf "$IC_TMP"
		RC_INSIDE=1 exec unshare --net --mount --propagation private -- bash "$0" "$@"
	fi
	addr=10.79.0.1
	view=$IC_TMP/sysclass
	mkdir -p "$view"
	if ! ip link set lo up || ! ip link add urc0 type veth peer name urc1 ||
		! ip addr add $addr/24 dev urc0 || ! ip link set urc0 up || ! ip link set urc1 up ||
		! mount -t tmpfs -o size=1m uroce-sysclass "$view" || ! mkdir "$view/.host" ||
		! mount --bind /sys/class "$view/.host"; then
		echo "FAIL: cannot make the suite's network namespace and its view of /sys/class"
		exit 1
	fi
	for c in /sys/class/*; do ln -s ".host/${c##*/}" "$view/${c##*/}"; done
	mkdir -p "$view/infiniband/uroce0/device/net/urc0"
	# undone before the scratch directory, which holds the view, is removed
	trap 'umount -l /sys/class; umount -l "$view"; ic_cleanup' EXIT
	mount --rbind "$view" /sys/class || { echo "FAIL: cannot mount the view of /sys/class"; exit 1; }
fi

copy=$UROCE_BUILD/rdma-core-tests
rm -rf "$copy"
mkdir -p "$copy"
cp -r "$suite" "$copy/tests" || { echo "FAIL: cannot copy $suite"; exit 1; }
gunzip -f "$copy"/tests/*.gz || { echo "FAIL: cannot unzip the suite in $copy"; exit 1; }

# test_rdmacm forks its two sides, whose devices start threads: ThreadSanitizer checks such
# children only when told not to stop them.
[ "$IC_TSAN" = 1 ] && export TSAN_OPTIONS="$TSAN_OPTIONS:die_after_fork=0"
out=$IC_TMP/suite.log
env LD_LIBRARY_PATH="$IC_LIBDIR" ${IC_PRELOAD:+LD_PRELOAD="$IC_PRELOAD"} UROCE_IP=$addr \
	PYTHONDONTWRITEBYTECODE=1 timeout -k 5 $((5 * IC_TIMEOUT)) \
	"$python" "$(dirname "$0")/rdma_core_suite.py" "$copy" >"$out" 2>&1
rc=$?
cat "$out"
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	echo "FAIL: the suite did not end within $((5 * IC_TIMEOUT)) s"
	exit 1
fi
# A sanitizer's report, or a leak allocated inside uroce (Python's and pyverbs' own are
# not uroce's business: interop/lib.sh ic_check_leaks).
if grep -Eq 'ERROR: AddressSanitizer|runtime error:|WARNING: ThreadSanitizer' "$out"; then
	echo "FAIL: a sanitizer reported an error (above)"
	exit 1
fi
if ! leaks=$(ic_check_leaks "$out"); then
	echo "FAIL: memory allocated inside uroce leaked:"
	echo "$leaks"
	exit 1
fi
[ $rc -eq 0 ] || { echo "FAIL: rdma_core_suite.py exited with $rc"; exit 1; }
echo "PASS rdma-core's suite over uroce"
