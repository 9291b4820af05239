#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Open MPI 4.1 (Debian's openmpi-bin, unmodified) with its libfabric MTL over uroce: pml cm,
# mtl ofi, libfabric 1.17's verbs provider under its ofi_rxd utility provider (reliable
# datagrams over the verbs provider's UD endpoints, which need no rdma_cm), osc pt2pt for the
# window (over the same MTL), btl self. mpi_check with 2 and with 4 ranks, rank r on
# 127.0.0.(r+1) through tools/uroce-rank, checked as test_openmpi_ucx.sh checks (tests/hpc/lib.sh
# hpc_mpi_case). The verbs provider's other RDM stack, verbs;ofi_rxm over RC endpoints, is
# test_openmpi_ofi_rxm.sh.
. "$(dirname "$0")/../interop/lib.sh"
. "$(dirname "$0")/lib.sh"
ic_need openmpi-bin mpirun.openmpi
ic_need libfabric-bin fi_info
hpc_mpi_program openmpi
hpc_enter "$@"

ic_cmd UROCE_IP=127.0.0.1 -- fi_info -p 'verbs;ofi_rxd' -t FI_EP_RDM -c FI_TAGGED
if "${IC_CMD[@]}" >"$IC_TMP/fi_info" 2>&1 && grep -q '^ *domain: uroce0-dgram$' "$IC_TMP/fi_info"; then
	ic_pass fi_info "verbs;ofi_rxd offers a tagged RDM endpoint on uroce0-dgram"
else
	ic_fail fi_info "fi_info -p 'verbs;ofi_rxd' -t FI_EP_RDM -c FI_TAGGED lists no uroce0-dgram domain"
	ic_show fi_info "$IC_TMP/fi_info"
	ic_finish
fi

# With 4 ranks, about one job in 50 to 200 hangs for good in osc pt2pt's MPI_Win_fence, every
# uroce progress thread idle, when CPU starvation makes uroce drop datagrams for which the
# ranks had no receive posted (drop_no_recv_wqe, 796 in the hung rank of one such job; UD
# drops them on a NIC too). ofi_rxd should resend them; it does after random loss
# (UROCE_IMPAIR=loss=0.01: 6 of 6 jobs of 4 ranks pass) and with 2 ranks after burst loss
# (burst_p=0.002,burst_r=0.02: 6 of 6), but with 4 ranks after burst loss 1 to 4 jobs of 6
# hang the same way: a recovery bug above uroce (libfabric 1.17's rxd or Open MPI 4.1's osc
# pt2pt; not found further). Such a hang runs the job once more, with a note.
HPC_RETRY_HANG="ofi_rxd with 4 ranks does not always recover from bursts of lost datagrams"
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
for np in 2 4; do
	hpc_mpi_case "openmpi_ofi_rxd_np$np" $np -- mpirun.openmpi "${root[@]}" --oversubscribe \
		-np $np --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include 'verbs;ofi_rxd' \
		--mca osc pt2pt --mca btl self \
		-x LD_LIBRARY_PATH ${IC_PRELOAD:+-x LD_PRELOAD="$IC_PRELOAD"} -x UROCE_RANK_IPS=127.0.0.1 \
		"$HPC_RANK" "$HPC_MPI_CHECK"
done
ic_finish
