#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mpi_check with 8 ranks on two "hosts", 4 on each, one address per host that its 4 ranks
# share (docs/multiprocess.md): host A is the test's network namespace, host B another one,
# joined by a veth pair (hpc/lib.sh hpc_two_hosts). The launchers start each host's daemon
# through tests/hpc/ns_agent.sh, their "ssh", which gives it the host's address as UROCE_IP:
#  - Open MPI 4.1: mpirun with a hostfile (host-a and host-b, 4 slots each) and
#    plm_rsh_agent, its daemons reaching mpirun over the veth (oob_tcp_if_include); pml ucx,
#    osc ucx, btl self, UCX_TLS=self,rc_v, as test_openmpi_ucx.sh;
#  - MPICH 4.0: Hydra's mpiexec with -hosts host-a:4,host-b:4, -launcher-exec and -iface
#    hpc0; MPIR_CVAR_NOLOCAL=1 and UCX_TLS=self,rc_v, as test_mpich.sh.
# Checked as the other MPI jobs (hpc/lib.sh hpc_mpi_case): ranks 0-3 report host A's address,
# 4-7 host B's, and the captures on both hosts' lo and on the veth show at least what the
# ranks of each host sent to those of each host, in RoCEv2 with good ICRCs.
. "$(dirname "$0")/../interop/lib.sh"
. "$(dirname "$0")/lib.sh"
hpc_enter "$@"
hpc_two_hosts

ran=0
if command -v mpirun.openmpi >/dev/null && [ -x "$UROCE_BUILD/tests/hpc/mpi_check.openmpi" ]; then
	hpc_mpi_program openmpi
	printf 'host-a slots=4\nhost-b slots=4\n' >"$IC_TMP/hosts"
	root=()
	[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
	hpc_mpi_case openmpi_ucx_two_hosts_np8 8 -- mpirun.openmpi "${root[@]}" -np 8 \
		--hostfile "$IC_TMP/hosts" --mca plm_rsh_agent "$HPC_AGENT" \
		--mca oob_tcp_if_include 10.78.0.0/24 \
		--mca pml ucx --mca osc ucx --mca btl self \
		-x LD_LIBRARY_PATH ${IC_PRELOAD:+-x LD_PRELOAD="$IC_PRELOAD"} \
		-x UCX_TLS=self,rc_v -x UCX_NET_DEVICES=uroce0:1 "$HPC_MPI_CHECK"
	ran=1
fi
if command -v mpiexec.mpich >/dev/null && [ -x "$UROCE_BUILD/tests/hpc/mpi_check.mpich" ]; then
	hpc_mpi_program mpich
	hpc_mpi_case mpich_two_hosts_np8 8 MPIR_CVAR_NOLOCAL=1 UCX_TLS=self,rc_v \
		UCX_NET_DEVICES=uroce0:1 -- mpiexec.mpich -n 8 -hosts host-a:4,host-b:4 \
		-launcher ssh -launcher-exec "$HPC_AGENT" -iface hpc0 "$HPC_MPI_CHECK"
	ran=1
fi
[ $ran = 1 ] || ic_skip "neither Open MPI (openmpi-bin, libopenmpi-dev) nor MPICH (mpich, libmpich-dev) is installed with its mpi_check"
ic_finish
