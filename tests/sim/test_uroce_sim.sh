#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# uroce-sim (docs/congestion.md): a scenario file and key=value overrides run; the same input
# gives the same output, byte for byte (stdout and the CSV time series); the CSV has a row per
# sample with the queue, the CNPs and two columns per flow; flows stop when told; in the
# loss-tolerant scenario DCQCN resends at least 4 times less than no congestion control; PFC
# keeps the incast lossless and its queue within the senders' XOFF; PFC's victim flow loses its
# throughput without congestion control and has it under DCQCN; the parking lot and the
# leaf-spine fabric with ECMP carry what their flows send, DCQCN keeping the queues short;
# flows of a size complete, and their times are written; convergence after each event; the
# incast's mean queue agrees with the DCQCN paper's fluid model; bad keys,
# values and file lines are named, with exit 2; --plot draws a PNG with gnuplot (skipped, and
# said so, without gnuplot).
set -u
sim=${UROCE_SIM:?the uroce-sim program}
scen=${UROCE_SOURCE:?the source tree}/tools/uroce-sim/scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
# both NAME ARGS...: uroce-sim ARGS without congestion control and under DCQCN, the summaries
# in $tmp/NAME.none and $tmp/NAME.dcqcn
both() {
	local name=$1 cc
	shift
	for cc in none dcqcn; do
		"$sim" "$@" cc=$cc --quiet >"$tmp/$name.$cc" 2>&1 || fail "$name $cc: exit $?"
	done
}

# the incast file, shortened
args=("$scen/incast.conf" duration_ms=10 sample_us=500 senders=4)
"$sim" "${args[@]}" --csv "$tmp/a.csv" --quiet >"$tmp/a.out" 2>&1 || fail "incast: exit $?"
"$sim" "${args[@]}" --csv "$tmp/b.csv" --quiet >"$tmp/b.out" 2>&1
if cmp -s "$tmp/a.out" "$tmp/b.out" && cmp -s "$tmp/a.csv" "$tmp/b.csv"; then
	pass "same input, same output"
else
	fail "two runs differ"
fi
grep -q "^4 senders -> 1 receiver, dcqcn, bottleneck 10 Gb/s" "$tmp/a.out" &&
	grep -q "(0 errors)" "$tmp/a.out" && grep -Eq "^whole run: [1-9][0-9]* CNPs" "$tmp/a.out" &&
	pass "summary" || { fail "summary"; cat "$tmp/a.out"; }
python3 - "$tmp/a.csv" <<'PY' && pass "csv" || fail "csv"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = rows[0]
assert head[:3] == ["time_us", "queue_bytes", "cnps"], head
assert head[3:] == [f"flow{i}_gbps" for i in range(1, 5)] + [f"flow{i}_cc_gbps" for i in range(1, 5)] + ["pfc_pauses"], head
assert len(rows) == 1 + 20, len(rows)                       # 10 ms / 500 us
assert float(rows[-1][0]) == 10000.0
cnps = [int(r[2]) for r in rows[1:]]
assert cnps == sorted(cnps) and cnps[-1] > 0                 # a running count
for r in rows[1:]:
    assert all(0 <= float(x) <= 25.5 for x in r[3:11]), r    # Gb/s, at most the line rate
    assert r[11] == "0"                                      # no PFC, no pause
PY

# a sender told to stop posts nothing more: once its posted WRITEs (16 x 64 KB) have left,
# within 4 ms at its share here, it sends nothing, and the other sender takes the link
"$sim" senders=2 duration_ms=10 sample_us=500 stops_ms=4,0 --csv "$tmp/s.csv" --quiet >/dev/null ||
	fail "stops: exit $?"
python3 - "$tmp/s.csv" <<'PY' && pass "a flow stops" || fail "a flow stops"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
late = [r for r in rows if float(r["time_us"]) > 8000]
assert late and all(float(r["flow1_gbps"]) == 0 for r in late)
assert all(float(r["flow2_gbps"]) > 4 for r in late)        # the other takes the link
PY

# Flows of a given size: each completes, no sooner than its bytes take at its link's rate, the
# last no sooner than all the bytes take at the bottleneck's; --fct writes what is printed
"$sim" senders=4 sizes_kb=1000,2000,4000,8000 duration_ms=30 --fct "$tmp/fct.csv" --quiet \
	>"$tmp/fct.out" 2>&1 || fail "sizes: exit $?"
