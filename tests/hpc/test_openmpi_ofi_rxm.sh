#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Open MPI's libfabric MTL over libfabric's verbs;ofi_rxm: reliable datagrams over the verbs
# provider's RC (FI_EP_MSG) endpoints. libfabric 1.17 finds and connects those endpoints
# through librdmacm (rdma_getaddrinfo, rdma_create_id on the interface's address), which needs
# the kernel's rdma_cm: until uroce brings its own rdma_cm, fi_info lists no FI_EP_MSG endpoint
# on uroce0, and this test skips, saying so, with libfabric's words. Once it lists one, the
# test runs mpi_check with 2 and 4 ranks as test_openmpi_ofi.sh does with verbs;ofi_rxd.
. "$(dirname "$0")/../interop/lib.sh"
. "$(dirname "$0")/lib.sh"
ic_need openmpi-bin mpirun.openmpi
ic_need libfabric-bin fi_info
hpc_mpi_program openmpi
hpc_enter "$@"

ic_cmd UROCE_IP=127.0.0.1 FI_LOG_LEVEL=warn -- fi_info -p verbs -t FI_EP_MSG
if ! "${IC_CMD[@]}" >"$IC_TMP/fi_info" 2>&1; then
	why=$(grep -E 'FI_EP_MSG|rdma_' "$IC_TMP/fi_info" | sed 's/^libfabric:[0-9:]*:[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:[^ ]* *//' |
		sort -u | head -n 3 | tr '\n' ';')
	ic_skip "libfabric's verbs provider offers no FI_EP_MSG endpoint on uroce0 (it needs rdma_cm," \
		"which uroce does not have yet): fi_info -p verbs -t FI_EP_MSG says: $why"
fi

root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
for np in 2 4; do
	hpc_mpi_case "openmpi_ofi_rxm_np$np" $np -- mpirun.openmpi "${root[@]}" --oversubscribe \
		-np $np --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include 'verbs;ofi_rxm' \
		--mca osc pt2pt --mca btl self \
		-x LD_LIBRARY_PATH ${IC_PRELOAD:+-x LD_PRELOAD="$IC_PRELOAD"} -x UROCE_RANK_IPS=127.0.0.1 \
		"$HPC_RANK" "$HPC_MPI_CHECK"
done
ic_finish
