#!/bin/bash
# SPDX-License-Identifier: MIT
# uroce-stat against the counters a run provokes (docs/stat.md): two ibv_rc_pingpong
# processes over uroce with 1 % loss each way, in a network namespace of their own. While they
# run, uroce-stat --json must list both with their RC QP connected to the other (state, peer,
# QP numbers); their retransmission and loss counters must be positive at exit in UROCE_STATS=1's
# report, and what uroce-stat saw must not exceed that report. Their pages are gone after a
# normal exit, and the page of a process killed with SIGKILL is not listed and gets removed.
# Exit 77 (skipped) without ibv_rc_pingpong or a way to make a network namespace.
set -u
: "${UROCE_LIBDIR:?the directory of uroce libibverbs.so.1}"
: "${UROCE_STAT:?the uroce-stat program}"

if [ "${UROCE_STAT_NS:-}" != 1 ]; then
	command -v ibv_rc_pingpong >/dev/null || { echo "SKIP: no ibv_rc_pingpong (ibverbs-utils)"; exit 77; }
	for u in "unshare -n" "unshare -rn"; do
		if $u true 2>/dev/null; then
			exec $u env UROCE_STAT_NS=1 bash "$0" "$@"
		fi
	done
	echo "SKIP: cannot make a network namespace"
	exit 77
fi

ip link set lo up
# interop/lib.sh's IC_PRELOAD: in a sanitizer build, the runtimes the unmodified programs need
# first in their link order (and the sanitizers' options)
. "$(dirname "$0")/../interop/lib.sh"
pre=()
[ -n "$IC_PRELOAD" ] && pre=(LD_PRELOAD="$IC_PRELOAD")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/uroce-test-stat.XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"; ic_cleanup; }
trap cleanup EXIT
export LD_LIBRARY_PATH=$UROCE_LIBDIR UROCE_RUNTIME_DIR=$tmp/run
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# ---- two processes with loss ----
UROCE_IMPAIR=loss=0.01 UROCE_IP=127.0.0.1 UROCE_STATS=1 \
	env "${pre[@]}" ibv_rc_pingpong -g 0 -n 300 -p 18600 >"$tmp/s.out" 2>"$tmp/s.err" &
spid=$!
pids+=("$spid")
# The client connects at once and gives up if refused: it starts once the server listens.
for _ in $(seq 300); do
	ic_listening 18600 && [ -e "$tmp/run/$spid.stat" ] && break
	kill -0 "$spid" 2>/dev/null || break
	sleep 0.1
done
UROCE_IMPAIR=loss=0.01 UROCE_IP=127.0.0.2 UROCE_STATS=1 \
	env "${pre[@]}" ibv_rc_pingpong -g 0 -n 300 -p 18600 127.0.0.1 >"$tmp/c.out" 2>"$tmp/c.err" &
cpid=$!
pids+=("$cpid")

# Samples until both processes show their QP connected and retransmitting (or they end).
# (The programs run without timeout(1): their pids are the pages' names; CTest's limit holds.)
seen=0
for _ in $(seq 300); do
	"$UROCE_STAT" --json >"$tmp/sample.json" 2>"$tmp/stat.err"
	rc=$?
	if python3 - "$tmp/sample.json" "$spid" "$cpid" 2>"$tmp/why" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
procs = {p["pid"]: p for p in doc["processes"]}
s, c = int(sys.argv[2]), int(sys.argv[3])
assert s in procs and c in procs, "both listed"
rc = {pid: [q for q in procs[pid]["qps"] if q["type"] == "RC"] for pid in (s, c)}
assert len(rc[s]) == 1 and len(rc[c]) == 1, "one RC QP each"
qs, qc = rc[s][0], rc[c][0]
assert qs["state"] == "RTS" and qc["state"] == "RTS"
assert qs["dest_qpn"] == qc["qpn"] and qc["dest_qpn"] == qs["qpn"], "connected to each other"
assert qs["peer"] == "127.0.0.2" and qc["peer"] == "127.0.0.1", "peers"
assert procs[s]["addrs"] == "127.0.0.1" and procs[c]["addrs"] == "127.0.0.2"
assert procs[s]["impair"] == "loss=0.01" and procs[s]["backend"] == "udp"
assert procs[s]["comm"] == "ibv_rc_pingpong"
# the QP's counters are the device's share: never more than the device's
for p, q in ((procs[s], qs), (procs[c], qc)):
    for k, v in q["counters"].items():
        assert v <= p["counters"][k], k
assert sum(procs[p]["counters"]["retransmitted_pkts"] for p in (s, c)) > 0, "retransmitting"
PY
	then
		seen=1
		[ $rc = 0 ] || fail "uroce-stat exited $rc with processes listed"
		cp "$tmp/sample.json" "$tmp/seen.json"
		"$UROCE_STAT" -p "$cpid" >"$tmp/table.txt"
		"$UROCE_STAT" --json --watch 0.2 --count 2 -p "$cpid" >"$tmp/watch.json"
		break
	fi
	kill -0 "$cpid" 2>/dev/null || break
	sleep 0.1
