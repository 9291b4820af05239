#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The interop-rxe CTest tier (issue 5): uroce on the host against Linux rxe (rdma_rxe, Linux
# 6.1, rdma-core 44, perftest 4.5) in the QEMU guests of ../shared/tools/rxe-vm, both
# directions, over IPv4 and IPv6, at path MTU 1024 (guest MTU 1500) and 4096 (9000), clean and
# with 5 % loss. Boots the guests, runs the matrix, captures every phase on br-rxe and checks
# it with `uroce-dump --flows` (check_capture.py), compares throughput with rxe-to-rxe, and
# stops everything, on failure too. At MTU 1500 every case also runs with uroce on its AF_XDP
# backend (xdp_phase) and a subset of them on its AF_PACKET backend (packet_phase), and
# rdma_cm programs connect uroce's librdmacm.so.1 with the guest's
# kernel rdma_cm (rdmacm_phase). docs/interop.md explains the choices.
#
# Environment (set by tests/interop-rxe/CMakeLists.txt):
#   UROCE_LIBDIR  uroce's libibverbs.so.1;  UROCE_BUILD  the build directory (uroce-dump; the
#                 captures and logs go to $UROCE_BUILD/interop-rxe)
#   UROCE_SHARED  ../shared (the rxe-vm tool);  RXE_VM_DIR  the tool's cache (/tmp/rxe-vm)
#   RXE_TIER_PHASES  the phases to run, of "mtu1500 xdp packet rdmacm mtu9000" (the default:
#                    all)
#   RXE_TIER_BUDGET  seconds after which no further case starts (default 1800; a whole run
#                 takes about 600 here, and CTest stops the tier at 2400): the cases left
#                 fail as "not run", and the log still ends with the summary of failures
# Exits 77 (CTest: skipped) when the tool, root, /dev/net/tun or the guest images (QEMU,
# debootstrap, the Debian mirror) cannot be had; 1 if any case or capture check failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${UROCE_LIBDIR:?}" "${UROCE_BUILD:?}"
lib=$(cd "$UROCE_LIBDIR" && pwd)
build=$(cd "$UROCE_BUILD" && pwd)
export UROCE_STAT=$build/tools/uroce-stat/uroce-stat # what watchdog.sh shows of a hung program
vm=${RXE_VM_TOOL:-${UROCE_SHARED:-$here/../../../shared}/tools/rxe-vm/run.sh}
dump=$build/tools/uroce-dump/uroce-dump
out=$build/interop-rxe

skip() { echo "SKIP interop-rxe: $*"; exit 77; }
[ -x "$vm" ] || skip "no rxe-vm tool at $vm"
[ "$(id -u)" = 0 ] || skip "needs root (the guests' taps and the br-rxe bridge)"
[ -c /dev/net/tun ] || skip "no /dev/net/tun for the guests' taps"
command -v ibv_rc_pingpong >/dev/null && command -v ib_send_bw >/dev/null ||
	skip "ibverbs-utils or perftest not installed"

# One tier at a time on a machine: the bridge, the guests and the tool's cache are shared.
mkdir -p /run/lock
exec 9>/run/lock/uroce-interop-rxe.lock
flock -w 3600 9 || { echo "FAIL interop-rxe: another run held the lock for an hour"; exit 1; }
# The budget counts from here: a wait for another run (or for a program it left behind, which
# inherited the lock's descriptor) is not the cases' time.
t_start=$SECONDS
export RXE_TIER_DEADLINE=$(($(date +%s) + ${RXE_TIER_BUDGET:-1800}))

rm -rf "$out"
mkdir -p "$out"
# CTest shows a passing test's output only with -V: all of it stays in tier.log too.
exec > >(tee "$out/tier.log") 2>&1
t0=$SECONDS
if ! "$vm" build >"$out/build.log" 2>&1 || ! command -v qemu-system-x86_64 >/dev/null; then
	skip "the rxe-vm guest images cannot be built (QEMU, debootstrap or the Debian mirror missing): $(tail -1 "$out/build.log")"
fi
echo "guest images ready in $((SECONDS - t0)) s (cached in ${RXE_VM_DIR:-/tmp/rxe-vm})"

