#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks one capture of the interop-rxe tier, taken on br-rxe, from `uroce-dump --flows=json`.

Usage: check_capture.py FLOWS_JSON NAME clean|loss MTU [--host-loss] [--mtu-from=WHOLE_JSON]

Every flow is a sender's: uroce's when its source is the host's address, rxe's otherwise. What
must hold (docs/interop.md, "Captures"):
  every run: no malformed frame, no ICRC failure, and the largest FIRST/MIDDLE payload is MTU
    (the path MTU was really in use); with --mtu-from, that payload is looked for in another
    report, the whole phase's: after a reboot for a lost guest (tier.sh) the capture checked
    holds the cases run after it only, maybe latency tests whose messages fit one packet;
  clean: no PSN gap on any flow (nothing was lost before the capture point), at most 1 % of
    uroce's request packets and 5 % of rxe's retransmitted. The emulated guests cause resends
    without any loss: rxe's retransmit timer fires early when QEMU hands a burst of the guest's
    frames to its tap late (a resend 2 ms after the original, where the timer is 67 ms), and a
    guest answers late or drops frames at its tap while its vCPU is descheduled (uroce times
    out, or rxe NAKs). All show up as resends of packets the capture already holds, never as
    gaps; a uroce that failed to acknowledge would show up as most of rxe's packets resent;
  loss: both sides lost packets (PSN gaps on both sides' flows, only rxe's without --host-loss),
    retransmitted, and the responders of both sides sent PSN Sequence Error NAKs (only uroce's
    without --host-loss).
Prints one PASS or FAIL line with the figures; exits 1 on FAIL.
"""
import json
import sys

HOST = {"198.18.10.1", "fd00:198:18:10::1"}
CLEAN_RETRANSMIT_LIMIT = {"uroce": 0.01, "rxe": 0.05}


def tally(flows):
    side = {s: dict(requests=0, retransmitted=0, gaps=0, naks=0) for s in ("uroce", "rxe")}
    for f in flows:
        t = side["uroce" if f["src"] in HOST else "rxe"]
        req = f.get("requests") or {}
        seq = req.get("sequence") or {}
        t["requests"] += req.get("packets", 0)
        t["retransmitted"] += seq.get("retransmitted_packets", 0)
        t["gaps"] += seq.get("gaps", 0)
        resp = f.get("responses") or {}
        t["naks"] += (resp.get("naks") or {}).get("PSN_SEQ_ERR", 0)
    return side


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    host_loss = "--host-loss" in sys.argv
    mtu_from = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--mtu-from=")]
    if len(args) != 4 or args[2] not in ("clean", "loss"):
        sys.exit(__doc__)
    path, name, mode, mtu = args[0], args[1], args[2], int(args[3])
    with open(path) as fp:
        d = json.load(fp)
    flows = d["flows"]
    icrc_bad = sum(f["icrc_bad"] for f in flows)
    mtu_flows = flows
    if mtu_from:
        with open(mtu_from[0]) as fp:
            mtu_flows = json.load(fp)["flows"]
    mtu_seen = max((f["mtu"] for f in mtu_flows), default=0)
    side = tally(flows)
    problems = []
    if d["malformed_frames"]:
        problems.append(f"{d['malformed_frames']} malformed frames")
    if icrc_bad:
        problems.append(f"{icrc_bad} ICRC failures")
    if mtu_seen != mtu:
        problems.append(f"path MTU {mtu_seen} on the wire, expected {mtu}")
    requests = side["uroce"]["requests"] + side["rxe"]["requests"]
    resent = side["uroce"]["retransmitted"] + side["rxe"]["retransmitted"]
    if not requests:
        problems.append("no request packets")
    if mode == "clean":
        for s, t in side.items():
            if t["gaps"]:
                problems.append(f"{t['gaps']} PSN gaps in {s}'s packets without loss")
            if t["retransmitted"] > CLEAN_RETRANSMIT_LIMIT[s] * t["requests"]:
                problems.append(f"{s} retransmitted {t['retransmitted']} of {t['requests']} "
                                f"request packets without loss (limit "
                                f"{CLEAN_RETRANSMIT_LIMIT[s]:.0%})")
    else:
        lossy = ("uroce", "rxe") if host_loss else ("rxe",)
        for s in lossy:
            if not side[s]["gaps"]:
                problems.append(f"no PSN gap in {s}'s packets: the loss did not act")
        for s in ("uroce", "rxe"):
            if not side[s]["retransmitted"]:
                problems.append(f"{s} never retransmitted")
        responders = ("uroce", "rxe") if host_loss else ("uroce",)
        for s in responders:
            if not side[s]["naks"]:
                problems.append(f"{s} sent no PSN Sequence Error NAK")
    figures = (f"{d['ib_packets']} RoCEv2 packets in {len(flows)} flows, ICRC bad {icrc_bad}, "
               f"path MTU {mtu_seen}, retransmitted {resent} of {requests} requests "
               f"({100.0 * resent / max(requests, 1):.2f} %); " +
               "; ".join(f"{s}: {t['requests']} requests, {t['retransmitted']} resent, "
                         f"{t['gaps']} PSN gaps, {t['naks']} NAKs sent" for s, t in side.items()))
    if problems:
        print(f"FAIL capture {name}: {', '.join(problems)} ({figures})")
        return 1
    print(f"PASS capture {name}: {figures}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
