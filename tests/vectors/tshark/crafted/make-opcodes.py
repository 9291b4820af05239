#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes opcodes.pcap: one RoCEv2/IPv4 packet for each extended-header layout and AETH
syndrome kind that the real captures of ../shared/testdata/captures lack (ImmDt, IETH, atomics,
ACK credits, every NAK code, RNR NAK timer 0, RD, UC, UD with immediate, XRC, FLUSH, ATOMIC
WRITE) and two invalid opcodes. Every ICRC is computed as facts.md section 1 says (CRC-32 of
the masked packet, stored least-significant byte first), so each one must verify.

The packets are synthetic: their field values are chosen to be recognisable, not taken from a
real exchange. tests/vectors/make-tshark-golden.sh records tshark's view of them next to the
real captures'. Usage: make-opcodes.py [OUTPUT] (default: opcodes.pcap beside this script)."""
import os
import struct
import sys
import zlib


def ipv4(payload_len, ident):
    h = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, 0x02, 20 + payload_len, ident, 0x4000, 64,
                              17, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])))
    s = sum(struct.unpack(">10H", h))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    h[10:12] = struct.pack(">H", ~s & 0xFFFF)
    return bytes(h)


def roce(opcode, ext, payload, qp=0x11, psn=100, se=0, m=0, ackreq=1):
    pad = -len(payload) & 3
    bth = struct.pack(">BBHBBHI", opcode, se << 7 | m << 6 | pad << 4, 0xFFFF, 0, qp >> 16,
                      qp & 0xFFFF, ackreq << 31 | psn)
    ib = bth + ext + payload + bytes(pad)
    udp_len = 8 + len(ib) + 4
    udp = struct.pack(">HHHH", 0xC123, 4791, udp_len, 0)
    ip = ipv4(udp_len, 0x1234)
    # the ICRC masks: TOS, TTL and checksum of IPv4, the UDP checksum, BTH byte 4
    m_ip = bytearray(ip)
    m_ip[1] = m_ip[8] = 0xFF
    m_ip[10:12] = b"\xff\xff"
    m_ib = bytearray(ib)
    m_ib[4] = 0xFF
    crc = zlib.crc32(b"\xff" * 8 + bytes(m_ip) + udp[:6] + b"\xff\xff" + bytes(m_ib))
    eth = bytes.fromhex("020000000002" "020000000001" "0800")
    return eth + ip + udp + ib + struct.pack("<I", crc)


def aeth(syndrome, msn):
    return struct.pack(">I", syndrome << 24 | msn)


RETH = struct.pack(">QII", 0x7F0011223344, 0x1234, 100)
DETH = struct.pack(">II", 0x11111111, 0x000ABC)
RDETH = struct.pack(">I", 0x00123456)
ATOMICETH = struct.pack(">QIQQ", 0x7F0000001000, 0x99, 5, 7)

PACKETS = [
    roce(0x03, struct.pack(">I", 0xDEADBEEF), b"imm-send"),            # RC SEND LAST with ImmDt
    roce(0x0B, RETH + struct.pack(">I", 0xCAFEF00D), b"x" * 100),     # RC WRITE ONLY with ImmDt
    roce(0x17, struct.pack(">I", 0x00C0FFEE), b"inv"),               # RC SEND ONLY with Invalidate
    roce(0x16, struct.pack(">I", 0x00C0FFEF), b"inv2"),              # RC SEND LAST with Invalidate
    roce(0x14, ATOMICETH, b""),                                      # RC FETCH & ADD
    roce(0x13, ATOMICETH, b""),                                      # RC COMPARE & SWAP
    roce(0x12, aeth(0x1F, 3) + struct.pack(">Q", 42), b""),          # RC ATOMIC ACKNOWLEDGE
    roce(0x11, aeth(0x0A, 4), b""),                                  # ACK, credit code 10 (32)
    roce(0x11, aeth(0x61, 4), b""),                                  # NAK Invalid Request
    roce(0x11, aeth(0x62, 4), b""),                                  # NAK Remote Access Error
    roce(0x11, aeth(0x63, 4), b""),                                  # NAK Remote Operational Error
    roce(0x11, aeth(0x67, 4), b""),                                  # NAK, reserved code 7
    roce(0x11, aeth(0x45, 4), b""),                                  # reserved syndrome type 2
    roce(0x11, aeth(0x20, 4), b""),                                  # RNR NAK, timer 0 (655.36 ms)
    roce(0x10, aeth(0x1F, 5), b"resp-only"),                         # RC READ RESPONSE ONLY
    roce(0x65, DETH + struct.pack(">I", 0x01020304), b"ud-imm", qp=0x22),  # UD SEND ONLY with ImmDt
    roce(0x44, RDETH + DETH, b"rd-send"),                            # RD SEND ONLY
    roce(0x4C, RDETH + DETH + RETH, b""),                            # RD READ REQUEST
    roce(0x4D, RDETH + aeth(0x1F, 1), b"rd-resp"),                   # RD READ RESPONSE FIRST
    roce(0x55, RDETH + DETH, b""),                                   # RD RESYNC
    roce(0x24, b"", b"uc-send", se=1, m=1),                          # UC SEND ONLY, SE and M set
    roce(0x2A, RETH, b"uc-write"),                                   # UC RDMA WRITE ONLY
    roce(0xA4, struct.pack(">I", 0x000777), b"xrc-send"),            # XRC SEND ONLY
    roce(0x1C, struct.pack(">I", 0x21) + RETH, b""),                 # RC FLUSH (IBA 1.5)
    roce(0x1D, RETH, struct.pack(">Q", 0x0102030405060708)),         # RC ATOMIC WRITE (IBA 1.5)
    roce(0xC0, b"", bytes(8)),                                       # reserved transport 0xC0
    roce(0x18, b"", bytes(8)),                                       # RC, reserved operation 0x18
]

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "opcodes.pcap")
with open(out, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))  # pcap, Ethernet
    for i, p in enumerate(PACKETS):
        f.write(struct.pack("<IIII", 1700000000 + i, 0, len(p), len(p)) + p)