failed=0
cap_pid= cap_name=
booted=
# dumpcap_end: ends the running capture, if any (dumpcap writes its statistics on SIGINT).
dumpcap_end() {
	[ -n "$cap_pid" ] || return 0
	kill -INT "$cap_pid" 2>/dev/null
	wait "$cap_pid" 2>/dev/null
	cap_pid=
}
cleanup() {
	dumpcap_end
	nft delete table netdev uroce_rxe_loss 2>/dev/null
	"$vm" down >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() { echo "FAIL $*"; failed=1; }
. "$here/cases.sh" # path_lost

# boot GUEST_MTU PATH_MTU: (re)starts the bridge and both guests at that MTU (run.sh sets the
# bridge and tap MTUs only when it creates them, hence the down first) and checks that rxe and
# uroce's port both report the path MTU.
boot() {
	local t0=$SECONDS h g
	booted= boot_args="$1 $2"
	"$vm" down >/dev/null 2>&1
	if ! RXE_VM_MTU=$1 "$vm" up >"$out/up-$1.log" 2>&1; then
		fail "boot at MTU $1: the guests did not come up"
		tail -5 "$out/up-$1.log"
		return 1
	fi
	h=$(LD_LIBRARY_PATH=$lib UROCE_IP=198.18.10.1 ibv_devinfo | awk '/active_mtu/{print $2}')
	g=$("$vm" exec vm1 "ibv_devinfo -d rxe0" | awk '/active_mtu/{print $2}')
	echo "guests up at MTU $1 in $((SECONDS - t0)) s; active MTU: uroce0 on br-rxe $h, rxe0 $g"
	[ "$h" = "$2" ] && [ "$g" = "$2" ] || { fail "boot at MTU $1: active MTU uroce $h, rxe $g, expected $2"; return 1; }
	warm_path
	booted=$1
}

# Every neighbour entry both ways made before the first case: new guests have none, and the
# host's for a guest whose link stalled went FAILED. A case that starts at full speed loses
# what the kernel cannot queue while its solicitation is out (unres_qlen_bytes: about 50
# packets of 4 KiB), and a clean run's capture then counts the resends as resends without
# loss (CI, 2026-11-27: 128 of 3448 after a reboot, in the first WRITE of the rerun).
warm_path() {
	local a
	for a in 198.18.10.11 198.18.10.12 fd00:198:18:10::11 fd00:198:18:10::12; do
		ping -c 1 -W 2 "$a" >/dev/null 2>&1
	done
	for a in vm1 vm2; do
		"$vm" exec $a "ping -c 1 -W 2 198.18.10.1; ping -c 1 -W 2 fd00:198:18:10::1" >/dev/null 2>&1
	done
}

# capture_start NAME [INTERFACE]: captures on br-rxe, or INTERFACE, into NAME.pcap.
capture_start() {
	cap_name=$1 cap_if=${2:-br-rxe}
	dumpcap -q -P -i "$cap_if" -s 0 -B 64 -w "$out/$1.pcap" >"$out/$1.dumpcap.log" 2>&1 &
	cap_pid=$!
	local i
	for i in $(seq 50); do [ -s "$out/$1.pcap" ] && break; sleep 0.1; done
}

# capture_stop NAME: stops the capture; fails (1) if dumpcap dropped packets.
capture_stop() {
	dumpcap_end
	local dropped
	dropped=$(sed -n 's/.*received\/dropped on interface .*: [0-9]*\/\([0-9]*\) .*/\1/p' "$out/$1.dumpcap.log")
	if [ "${dropped:-x}" != 0 ]; then
		fail "capture $1: dumpcap dropped ${dropped:-an unknown number of} packets: $(tail -1 "$out/$1.dumpcap.log")"
		return 1
	fi
}

# capture_check NAME clean|loss MTU [--host-loss]: stops the capture and checks it. After a
# reboot for a lost guest (cases) the capture holds the cases run since; the path MTU is then
# looked for in the whole phase (the parts saved before the boot too), where the bandwidth
# cases' full packets are, while the other rules hold for the part after the boot (a clean
# run's check would count the stalled case's resends).
capture_check() {
	local parts mtu_from=()
	capture_stop "$1" || return
	"$dump" -q -r "$out/$1.pcap" --flows=json >"$out/$1.flows.json" &&
		"$dump" -q -r "$out/$1.pcap" --flows >"$out/$1.flows.txt" ||
		{ fail "capture $1: uroce-dump failed"; return; }
	parts=$(ls "$out/$1".before-boot-*.pcap 2>/dev/null)
	if [ -n "$parts" ]; then
		# shellcheck disable=SC2086 # one word per file
		mergecap -F pcap -w "$out/$1.whole.pcap" $parts "$out/$1.pcap" &&
			"$dump" -q -r "$out/$1.whole.pcap" --flows=json >"$out/$1.whole.flows.json" ||
			{ fail "capture $1: merging the parts before the boot failed"; return; }
		mtu_from=(--mtu-from="$out/$1.whole.flows.json")
	fi
	python3 "$here/check_capture.py" "$out/$1.flows.json" "$@" "${mtu_from[@]}" || failed=1
}

# cases SCRIPT FAMILY CASE...: one run of matrix.sh or rdmacm.sh (RXE_MATRIX_TAG and the like
# set by the caller), its result lines kept for the summary. Status 3 (cases.sh, run_cases):
# vm1 lost its way to the host. The guests are booted again, RXE_AFTER_BOOT (the lossy runs:
# their loss rules, which went with the old guest and bridge) is run, and the cases the script
# names (the one that failed and those after it) run once more.
cases() {
	local script=$1 fam=$2 st again=
	shift 2
	rm -f "$out/rerun"
	RXE_CASES_RERUN=${RXE_CASES_RERUN-$out/rerun} RXE_VM_TOOL=$vm \
		bash "$here/$script" "$lib" "$fam" "$@" | tee -a "$out/results.txt"
	st=${PIPESTATUS[0]}
	[ "$st" = 0 ] && return
	[ "$st" = 3 ] && [ -n "$booted" ] || { failed=1; return; }
	[ -s "$out/rerun" ] && again=$(cat "$out/rerun") || failed=1
	echo "vm1 lost its way to the host: booting the guests again${again:+ to run $again once more}"
	# the guests' taps and the bridge go away with them: so does the capture's interface
	local capturing=$cap_pid
	if [ -n "$capturing" ]; then
		dumpcap_end
		mv "$out/$cap_name.pcap" "$out/$cap_name.before-boot-$SECONDS.pcap"
	fi
	boot $boot_args || return
	eval "${RXE_AFTER_BOOT:-}"
	[ -z "$capturing" ] || capture_start "$cap_name" "$cap_if"
	[ -z "$again" ] || RXE_CASES_AGAIN=1 cases "$script" "$fam" $again
}

# matrix FAMILY MTU clean|loss CASE...: one matrix.sh run.
matrix() {
	local fam=$1 mtu=$2 mode=$3
	shift 3
	RXE_MATRIX_TAG="ipv$fam mtu$mtu $mode" RXE_MATRIX_MTU=$mtu cases matrix.sh "$fam" "$@"
}

# Loss, two kinds. "all": netem drops 5 % of everything vm1 sends (rxe's packets); the host
# kernel has no netem, so an nftables rule on br-rxe's egress drops 5 % of the RoCEv2 packets
# the host sends to vm1 (uroce's), before the capture point, as a lossy wire would. That hook
# sees a GSO send before it is cut into datagrams, so one verdict would drop a whole run of up
# to 64 packets: uroce sends without GSO while loss is on (UROCE_GSO=0), and the loss is per
# packet.
# "requests": 5 % of both sides' RoCEv2 packets except ACKs (BTH opcode 0x11, the first byte
# after the UDP header), both on the host: br-rxe's egress for uroce's, rxe-tap1's ingress for
# rxe's (also before the capture point). For ib_send_lat and ib_write_lat: both sides send,
# and each program exits once it has what it waits for, while its last ACK to the peer may
# still be lost; the peer's retries then go to a QP that no longer exists (RETRY_EXC_ERR on
# uroce, which keeps retry_cnt 7; rxe retries for ever). No fabric can make that pass
# (docs/interop.md), so their requests are lost and recovered, their ACKs are not.
host_loss=
loss_on() {
	local spare= ingress=
	export UROCE_GSO=0
	command -v nft >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nftables >/dev/null 2>&1
	if [ "$1" = all ]; then
		"$vm" exec vm1 "tc qdisc add dev eth0 root netem loss 5%" >/dev/null || fail "netem in vm1"
	else
		spare='@th,64,8 != 0x11'
		ingress="chain ingress {
				type filter hook ingress device \"rxe-tap1\" priority 0; policy accept;
				ip daddr 198.18.10.1 udp dport 4791 $spare numgen random mod 100 < 5 counter drop
				ip6 daddr fd00:198:18:10::1 udp dport 4791 $spare numgen random mod 100 < 5 counter drop
			}"
	fi
	if nft -f - 2>/dev/null <<-EOF; then
		table netdev uroce_rxe_loss {
			chain egress {
				type filter hook egress device "br-rxe" priority 0; policy accept;
				ip daddr 198.18.10.11 udp dport 4791 $spare numgen random mod 100 < 5 counter drop
				ip6 daddr fd00:198:18:10::11 udp dport 4791 $spare numgen random mod 100 < 5 counter drop
			}
			$ingress
		}
	EOF
		host_loss=--host-loss
		return 0
	fi
	host_loss=
	[ "$1" = all ] && echo "NOTE: no nftables egress hook: only rxe's packets are lost, not uroce's"
	return 1
}
# dropped CHAIN: how many packets the loss rules of that chain dropped.
dropped() {
	nft list chain netdev uroce_rxe_loss "$1" 2>/dev/null |
		awk '{ for (i = 1; i < NF; i++) if ($i == "packets") n += $(i + 1) } END { print n + 0 }'
}
loss_off() {
	unset UROCE_GSO
	"$vm" exec vm1 "tc qdisc del dev eth0 root" >/dev/null 2>&1
	nft delete table netdev uroce_rxe_loss 2>/dev/null
}

