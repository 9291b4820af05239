#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Open MPI's libfabric MTL over libfabric's verbs;ofi_rxm: reliable datagrams over the verbs
# provider's RC (FI_EP_MSG) endpoints, which libfabric 1.17 finds and connects through
# librdmacm (uroce's librdmacm.so.1). pml cm, mtl ofi, osc pt2pt, btl self; mpi_check with 2
# and with 4 ranks, checked as test_openmpi_ofi.sh checks its verbs;ofi_rxd jobs
# (tests/hpc/lib.sh hpc_mpi_case).
#
# The verbs provider offers FI_EP_MSG only on an RDMA device that holds the address of a
# non-loopback interface (verbs_info.c vrb_getifaddrs skips IFF_LOOPBACK; FI_VERBS_IFACE,
# when set, names the interface), and each uroce process owns its own address, so the ranks
# cannot be on 127.0.0.x as in the other MPI tests: the namespace gets a veth pair ofi0 /
# ofi1 with 10.11.0.1 to 10.11.0.4 on ofi0, rank r takes 10.11.0.(r+1) (tools/uroce-rank)
# and its provider looks at ofi0 only (FI_VERBS_IFACE=ofi0). The ranks' packets go between
# local addresses, through lo, where they are captured.
. "$(dirname "$0")/../interop/lib.sh"
. "$(dirname "$0")/lib.sh"
ic_need openmpi-bin mpirun.openmpi
ic_need libfabric-bin fi_info
hpc_mpi_program openmpi
hpc_enter "$@"

HPC_RANK_NET=10.11.0
if ! ip link add name ofi0 type veth peer name ofi1 || ! ip link set ofi0 up ||
	! ip link set ofi1 up; then
	echo "FAIL: cannot make the veth pair ofi0/ofi1 in the test's network namespace"
	exit 1
fi
for r in 1 2 3 4; do
	ip addr add $HPC_RANK_NET.$r/24 dev ofi0 || { echo "FAIL: cannot add $HPC_RANK_NET.$r"; exit 1; }
done

ic_cmd UROCE_IP=$HPC_RANK_NET.1 FI_VERBS_IFACE=ofi0 -- fi_info -p 'verbs;ofi_rxm' -t FI_EP_RDM -c FI_TAGGED
if "${IC_CMD[@]}" >"$IC_TMP/fi_info" 2>&1 </dev/null && grep -q '^ *domain: uroce0$' "$IC_TMP/fi_info"; then
	ic_pass fi_info "verbs;ofi_rxm offers a tagged RDM endpoint on uroce0"
else
	ic_fail fi_info "fi_info -p 'verbs;ofi_rxm' -t FI_EP_RDM -c FI_TAGGED lists no uroce0 domain"
	ic_show fi_info "$IC_TMP/fi_info"
	ic_finish
fi

root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
for np in 2 4; do
	hpc_mpi_case "openmpi_ofi_rxm_np$np" $np -- mpirun.openmpi "${root[@]}" --oversubscribe \
		-np $np --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include 'verbs;ofi_rxm' \
		--mca osc pt2pt --mca btl self \
		-x LD_LIBRARY_PATH ${IC_PRELOAD:+-x LD_PRELOAD="$IC_PRELOAD"} -x FI_VERBS_IFACE=ofi0 \
		-x UROCE_RANK_IPS=$HPC_RANK_NET.1 "$HPC_RANK" "$HPC_MPI_CHECK"
done
ic_finish
