#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Open MPI 4.1 (Debian's openmpi-bin, unmodified) with its UCX PML over uroce: mpi_check
# (ping-pong with byte checks, MPI_Allreduce, MPI_Alltoall, MPI_Put/MPI_Get in a window) with
# 2 and with 4 ranks, rank r on 127.0.0.(r+1) through tools/uroce-rank, nothing shared
# between them but RoCEv2: pml ucx with UCX_TLS=self,rc_v (UCX's verbs RC transport, and its
# loopback to the rank itself), osc ucx for the window, btl self (no vader). Each job runs
# under a capture that must show every ICRC good and, between every two ranks, at least the
# data mpi_check sent (tests/hpc/lib.sh hpc_mpi_case).
. "$(dirname "$0")/../interop/lib.sh"
. "$(dirname "$0")/lib.sh"
ic_need openmpi-bin mpirun.openmpi
hpc_mpi_program openmpi
hpc_enter "$@"

root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
for np in 2 4; do
	hpc_mpi_case "openmpi_ucx_np$np" $np -- mpirun.openmpi "${root[@]}" --oversubscribe -np $np \
		--mca pml ucx --mca osc ucx --mca btl self \
		-x LD_LIBRARY_PATH ${IC_PRELOAD:+-x LD_PRELOAD="$IC_PRELOAD"} \
		-x UCX_TLS=self,rc_v -x UCX_NET_DEVICES=uroce0:1 -x UROCE_RANK_IPS=127.0.0.1 \
		"$HPC_RANK" "$HPC_MPI_CHECK"
done
# Without uroce-rank: the 4 ranks share the host's addresses (docs/multiprocess.md).
HPC_ONE_ADDRESS=127.0.0.1 hpc_mpi_case openmpi_ucx_np4_one_address 4 -- mpirun.openmpi "${root[@]}" \
	--oversubscribe -np 4 --mca pml ucx --mca osc ucx --mca btl self \
	-x LD_LIBRARY_PATH ${IC_PRELOAD:+-x LD_PRELOAD="$IC_PRELOAD"} \
	-x UCX_TLS=self,rc_v -x UCX_NET_DEVICES=uroce0:1 "$HPC_MPI_CHECK"
ic_finish