# throughput MTU: perftest's average bandwidth for 64 KiB messages, rxe (vm1) to rxe (vm2)
# next to uroce to rxe (vm1) and rxe (vm1) to uroce, IPv4, one after the other in this run
# (uroce's side with -u 18 as in matrix.sh; outputs in tp-MTU-PROGRAM.{rr,ur,ru}). A program
# whose three runs did not all report is measured once more on new guests if vm1 has lost its
# way to the host (cases.sh, path_lost).
throughput() {
	local mtu=$1 prog
	for prog in ib_write_bw ib_send_bw ib_read_bw; do
		tp_one "$mtu" $prog && continue
		path_lost 198.18.10.1 198.18.10.1 || continue
		echo "vm1 lost its way to the host: booting the guests again to measure $prog once more"
		boot $boot_args && tp_one "$mtu" $prog
	done
}
tp_port=18700
tp_one() { # tp_one MTU PROGRAM: its line; 1 if one of the three runs did not report
	local mtu=$1 prog=$2 n=1000 port g1 g2 rr ur ru srv
	g1=$("$vm" exec vm1 "rxe-gid 4" | tr -dc 0-9)
	g2=$("$vm" exec vm2 "rxe-gid 4" | tr -dc 0-9)
	avg() { awk '$1 == 65536 && NF >= 5 {print $4}' "$1" | tail -1; }
	port=$((tp_port += 3))
	"$vm" exec vm2 "rxe-bg t$port $prog -d rxe0 -x $g2 -p $port -s 65536 -n $n" >/dev/null
	"$vm" exec vm2 "for i in \$(seq 100); do ss -ltnH 'sport = :$port' | grep -q . && exit 0; sleep 0.1; done" >/dev/null
	"$vm" exec vm1 "timeout 60 $prog -d rxe0 -x $g1 -p $port -s 65536 -n $n 198.18.10.12" >"$out/tp-$mtu-$prog.rr" 2>&1
	"$vm" exec vm2 "rxe-wait t$port 30" >/dev/null
	port=$((port + 1))
	"$vm" exec vm1 "rxe-bg t$port $prog -d rxe0 -x $g1 -p $port -s 65536 -n $n" >/dev/null
	"$vm" exec vm1 "for i in \$(seq 100); do ss -ltnH 'sport = :$port' | grep -q . && exit 0; sleep 0.1; done" >/dev/null
	LD_LIBRARY_PATH=$lib UROCE_IP=198.18.10.1 timeout 60 $prog -d uroce0 -x 0 -u 18 -p $port -s 65536 -n $n 198.18.10.11 >"$out/tp-$mtu-$prog.ur" 2>&1
	"$vm" exec vm1 "rxe-wait t$port 30" >/dev/null
	port=$((port + 1))
	LD_LIBRARY_PATH=$lib UROCE_IP=198.18.10.1 timeout 60 $prog -d uroce0 -x 0 -u 18 -p $port -s 65536 -n $n >/dev/null 2>&1 &
	srv=$!
	for i in $(seq 100); do ss -ltnH "sport = :$port" | grep -q . && break; sleep 0.1; done
	"$vm" exec vm1 "timeout 60 $prog -d rxe0 -x $g1 -p $port -s 65536 -n $n 198.18.10.1" >"$out/tp-$mtu-$prog.ru" 2>&1
	wait $srv
	rr=$(avg "$out/tp-$mtu-$prog.rr") ur=$(avg "$out/tp-$mtu-$prog.ur") ru=$(avg "$out/tp-$mtu-$prog.ru")
	python3 - "$prog" "$mtu" "$n" "$rr" "$ur" "$ru" <<-'EOF' | tee -a "$out/throughput.txt"
		import sys
		prog, mtu, n, *bw = sys.argv[1:]
		rr, ur, ru = (float(x) if x else None for x in bw)
		f = lambda v: "n/a" if v is None else f"{v:.2f}"
		r = lambda v: "" if v is None or not rr else f" ({v / rr:.2f}x)"
		print(f"THROUGHPUT {prog} MTU {mtu}, 64 KiB x {n}, MB/s: rxe->rxe {f(rr)}, "
		      f"uroce->rxe {f(ur)}{r(ur)}, rxe->uroce {f(ru)}{r(ru)}")
	EOF
	[ -n "$rr" ] && [ -n "$ur" ] && [ -n "$ru" ]
}

