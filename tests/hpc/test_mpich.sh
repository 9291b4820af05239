#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# MPICH 4.0 (Debian's mpich, unmodified; its ch4 device is built on UCX) over uroce: mpi_check
# with 2 and with 4 ranks under Hydra's mpiexec, rank r on 127.0.0.(r+1) through
# tools/uroce-rank, nothing shared between them but RoCEv2: MPIR_CVAR_NOLOCAL=1 (every rank
# treats the others as remote: no ch4 shared-memory module, no node-local collectives) and
# UCX_TLS=self,rc_v. Hydra passes its whole environment to the ranks. Checked as
# test_openmpi_ucx.sh checks (tests/hpc/lib.sh hpc_mpi_case).
. "$(dirname "$0")/../interop/lib.sh"
. "$(dirname "$0")/lib.sh"
ic_need mpich mpiexec.mpich
hpc_mpi_program mpich
hpc_enter "$@"

for np in 2 4; do
	hpc_mpi_case "mpich_np$np" $np MPIR_CVAR_NOLOCAL=1 UCX_TLS=self,rc_v \
		UCX_NET_DEVICES=uroce0:1 UROCE_RANK_IPS=127.0.0.1 -- \
		mpiexec.mpich -n $np "$HPC_RANK" "$HPC_MPI_CHECK"
done
# Without uroce-rank: the 4 ranks share the host's addresses (docs/multiprocess.md).
HPC_ONE_ADDRESS=127.0.0.1 hpc_mpi_case mpich_np4_one_address 4 MPIR_CVAR_NOLOCAL=1 \
	UCX_TLS=self,rc_v UCX_NET_DEVICES=uroce0:1 -- mpiexec.mpich -n 4 "$HPC_MPI_CHECK"
ic_finish