python3 - "$tmp/fct.out" "$tmp/fct.csv" <<'PY' && pass "flow completion times" ||
import csv, re, sys
out = open(sys.argv[1]).read()
printed = [(int(k), float(us)) for k, us in re.findall(r"flow (\d+): \d+ KB completed in ([0-9.]+) us", out)]
rows = list(csv.DictReader(open(sys.argv[2])))
print(f"  completion times (us): {[us for _, us in printed]}")
assert len(printed) == 4 and len(rows) == 4
sizes = [1000000, 2000000, 4000000, 8000000]
for (k, us), row, size in zip(printed, rows, sizes):
    assert int(row["flow"]) == k and int(row["size_bytes"]) == size and float(row["fct_us"]) == us
    assert us * 1e3 >= size * 8 / 25               # its link: 25 Gb/s
assert max(us for _, us in printed) * 1e3 >= sum(sizes) * 8 / 10   # the bottleneck: 10 Gb/s
PY
	{ fail "flow completion times"; cat "$tmp/fct.out"; }

# Convergence after each event of the staggered scenario (flows start 15 ms apart, two stop):
# under DCQCN the flows converge after every one, within 15 ms
"$sim" "$scen/staggered.conf" --quiet >"$tmp/stag.out" 2>&1 || fail "staggered: exit $?"
python3 - "$tmp/stag.out" <<'PY' && pass "convergence" ||
import re, sys
line = [l for l in open(sys.argv[1]) if l.startswith("convergence")][0]
got = re.findall(r"after ([0-9.]+) ms: ([0-9.]+ ms|never)", line)
print(f"  {line.strip()}")
assert [float(t) for t, _ in got] == [0, 15, 30, 45, 80, 90], got
assert all(c != "never" and 2 <= float(c.split()[0]) <= 15 for _, c in got), got
PY
	{ fail "convergence"; cat "$tmp/stag.out"; }

# loss-tolerant mode: a shallow buffer drops; DCQCN keeps the link busy and resends far less
both lossy "$scen/lossy.conf"
python3 - "$tmp/lossy.none" "$tmp/lossy.dcqcn" <<'PY' && pass "lossy: DCQCN resends less" ||
import re, sys
def figures(path):
    t = open(path).read()
    util = float(re.search(r"utilisation ([0-9.]+)", t).group(1))
    drops, resent = map(int, re.search(r"(\d+) dropped, (\d+) resent", t).groups())
    return util, drops, resent
(un, dn, rn), (ud, dd, rd) = figures(sys.argv[1]), figures(sys.argv[2])
print(f"  none: utilisation {un}, {dn} dropped, {rn} resent; dcqcn: {ud}, {dd}, {rd}")
assert dn > 0 and rn > 0                 # the buffer is shallow enough to drop
assert ud >= 0.9 and ud > un             # DCQCN keeps the link busy
assert rd * 4 <= rn                      # and resends at least 4 times less
PY
	{ fail "lossy: DCQCN resends less"; cat "$tmp/lossy.none" "$tmp/lossy.dcqcn"; }

# PFC: without congestion control the switch pauses the senders and its queue stays within
# their XOFF and headroom, nothing dropped; under DCQCN it pauses them far less
both pfc "$scen/incast.conf" pfc=50,40 duration_ms=20
"$sim" "$scen/incast.conf" cc=none duration_ms=20 --quiet >"$tmp/nopfc" 2>&1 || fail "no pfc: exit $?"
python3 - "$tmp/pfc.none" "$tmp/pfc.dcqcn" "$tmp/nopfc" <<'PY' && pass "pfc" ||
import re, sys
def figures(path):
    t = open(path).read()
    peak = int(re.search(r"whole run (\d+) B", t).group(1))
    drops = int(re.search(r"(\d+) dropped", t).group(1))
    m = re.search(r"PFC: (\d+) PAUSEs", t)
    return peak, drops, int(m.group(1)) if m else None