all_cases="rc_pingpong uc_pingpong ud_pingpong srq_pingpong send_bw write_bw read_bw
	atomic_fadd_bw atomic_cas_bw send_lat write_lat read_lat atomic_lat"
# Under loss: every program that can recover from it. The pingpongs cannot (UC and UD wait
# forever for a lost message; the last RC ACK can be lost after the peer exited, and rxe
# retries that forever: docs/interop.md). ib_send_lat and ib_write_lat have the same end, so
# they run with lost requests only (loss_on, above).
loss_cases="send_bw write_bw read_bw atomic_fadd_bw atomic_cas_bw read_lat atomic_lat"
request_loss_cases="send_lat write_lat"
# At MTU 4096: the programs whose messages span several packets (the others send one).
mtu4k_cases="rc_pingpong uc_pingpong ud_pingpong srq_pingpong send_bw write_bw read_bw"
mtu4k_loss_cases="send_bw write_bw read_bw"
mtu4k_request_loss_cases=""

# mtu_phase GUEST_MTU PATH_MTU "CLEAN" "LOSS" "REQUEST_LOSS": boots the guests at GUEST_MTU,
# runs the clean cases over IPv4 and IPv6, measures throughput, then the lossy cases (50
# iterations) over both families, each family's run under a capture of its own: LOSS with
# every packet at risk, then REQUEST_LOSS with ACKs spared.
mtu_phase() {
	local mtu=$2 clean=$3 lossy=$4 request_lossy=$5 fam
	boot "$1" "$mtu" || return
	for fam in 4 6; do
		capture_start ipv$fam-mtu$mtu-clean
		matrix $fam "$mtu" clean $clean
		capture_check ipv$fam-mtu$mtu-clean clean "$mtu"
	done
	throughput "$mtu"
	for fam in 4 6; do
		capture_start ipv$fam-mtu$mtu-loss
		loss_on all
		RXE_AFTER_BOOT="loss_off; loss_on all" RXE_MATRIX_ITERS=50 matrix $fam "$mtu" loss $lossy
		local checked=$host_loss
		loss_off
		if [ -n "$request_lossy" ]; then
			if loss_on requests; then
				RXE_AFTER_BOOT="loss_off; loss_on requests" RXE_MATRIX_ITERS=50 \
					matrix $fam "$mtu" request-loss $request_lossy
				local up=$(dropped egress) down=$(dropped ingress)
				echo "request-loss ipv$fam mtu$mtu: requests dropped: uroce's $up, rxe's $down"
				[ "$up" -gt 0 ] && [ "$down" -gt 0 ] ||
					fail "ipv$fam mtu$mtu request-loss: the loss did not act on both sides"
			else
				fail "ipv$fam mtu$mtu request-loss: no nftables netdev hooks for ACK-sparing loss"
			fi
			loss_off
		fi
		capture_check ipv$fam-mtu$mtu-loss loss "$mtu" $checked
	done
}