done
[ $seen = 1 ] || { fail "uroce-stat never showed both connected QPs retransmitting:"; cat "$tmp/why" "$tmp/sample.json" "$tmp/stat.err" "$tmp/s.err" "$tmp/c.err"; }
if [ -e "$tmp/table.txt" ]; then
	grep -q "^pid $cpid (ibv_rc_pingpong) uroce0 backend udp addrs 127.0.0.2 impair loss=0.01" \
		"$tmp/table.txt" || { fail "table: no process line"; cat "$tmp/table.txt"; }
	grep -Eq "^ +[0-9]+ RC +RTS +127\.0\.0\.1 " "$tmp/table.txt" ||
		{ fail "table: no QP line"; cat "$tmp/table.txt"; }
	grep -q "^pid $spid " "$tmp/table.txt" && fail "-p $cpid listed $spid"
fi

# --watch: one JSON line per sample, rates from the second on (when the client still ran).
if [ -e "$tmp/watch.json" ]; then
	python3 - "$tmp/watch.json" "$cpid" <<'PY' || { fail "--watch --json"; cat "$tmp/watch.json"; }
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, "two samples"
first, second = (json.loads(l)["processes"] for l in lines)
assert len(first) == 1 and "rates" not in first[0]
if second:
    r = second[0]["rates"]
    assert set(r) == set(second[0]["counters"]) and r["sent_pkts"] >= 0
    assert all("rates" in q for q in second[0]["qps"])
PY
fi

# Both end within a minute (a server whose client is gone would wait for ever): then they are
# stopped, and the test says so.
for _ in $(seq 600); do
	kill -0 "$spid" 2>/dev/null || kill -0 "$cpid" 2>/dev/null || break
	sleep 0.1
done
for p in "$spid" "$cpid"; do
	kill -0 "$p" 2>/dev/null && { fail "pid $p ($([ "$p" = "$spid" ] && echo server || echo client)) did not end: stopped"; kill -9 "$p"; }
done
wait "$spid"; src=$?
wait "$cpid"; crc=$?
# Both exit 0, or one ends in the race every lossy pingpong has (interop/lib.sh ic_end_race):
# the other side, done, left, and the ACK of this one's last request was lost to the loss, so
# its retries ran out (its only error, exit 1; CI saw it once in many runs).
if [ $src != 0 ] || [ $crc != 0 ]; then
	if { [ $src = 0 ] && ic_only_retry_exceeded "$tmp/c.err" $crc; } ||
		{ [ $crc = 0 ] && ic_only_retry_exceeded "$tmp/s.err" $src; }; then
		echo "note: pingpong's end race under loss (exit $src/$crc), the last request's retries"
	else
		fail "pingpong exited $src/$crc"
		cat "$tmp"/*.err
	fi
fi

# The exit reports: counters only (the programs destroy their QP before closing).
for side in s c; do
	pid=$([ $side = s ] && echo "$spid" || echo "$cpid")
	python3 - "$tmp/$side.err" "$tmp/seen.json" "$pid" <<'PY' || fail "exit report of $side"
import json, re, sys
text = open(sys.argv[1]).read()
m = re.search(r"^pid (\d+) \(ibv_rc_pingpong\) uroce0 backend udp.*?\n(.*?)(?=^\S|\Z)", text, re.S | re.M)
assert m and int(m.group(1)) == int(sys.argv[3]), "a report for the process:\n" + text
report = dict((k, int(v)) for k, v in re.findall(r"^    (\w+) +(\d+)$", m.group(2), re.M))
for k in ("sent_pkts", "rcvd_pkts", "udp_impair_lost", "udp_sent", "udp_received"):
    assert report.get(k, 0) > 0, k + " in " + str(report)
try:
    seen = json.load(open(sys.argv[2]))
except OSError:
    sys.exit(0)  # reported above
proc = [p for p in seen["processes"] if p["pid"] == int(sys.argv[3])][0]
for k, v in proc["counters"].items():
    assert v <= report.get(k, 0), "%s: seen %d, at exit %d" % (k, v, report.get(k, 0))
PY
done
# Loss both ways: each side lost some and the pair retransmitted.
retx=$(cat "$tmp/s.err" "$tmp/c.err" | awk '$1 == "retransmitted_pkts" {n += $2} END {print n + 0}')
[ "$retx" -gt 0 ] || fail "no retransmission reported at exit"
ls "$tmp/run"/*.stat >/dev/null 2>&1 && fail "pages left after a normal exit: $(ls "$tmp/run")"
"$UROCE_STAT" >/dev/null; rc=$?
[ $rc = 1 ] || fail "uroce-stat exited $rc with no process (want 1)"

# ---- a process killed with SIGKILL ----
UROCE_IP=127.0.0.1 env "${pre[@]}" ibv_rc_pingpong -g 0 -p 18601 >"$tmp/k.out" 2>&1 &
kpid=$!
pids+=("$kpid")
for _ in $(seq 100); do "$UROCE_STAT" -p "$kpid" >/dev/null && break; sleep 0.1; done
"$UROCE_STAT" -p "$kpid" >/dev/null || fail "a waiting server is not listed"
kill -9 "$kpid"
wait "$kpid" 2>/dev/null
[ -e "$tmp/run/$kpid.stat" ] || fail "the killed process's page vanished by itself"
"$UROCE_STAT" --json >"$tmp/after.json"; rc=$?
[ $rc = 1 ] || fail "uroce-stat exited $rc after the kill (want 1)"
grep -q "\"pid\":$kpid" "$tmp/after.json" && fail "the killed process is still listed"
[ -e "$tmp/run/$kpid.stat" ] && fail "the killed process's page was not removed"

"$UROCE_STAT" --bogus >/dev/null 2>&1; [ $? = 2 ] || fail "a usage error does not exit 2"

[ $fails = 0 ] && echo "PASS test_stat"
exit $((fails > 0))
