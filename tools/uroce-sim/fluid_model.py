#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The DCQCN paper's fluid model (Zhu et al., SIGCOMM 2015: N identical flows through one
bottleneck that marks with RED), integrated numerically, for comparison with uroce-sim's
N:1 incast run on the real engine (docs/congestion.md "Against the paper's fluid model").

Per flow, with p = RED(q(t - tau*)) and R' = R_C(t - tau*) (rates in packets/s):
  a = 1 - (1-p)^(tau R')                       a CNP in a CNP interval
  b = p / ((1-p)^-B - 1),  c = b (1-p)^(F B)    byte-counter expiries; past fast recovery
  d = p / ((1-p)^-(T R') - 1), e = d (1-p)^(F T R')   timer expiries; past fast recovery
  dR_C/dt = -R_C alpha a / (2 tau) + (R_T - R_C) R' (b + d) / 2
  dR_T/dt = -(R_T - R_C) a / tau + R_AI R' (c + e)
  dalpha/dt = g / tau' ((1 - (1-p)^(tau' R')) - alpha)
  dq/dt = N R_C - C   (q >= 0)
in the form of the authors' later analysis (Zhu et al., "ECN or Delay", CoNEXT 2016, eq. 11).
Hyper increase is not modelled. Every flow is the same, so one state stands for all. Euler
steps of DT; the defaults are uroce-sim's incast (tools/uroce-sim/scenario.c and the
engine's DCQCN defaults, docs/congestion.md "Parameters"): a 10 Gb/s bottleneck, 4152-byte
datagrams (4 KiB MTU and headers), RED 20 / 100 KB / 50 %, line rate 25 Gb/s, R_AI 40 Mb/s,
B 10 MB, T 55 us, F 5, g 1/256, CNP interval 50 us, alpha timer 55 us; tau* 8 us, the
fabric's round trip without queueing (four 1 us links and the serialisations).

Usage: fluid_model.py [N ...] [--tau-star US] [--ms DURATION]   (N: 2 4 8 16)
Prints, per N, the queue's mean, least and most over the second half, and the flows' rate."""
import math
import sys

DT = 0.25e-6


def _ratio(p, x):
    """p / (e^x - 1) for x > 0, 0 where e^x overflows."""
    return 0.0 if x > 700 else p / math.expm1(x)


def run(n, tau_star=8e-6, dur=0.06, c_bps=10e9, pkt=4152, kmin=20e3, kmax=100e3, pmax=0.5,
        line=25e9, r_ai=40e6, b_bytes=10e6, t_timer=55e-6, f=5, g=1 / 256, tau=50e-6,
        tau_a=55e-6):
    c = c_bps / 8 / pkt
    top, floor = line / 8 / pkt, 1e6 / 8 / pkt
    bp, raip = b_bytes / pkt, r_ai / 8 / pkt
    rc = rt = top
    alpha, q = 1.0, 0.0
    lag = max(1, round(tau_star / DT))
    ring_q, ring_r = [0.0] * lag, [rc] * lag  # the values tau* ago
    qs, rs = [], []
    for k in range(int(dur / DT)):
        qlag, rlag = ring_q[k % lag] * pkt, ring_r[k % lag]
        p = 0.0 if qlag <= kmin else 1.0 if qlag > kmax else pmax * (qlag - kmin) / (kmax - kmin)
        if p == 0:
            a = a_alpha = 0.0
            b = c_ = 1 / bp
            d = e = 1 / (t_timer * rlag)
        elif p >= 1:
            a = a_alpha = 1.0
            b = c_ = d = e = 0.0
        else:
            lp = math.log1p(-p)
            a = -math.expm1(lp * tau * rlag)
            a_alpha = -math.expm1(lp * tau_a * rlag)
            b = _ratio(p, -lp * bp)
            c_ = b * math.exp(lp * f * bp)
            d = _ratio(p, -lp * t_timer * rlag)
            e = d * math.exp(lp * f * t_timer * rlag)
        drc = -rc * alpha * a / (2 * tau) + (rt - rc) * rlag * (b + d) / 2
        drt = -(rt - rc) * a / tau + raip * rlag * (c_ + e)
        alpha += g / tau_a * (a_alpha - alpha) * DT
        rc = min(max(rc + drc * DT, floor), top)
        rt = min(rt + drt * DT, top)
        q = max(0.0, q + (n * rc - c) * DT)
        ring_q[k % lag], ring_r[k % lag] = q, rc
        if k * DT >= dur / 2:
            qs.append(q * pkt)
            rs.append(rc * 8 * pkt / 1e9)
    return sum(qs) / len(qs), min(qs), max(qs), sum(rs) / len(rs)


def main(argv):
    ns, tau_star, dur = [], 8e-6, 0.06
    args = iter(argv)
    for a in args:
        if a == "--tau-star":
            tau_star = float(next(args)) * 1e-6
        elif a == "--ms":
            dur = float(next(args)) / 1e3
        elif a.isdigit() and int(a) > 0:
            ns.append(int(a))
        else:
            sys.exit(__doc__)
    for n in ns or [2, 4, 8, 16]:
        mean, low, high, rate = run(n, tau_star, dur)
        print(f"N={n}: queue mean {mean:.0f} B, least {low:.0f} B, most {high:.0f} B; "
              f"each flow {rate:.3f} Gb/s")


if __name__ == "__main__":
    main(sys.argv[1:])