(pn, dn, an), (pd, dd, ad), (p0, d0, a0) = (figures(p) for p in sys.argv[1:4])
print(f"  queue peak: {p0} B without PFC, {pn} B with; PAUSEs: {an} without congestion control, {ad} with DCQCN")
assert a0 is None and p0 > 2000000        # no PFC: the queue holds every window
assert dn == dd == 0 and an > 0           # lossless, and the switch paused
assert pn <= 8 * 64000                    # 8 senders: XOFF 50 KB and the headroom each
assert ad * 4 <= an                       # DCQCN: far fewer PAUSEs
PY
	{ fail "pfc"; cat "$tmp/pfc.none" "$tmp/pfc.dcqcn"; }

# PFC's victim flow: without congestion control the pauses spread to the core link and the
# flow that crosses only it loses its throughput; DCQCN gives it back
both victim "$scen/victim.conf" duration_ms=20
python3 - "$tmp/victim.none" "$tmp/victim.dcqcn" <<'PY' && pass "victim flow" ||
import re, sys
def victim(path):
    return float(re.search(r"victim flow: ([0-9.]+) Gb/s", open(path).read()).group(1))
vn, vd = victim(sys.argv[1]), victim(sys.argv[2])
print(f"  victim flow: {vn} Gb/s without congestion control, {vd} with DCQCN (its link: 25)")
assert vd >= 22.5                         # DCQCN: the victim has its link
assert vn * 2 <= vd                       # PFC alone: it loses at least half
PY
	{ fail "victim flow"; cat "$tmp/victim.none" "$tmp/victim.dcqcn"; }

# The parking lot: every link between the switches is kept busy; the flow that crosses them
# all gets less than each one-link flow (each congested port marks it: the multi-bottleneck
# bias of ECN-based control); DCQCN keeps the queues far below no congestion control's
both lot "$scen/parking_lot.conf" duration_ms=20
python3 - "$tmp/lot.none" "$tmp/lot.dcqcn" <<'PY' && pass "parking lot" ||
import re, sys
def figures(path):
    t = open(path).read()
    flows = [float(x) for x in re.findall(r"flow \d+: ([0-9.]+) Gb/s", t)]
    links = [float(x) for x in re.findall(r"link \d+: ([0-9.]+) Gb/s", t)]
    peak = int(re.search(r"queue peak (\d+) B", t).group(1))
    drops = int(re.search(r"(\d+) dropped", t).group(1))
    return flows, links, peak, drops
(fn, ln, pn, dn), (fd, ld, pd, dd) = figures(sys.argv[1]), figures(sys.argv[2])
print(f"  none: flows {fn}, queue {pn} B; dcqcn: flows {fd}, queue {pd} B")
assert len(fd) == 4 and len(ld) == 3
for flows, links in ((fn, ln), (fd, ld)):
    assert all(l >= 9.5 for l in links)                     # every link busy (10 Gb/s)
    for k in range(3):                                      # link k+1 carries flows 1 and k+2
        assert abs(links[k] - flows[0] - flows[k + 1]) < 0.05 * links[k]
    assert flows[0] < min(flows[1:])
assert dn == dd == 0 and pd * 4 <= pn
PY
	{ fail "parking lot"; cat "$tmp/lot.none" "$tmp/lot.dcqcn"; }

# Leaf-spine with ECMP on the UDP source port: what the uplinks carry is what the flows send,
# no uplink carries more than its 25 Gb/s, the flows spread over several spines; DCQCN keeps
# the queues of the spines that drew several flows far below no congestion control's
both ls "$scen/leaf_spine.conf" duration_ms=20
python3 - "$tmp/ls.none" "$tmp/ls.dcqcn" <<'PY' && pass "leaf-spine" ||
import re, sys
def figures(path):
    t = open(path).read()
    flows = [float(x) for x in re.findall(r"flow \d+: ([0-9.]+) Gb/s", t)]
    ups = [float(x) for x in re.findall(r"uplink to spine \d+: ([0-9.]+) Gb/s", t)]
    peak = int(re.search(r"queue peak (\d+) B", t).group(1))
    return flows, ups, peak
(fn, un, pn), (fd, ud, pd) = figures(sys.argv[1]), figures(sys.argv[2])
print(f"  uplinks (Gb/s): {un} without congestion control, {ud} with DCQCN; queue {pn} B, {pd} B")
for flows, ups in ((fn, un), (fd, ud)):
    assert len(flows) == 8 and len(ups) == 4
    assert abs(sum(ups) - sum(flows)) < 0.01 * sum(flows)
    assert all(u <= 25.01 for u in ups) and sum(u > 1 for u in ups) >= 2