# xdp_phase: every case again, uroce's side on the AF_XDP backend (docs/udp.md "AF_XDP") on
# br-rxe, in generic mode (a bridge has no native XDP), over both families, on the guests as
# mtu_phase 1500 left them. The capture listens on vm1's tap: AF_XDP sends past br-rxe's
# taps, and the XDP program takes what arrives before them. No loss runs: the host's loss
# rule sits on br-rxe's egress, which AF_XDP's transmit path does not pass.
xdp_phase() {
	local fam
	for fam in 4 6; do
		capture_start ipv$fam-mtu1024-xdp rxe-tap1
		RXE_MATRIX_XDP=br-rxe matrix $fam 1024 xdp $all_cases
		capture_check ipv$fam-mtu1024-xdp clean 1024
	done
}

# packet_phase: the cases of each kind of operation again, uroce's side on the AF_PACKET
# backend (docs/backends.md) on br-rxe, over both families, clean, on the guests as
# mtu_phase 1500 left them; the capture on vm1's tap as for AF_XDP. A subset of the cases, to
# keep CI's time: RC, UD, SEND, WRITE, READ and atomics, bandwidth and latency.
packet_cases="rc_pingpong ud_pingpong send_bw write_bw read_bw atomic_cas_bw read_lat"
packet_phase() {
	local fam
	for fam in 4 6; do
		capture_start ipv$fam-mtu1024-packet rxe-tap1
		RXE_MATRIX_PACKET=br-rxe matrix $fam 1024 packet $packet_cases
		capture_check ipv$fam-mtu1024-packet clean 1024
	done
}

