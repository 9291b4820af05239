#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The two helpers of tools/ that UCX and MPI over uroce use, on their own:
#  uroce-devns: where /dev/infiniband/uverbs-uroce0 is missing, the command sees it (a link to
#    /dev/null: a character device it can read and write, writes go nowhere) and still has the
#    rest of /dev, and the host's /dev is unchanged afterwards; as root and, where the kernel
#    lets users make user namespaces, as nobody, with its own ids; where the file exists the
#    command runs in the caller's own mount namespace.
#  uroce-rank: UROCE_IP from the launcher's local rank and UROCE_RANK_IPS, and its refusals
#    (the ones seen through MPI are in test_mpi_misuse.sh).
. "$(dirname "$0")/../interop/lib.sh"
. "$(dirname "$0")/lib.sh"
ic_need util-linux unshare setpriv
if [ ! -x "$HPC_DEVNS" ] || [ ! -x "$HPC_RANK" ]; then
	echo "FAIL: no tools/uroce-devns or tools/uroce-rank in UROCE_SOURCE"
	exit 1
fi
[ "$(id -u)" -eq 0 ] || ic_skip "needs root (mount namespaces with /dev/infiniband hidden or made)"
ic_need_mount_ns
node=/dev/infiniband/uverbs-uroce0

# check NAME EXPECTED COMMAND...: the command's output must be EXPECTED.
check()
{
	local name=$1 want=$2 got
	shift 2
	got=$("$@" 2>&1)
	if [ "$got" = "$want" ]; then
		ic_pass "$name" "$(head -n 1 <<<"$got" | cut -c1-120)"
	else
		ic_fail "$name" "expected '$want', got '$got'"
	fi
}

# Runs a command where $node does not exist: in a mount namespace of its own, with an empty
# tmpfs on /dev/infiniband if the host has one.
without_node()
{
	unshare --mount --propagation private -- sh -c \
		'[ -d /dev/infiniband ] && mount -t tmpfs none /dev/infiniband; exec "$@"' sh "$@"
}

null=$(stat -c %t:%T /dev/null)
probe='test -c '$node' && test -r '$node' && test -w '$node' && echo x >'$node' &&
	echo "$(stat -Lc %t:%T '$node') $(id -u):$(id -g)" &&
	echo probe >/dev/null && test -d /dev/shm && test -c /dev/zero && echo rest-of-dev &&
	test "$(head -c 4 /dev/zero | od -An -tx1 | tr -d " ")" = 00000000 && echo zero-reads'
check devns_root "$null 0:0
rest-of-dev
zero-reads" without_node "$HPC_DEVNS" sh -c "$probe"
check devns_host_unchanged "absent" without_node sh -c \
	"'$HPC_DEVNS' true && { test -e $node && echo present || echo absent; }"

# A host with an RDMA device of its own keeps its /dev/infiniband entries, inside and out.
check devns_host_rdma_dir "uverbs-uroce0 uverbs0
uverbs0" unshare --mount --propagation private -- sh -c "
	mkdir -p /dev/infiniband && mount -t tmpfs none /dev/infiniband &&
	mknod /dev/infiniband/uverbs0 c 1 3 &&
	'$HPC_DEVNS' sh -c 'ls /dev/infiniband | xargs' && ls /dev/infiniband | xargs"

# The unprivileged path needs a user namespace (kernel.unprivileged_userns_clone, or
# user.max_user_namespaces > 0) and a copy of the script that nobody may read.
pub=$(mktemp -d /tmp/uroce-devns.XXXXXX)
chmod 755 "$pub"
cp "$HPC_DEVNS" "$pub/uroce-devns"
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
if without_node "${nobody[@]}" unshare --map-root-user true 2>/dev/null; then
	check devns_user "$null 65534:65534
rest-of-dev
zero-reads" without_node "${nobody[@]}" "$pub/uroce-devns" sh -c "$probe"
else
	echo "note: this kernel lets no user make a user namespace: uroce-devns as nobody not run" \
		"(it says so and points at the one-time root setup of uroce(7))"
	check devns_user_refused "1" without_node sh -c \
		"${nobody[*]} '$pub/uroce-devns' true 2>/dev/null; echo \$?"
fi
rm -rf "$pub"

# With the file present: no new namespace.
check devns_exists_same_ns "same" unshare --mount --propagation private -- sh -c "
	mkdir -p /dev/infiniband && mount -t tmpfs none /dev/infiniband &&
	ln -s /dev/null $node && outer=\$(readlink /proc/self/ns/mnt) &&
	'$HPC_DEVNS' sh -c 'test \"\$(readlink /proc/self/ns/mnt)\" = \"\$1\" && echo same' sh \"\$outer\""

# uroce-rank
show='echo "$UROCE_IP"'
check rank_ompi_base "10.1.2.6" env -i OMPI_COMM_WORLD_LOCAL_RANK=3 UROCE_RANK_IPS=10.1.2.3 \
	"$HPC_RANK" sh -c "$show"
check rank_hydra_list "fd00::2" env -i MPI_LOCALRANKID=1 UROCE_RANK_IPS='fd00::1, fd00::2' \
	"$HPC_RANK" sh -c "$show"
check rank_slurm_list "127.0.0.9" env -i SLURM_LOCALID=0 UROCE_RANK_IPS='127.0.0.9 127.0.0.3' \
	"$HPC_RANK" sh -c "$show"
check rank_first_variable_wins "127.0.0.2" env -i OMPI_COMM_WORLD_LOCAL_RANK=1 MPI_LOCALRANKID=5 \
	UROCE_RANK_IPS=127.0.0.1 "$HPC_RANK" sh -c "$show"
check rank_overrides_uroce_ip "127.0.0.1" env -i MPI_LOCALRANKID=0 UROCE_IP=10.0.0.1 \
	UROCE_RANK_IPS=127.0.0.1 "$HPC_RANK" sh -c "$show"
check rank_not_a_number "uroce-rank: MPI_LOCALRANKID='1x' is not a rank" env -i \
	MPI_LOCALRANKID=1x UROCE_RANK_IPS=127.0.0.1 "$HPC_RANK" true
check rank_past_254 "uroce-rank: local rank 2 (MPI_LOCALRANKID) has no address: 10.0.0.253 + 2 is past .254; give UROCE_RANK_IPS a list" \
	env -i MPI_LOCALRANKID=2 UROCE_RANK_IPS=10.0.0.253 "$HPC_RANK" true
check rank_no_ips "uroce-rank: UROCE_RANK_IPS is unset: give the addresses of this host's ranks, one per rank (e.g. UROCE_RANK_IPS=127.0.0.1 for 127.0.0.1, .2, ... on lo)" \
	env -i MPI_LOCALRANKID=0 "$HPC_RANK" true
ic_finish