assert pd * 4 <= pn
PY
	{ fail "leaf-spine"; cat "$tmp/ls.none" "$tmp/ls.dcqcn"; }

# Against the DCQCN paper's fluid model (tools/uroce-sim/fluid_model.py): the incast's mean
# queue over the second half on the real engine is within 0.75 to 1.5 times the model's, at
# N = 2 and 8, and grows with N as the model's does (measured: 22.6 against 22.8 KB, 47.1
# against 35.5 KB)
python3 "$UROCE_SOURCE/tools/uroce-sim/fluid_model.py" 2 8 >"$tmp/model.out" 2>&1 ||
	fail "fluid model: exit $?"
for n in 2 8; do
	"$sim" senders=$n --quiet >"$tmp/model.$n" 2>&1 || fail "incast $n: exit $?"
done
python3 - "$tmp/model.out" "$tmp/model.2" "$tmp/model.8" <<'PY' && pass "the paper's fluid model" ||
import re, sys
model = [float(x) for x in re.findall(r"queue mean ([0-9.]+) B", open(sys.argv[1]).read())]
ours = [float(re.search(r"mean ([0-9.]+) B", open(p).read()).group(1)) for p in sys.argv[2:4]]
print(f"  mean queue, N = 2 and 8: the model {model}, uroce {ours}")
assert len(model) == 2
assert all(0.75 <= o / m <= 1.5 for o, m in zip(ours, model))
assert model[1] > model[0] and ours[1] > ours[0]
PY
	{ fail "the paper's fluid model"; cat "$tmp/model.out"; }

# Every scenario from one command (tools/uroce-sim/run-all.sh), shortened: a row per scenario
# and congestion control, each run's summary and time series written
bash "$UROCE_SOURCE/tools/uroce-sim/run-all.sh" "$(dirname "$sim")/../.." "$tmp/all" duration_ms=2 \
	>"$tmp/all.out" 2>&1 || fail "run-all.sh: exit $?"
rows=$(awk 'NR > 1 && ($2 == "dcqcn" || $2 == "none") && $3 ~ /^[0-9.]+$/' "$tmp/all.out" | wc -l)
want=$((2 * ($(ls "$scen"/*.conf | wc -l) + 4)))
if [ "$rows" = "$want" ] && [ "$(ls "$tmp/all"/*.csv | wc -l)" = "$want" ]; then
	pass "run-all.sh: $rows runs"
else
	fail "run-all.sh: $rows rows of $want"
	cat "$tmp/all.out"
fi

# errors: named, exit 2
check_err() { # EXPECT ARGS...
	local want=$1
	shift
	"$sim" "$@" >"$tmp/e.out" 2>&1
	local rc=$?
	if [ $rc = 2 ] && grep -q -- "$want" "$tmp/e.out"; then pass "error: $*"; else
		fail "error: $* (exit $rc)"; cat "$tmp/e.out"; fi
}
check_err "unknown key wat" wat=1
check_err "senders: a number from 1 to 64" senders=65
check_err "cc: timely" cc=timely
check_err "red: KMIN_KB,KMAX_KB,PMAX" red=100,20,0.5
check_err "timeout: a number from 1 to 31" timeout=32
check_err "pfc: XOFF_KB,XON_KB with XON < XOFF" pfc=40,50
check_err "victim: a number from 0 to 1" victim=2
check_err "topology: dumbbell, parking_lot or leaf_spine" topology=ring
check_err "victim=1 is a dumbbell's" topology=leaf_spine victim=1
check_err "a parking lot needs 2 senders" topology=parking_lot senders=1
check_err "sizes_kb: a comma list of sizes in KB" sizes_kb=1,x
printf 'senders = 2\nthis line is wrong\n' >"$tmp/bad.conf"
check_err "bad.conf:2: not key = value" "$tmp/bad.conf"
check_err "unknown option" --nope

if command -v gnuplot >/dev/null; then
	"$sim" senders=2 duration_ms=2 --csv "$tmp/p.csv" --plot "$tmp/p.png" --quiet >/dev/null &&
		[ "$(head -c 8 "$tmp/p.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
		pass "plot" || fail "plot"
else
	echo "SKIP plot: no gnuplot"
fi
[ $fails = 0 ] && echo "test_uroce_sim: all passed" || echo "test_uroce_sim: $fails failed"
exit $((fails > 0))