# rdmacm_phase: rdma_cm between uroce's librdmacm.so.1 and the guest's kernel rdma_cm
# (rdmacm.sh), on the guests at MTU 1500: every case over IPv4 and IPv6, clean, with ucmatose
# between vm1 and vm2 for the set-up time next to uroce's; then the cases that can end under
# loss over IPv4 with 5 % loss on both sides (CM MADs included). Each run under a capture of its own, checked
# by check_cm.py: CM MADs both ways on QP1, the connections' data, every ICRC, the set-up times.
# perftest 4.5 resolves its -R peer as AF_INET only ("Address family for hostname not
# supported" on both sides), so ib_send_bw -R runs over IPv4 alone, and with uroce as the
# server only: perftest's client connects twice, and uroce's second REQ can reach the emulated
# guest before perftest's server listens again (REJ "invalid service ID"; docs/interop.md).
# rping runs clean only: its client sends one DREQ and exits, and neither CM resends the DREQ
# of a destroyed id (Linux's cm_destroy_id cancels it; uroce's CM ends with its process), so
# when the loss takes it, rping's server waits for ever, whichever side it is on.
# riostream runs from uroce to rxe only: with rxe's client, rxe's requester once stopped for
# good after the first packet of a 32 KiB RDMA WRITE, every earlier one ACKed by uroce, and
# vm1 answered nothing more (docs/interop.md).
cm_cases4="rping ucmatose udaddy send_bw_cm:r2u rstream riostream:u2r"
cm_cases6="rping ucmatose udaddy rstream riostream:u2r"
cm_loss_cases="ucmatose send_bw_cm:r2u"
cm_matrix() { # cm_matrix FAMILY clean|loss CASE...
	local fam=$1 mode=$2
	shift 2
	RXE_MATRIX_TAG="ipv$fam rdmacm $mode" cases rdmacm.sh "$fam" "$@"
}
# cm_capture_check NAME: the rdma_cm check looks at the whole phase's handshakes, each way. A
# reboot for a lost guest (cases) split the phase's capture, and the cases that ran before it
# are in the parts saved before the boot: they are checked together with the rest. (The
# matrix's captures are checked after the boot only: a clean run's check would count the
# stalled case's resends.)
cm_capture_check() {
	local cap=$out/$1.pcap parts
	capture_stop "$1" || return
	parts=$(ls "$out/$1".before-boot-*.pcap 2>/dev/null)
	if [ -n "$parts" ]; then
		cap=$out/$1.whole.pcap
		# shellcheck disable=SC2086 # one word per file
		mergecap -F pcap -w "$cap" $parts "$out/$1.pcap" ||
			{ fail "capture $1: mergecap failed"; return; }
	fi
	# one -e per field of check_cm.FIELDS_ORDER, split into words on purpose
	# shellcheck disable=SC2046
	"$dump" -q -r "$cap" -T fields -E separator=, $(python3 -c '
import sys; sys.path.insert(0, sys.argv[1]); import check_cm
print(" ".join("-e " + f for f in check_cm.FIELDS_ORDER))' "$here") >"$out/$1.fields.csv" ||
		{ fail "capture $1: uroce-dump failed"; return; }
	python3 "$here/check_cm.py" "$out/$1.fields.csv" "$1" | tee -a "$out/setup.txt" || failed=1
	[ "${PIPESTATUS[0]}" = 0 ] || failed=1
}
rdmacm_phase() {
	local fam cases up down t0=$SECONDS
	[ "$booted" = 1500 ] || boot 1500 1024 || return
	for fam in 4 6; do
		capture_start ipv$fam-rdmacm-clean
		if [ $fam = 4 ]; then cases=$cm_cases4; else cases=$cm_cases6; fi
		cm_matrix $fam clean $cases rxe_ucmatose
		cm_capture_check ipv$fam-rdmacm-clean
	done
	capture_start ipv4-rdmacm-loss
	loss_on all
	RXE_AFTER_BOOT="loss_off; loss_on all" RXE_MATRIX_ITERS=5 cm_matrix 4 loss $cm_loss_cases
	# uroce mostly acknowledges here, so few of its packets are at risk: the loss must have
	# acted on rxe's (netem's count in vm1); uroce's count is shown
	up=$(dropped egress)
	down=$("$vm" exec vm1 "tc -s qdisc show dev eth0" | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -1)
	loss_off
	echo "rdmacm loss ipv4: packets dropped: uroce's $up (br-rxe's egress), rxe's ${down:-none} (netem in vm1)"
	[ "${down:-0}" -gt 0 ] || fail "ipv4 rdmacm loss: the loss did not act on rxe's side"
	cm_capture_check ipv4-rdmacm-loss
	echo "rdmacm phase: $((SECONDS - t0)) s"
}

# RXE_TIER_PHASES selects phases (default: all, in this order), e.g. "rdmacm" alone.
phases=${RXE_TIER_PHASES:-mtu1500 xdp packet rdmacm mtu9000}
for phase in $phases; do
	case $phase in
	mtu1500) mtu_phase 1500 1024 "$all_cases" "$loss_cases" "$request_loss_cases" ;;
	xdp) [ "$booted" = 1500 ] || boot 1500 1024 && xdp_phase ;;
	packet) [ "$booted" = 1500 ] || boot 1500 1024 && packet_phase ;;
	rdmacm) rdmacm_phase ;;
	mtu9000) mtu_phase 9000 4096 "$mtu4k_cases" "$mtu4k_loss_cases" "$mtu4k_request_loss_cases" ;;
	*) fail "RXE_TIER_PHASES: no phase $phase" ;;
	esac
done
"$vm" down >/dev/null 2>&1

pass=$(grep -c '^PASS' "$out/results.txt" 2>/dev/null)
fails=$(grep -c '^FAIL' "$out/results.txt" 2>/dev/null)
lost=$(grep -c '^LOST' "$out/results.txt" 2>/dev/null)
# CI shows the head and the tail of a long log: the failures are repeated here, at its end
# (a FAIL line and the indented lines under it)
block() { awk -v w="^$1" '$0 ~ w { p = 1; print; next } /^  / { if (p) print; next } { p = 0 }' "$out/results.txt"; }
[ "${lost:-0}" = 0 ] || { echo "run again on new guests, vm1 having lost its way to the host:"; block LOST; }
[ "${fails:-0}" = 0 ] || { echo "the failures:"; block FAIL; }
echo "interop-rxe: ${pass:-0} cases passed, ${fails:-0} failed, ${lost:-0} run again on new guests; captures and logs in $out; $((SECONDS - t_start)) s"
[ "${pass:-0}" -gt 0 ] || failed=1
exit $failed
