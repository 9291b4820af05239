#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a capture of the interop-rxe tier's rdma_cm phase and measures connection set-up.

Usage: check_cm.py FIELDS NAME

FIELDS is `uroce-dump -T fields -E separator=, -e` of the fields in FIELDS_ORDER below (tier.sh
writes it). A packet is uroce's when its source is the host's address, rxe's otherwise (vm1
or vm2). What must hold (docs/interop.md, "rdma_cm"):
  - every RoCEv2 packet's ICRC verifies;
  - CM MADs flow both ways between uroce and rxe: uroce sent and received CM MADs, every one
    to QP1, from source QP 1, with the GSI Q_Key 0x80010000 (IBA 13.4.6.1, A17.6.1);
  - connected data (RC, not QP1) flowed both ways between uroce and rxe;
  - every REQ got its RTU (REQ/REP/RTU matched by the REQ's Local Communication ID).
Prints the REQ-to-RTU time (the client's rdma_connect to ESTABLISHED, as the wire sees it) per
pair of client and server: uroce->rxe, rxe->uroce and rxe->rxe (vm1 and vm2), as
"SETUP <pair>: n N, median M ms, min, max". Prints one PASS or FAIL line; exits 1 on FAIL.
"""
import statistics
import sys

FIELDS_ORDER = ("frame.time_epoch", "ip.src", "ipv6.src", "ip.dst", "ipv6.dst",
                "infiniband.bth.destqp", "infiniband.deth.q_key", "infiniband.deth.srcqp",
                "infiniband.mad.attributeid", "infiniband.cm.req", "infiniband.cm.rtu.localcommid",
                "uroce.icrc.status")
HOST = {"198.18.10.1", "fd00:198:18:10::1"}
GSI_QKEY = 0x80010000
# CM attribute IDs (IBA 16.7.3, table 191): the connected service's and SIDR's.
CM_ATTRS = {0x10: "REQ", 0x11: "MRA", 0x12: "REJ", 0x13: "REP", 0x14: "RTU", 0x15: "DREQ",
            0x16: "DREP", 0x17: "SIDR_REQ", 0x18: "SIDR_REP"}


def side(addr):
    return "uroce" if addr in HOST else "rxe"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, name = sys.argv[1:]
    problems = []
    icrc_bad = packets = 0
    mads = {"uroce": 0, "rxe": 0}
    kinds = {}
    data = {"uroce": 0, "rxe": 0}
    bad_gsi = 0
    reqs = {}  # local comm ID -> (time, client, server)
    rtus = {}  # local comm ID -> first RTU time
    with open(path) as fp:
        for line in fp:
            f = line.rstrip("\n").split(",")
            if len(f) != len(FIELDS_ORDER) or not f[5]:
                continue  # not a RoCEv2 packet
            t, src4, src6, dst4, dst6, dqp, qkey, sqp, attr, req, rtu, icrc = f
            src, dst = src4 or src6, dst4 or dst6
            packets += 1
            if icrc != "ok":
                icrc_bad += 1
            if int(dqp, 16) != 1:
                if side(src) != side(dst):
                    data[side(src)] += 1
                continue
            if not attr:
                continue
            if not qkey or int(qkey, 16) != GSI_QKEY or not sqp or int(sqp, 16) != 1:
                bad_gsi += 1
            kind = CM_ATTRS.get(int(attr, 16), attr)
            if side(src) != side(dst):
                mads[side(src)] += 1
                kinds.setdefault(side(src), set()).add(kind)
            if kind == "REQ" and req:
                reqs.setdefault(int(req, 16), (float(t), src, dst))
            elif kind == "RTU" and rtu:
                rtus.setdefault(int(rtu, 16), float(t))
    if icrc_bad:
        problems.append(f"{icrc_bad} ICRC failures")
    if bad_gsi:
        problems.append(f"{bad_gsi} MADs to QP1 without source QP 1 and Q_Key 0x80010000")
    for s in ("uroce", "rxe"):
        if not mads[s]:
            problems.append(f"no CM MAD from {s} to the other side")
        if not data[s]:
            problems.append(f"no connected data from {s} to the other side")
    setup = {}
    for cid, (t, src, dst) in reqs.items():
        pair = f"{side(src)}->{side(dst)}"
        if cid not in rtus:
            # a REQ answered by REJ (a client that came too early) or SIDR has no RTU
            continue
        setup.setdefault(pair, []).append((rtus[cid] - t) * 1000)
    for pair in ("uroce->rxe", "rxe->uroce"):
        if pair not in setup:
            problems.append(f"no REQ from {pair} completed by an RTU")
    for pair, v in sorted(setup.items()):
        print(f"SETUP {name} {pair}: n {len(v)}, median {statistics.median(v):.1f} ms, "
              f"min {min(v):.1f}, max {max(v):.1f} (REQ to RTU on the wire)")
    figures = (f"{packets} RoCEv2 packets, ICRC bad {icrc_bad}; CM MADs uroce->rxe {mads['uroce']} "
               f"({' '.join(sorted(kinds.get('uroce', ())))}), rxe->uroce {mads['rxe']} "
               f"({' '.join(sorted(kinds.get('rxe', ())))}); data packets uroce->rxe "
               f"{data['uroce']}, rxe->uroce {data['rxe']}")
    if problems:
        print(f"FAIL capture {name}: {', '.join(problems)} ({figures})")
        return 1
    print(f"PASS capture {name}: {figures}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
