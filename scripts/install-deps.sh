#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what uroce needs to build and test on Debian 12 (run as root). Each package and
# why it is here is listed in README.md ("Dependencies").
set -euo pipefail

packages=(
	ca-certificates
	gcc make cmake pkg-config      # the build
	clang                          # CI's second compiler (-Werror), the fuzz targets, the live CC test's BPF
	libpcap-dev                    # uroce-dump: capture files and live capture
	libisal-dev                    # fast CRC-32 (ICRC)
	libcmocka-dev                  # unit tests
	libbpf-dev libxdp-dev          # the AF_XDP backend: its XDP program and AF_XDP sockets
	libnl-3-dev libnl-route-3-dev  # the host's addresses for the GID table (netlink)
	libibverbs-dev                 # the verbs header the drop-in library stays ABI-compatible with
	librdmacm-dev                  # the rdma_cm headers the drop-in librdmacm.so.1 stays ABI-compatible with
	ibverbs-utils perftest         # unmodified verbs programs the interop tests run over uroce
	rdmacm-utils qperf             # rdma_cm programs that must end with librdmacm's error
	python3-pyverbs                # rdma-core's Python verbs, imported over uroce
	ucx-utils libfabric-bin        # UCX and libfabric: load over uroce, UCX's tools run on it
	openmpi-bin mpich              # Open MPI and MPICH: load over uroce, run MPI jobs on it
	libopenmpi-dev libmpich-dev    # mpicc.openmpi, mpicc.mpich: build tests/hpc/mpi_check.c
	util-linux                     # unshare: tools/uroce-devns, the tests' namespaces
	iproute2                       # ip: interface MTUs and addresses in the tests
	zlib1g-dev                     # CRC test oracle and benchmark baseline
	tshark                         # reference dissector the tests compare against
	gnuplot-nox                    # uroce-sim --plot: congestion scenarios as PNG
	python3                        # JSON validity checks in the tests
	gdb                            # backtraces of a program the rxe tier stops as hung
	python3-kaitaistruct           # the datamodel check: runs the parsers compiled from datamodel/*.ksy
)
# The datamodel check compiles datamodel/*.ksy with the Kaitai Struct compiler, an npm
# package run by Node.js; a machine with a Node.js of its own (another distribution's
# package, which brings npm) keeps it.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: every Debian package is installed"
elif [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing ${missing[*]}; run as root (or: sudo $0)" >&2
	exit 1
else
	export DEBIAN_FRONTEND=noninteractive
	# tshark asks whether non-root users may capture; answer no without a prompt.
	echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null || true
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The Kaitai Struct compiler and its YAML reader, at the versions datamodel/package-lock.json
# pins (with their hashes), into datamodel/node_modules.
datamodel=$(cd "$(dirname "$0")/../datamodel" && pwd)
# Without the npm registry everything else still builds and runs; the datamodel check then
# fails, saying what is missing (datamodel/run-check.sh).
if ! cmp -s "$datamodel/package-lock.json" "$datamodel/node_modules/.uroce-lock" 2>/dev/null; then
	if npm ci --prefix "$datamodel" --no-audit --no-fund --loglevel=error; then
		cp "$datamodel/package-lock.json" "$datamodel/node_modules/.uroce-lock"
	else
		echo "install-deps: npm ci failed (no npm registry?): the datamodel check cannot run" >&2
	fi
fi
