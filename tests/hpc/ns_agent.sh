#!/bin/sh
# SPDX-License-Identifier: MIT
# The "ssh" of the two-host MPI jobs (hpc/lib.sh hpc_two_hosts), given to Open MPI as
# plm_rsh_agent and to Hydra as -launcher-exec: ns_agent.sh [OPTIONS] HOST COMMAND... runs
# COMMAND with sh on host-a (the test's network namespace) or host-b (the namespace of the
# process HPC_HOST_B), with that host's address as UROCE_IP, which its MPI daemon passes on
# to the ranks it starts. Options (Hydra's -x) are ignored. Each host's Open MPI daemon gets
# a session directory of its own: on one machine both would make the same one.
while [ $# -gt 0 ]; do
	case $1 in -*) shift ;; *) break ;; esac
done
host=$1
shift
case $host in
host-a) exec env UROCE_IP="$HPC_ADDR_A" OMPI_MCA_orte_tmpdir_base="$HPC_TMP_A" sh -c "$*" ;;
host-b) exec nsenter -t "$HPC_HOST_B" -n -- \
	env UROCE_IP="$HPC_ADDR_B" OMPI_MCA_orte_tmpdir_base="$HPC_TMP_B" sh -c "$*" ;;
*) echo "ns_agent.sh: no host $host (host-a, host-b)" >&2; exit 255 ;;
esac
