# SPDX-License-Identifier: MIT
"""Writes tests/vectors/layers.pcap: hand-built frames for the link and network layers the real
captures lack, for the datamodel check (datamodel/check.py) and uroce-dump: RoCE v1 (EtherType
0x8915, GRH first) untagged and in an 802.1Q VLAN, RoCEv2 over IPv4 in a VLAN with ECN CE,
RoCEv2 over IPv6 in an 802.1ad + 802.1Q double tag (a CNP) and behind extension
headers, IPv4 with options, and a frame
with a 4-byte trailer (a captured FCS) after its IP datagram. Every ICRC is computed as
docs/facts.md section 1 gives it, with zlib's CRC-32.

Usage: python3 tests/vectors/make-layers.py [OUT]"""
import os
import struct
import sys
import zlib

MAC_A, MAC_B = bytes.fromhex("020000000001"), bytes.fromhex("020000000002")
# Link-local GIDs from the MACs (EUI-64: flip the U/L bit, insert ff:fe), as RoCE v1 uses.
GID_A = bytes.fromhex("fe80000000000000" "000000fffe000001")
GID_B = bytes.fromhex("fe80000000000000" "000000fffe000002")
IP6_A = bytes.fromhex("fd000000000000000000000000000001")
IP6_B = bytes.fromhex("fd000000000000000000000000000002")


def bth(opcode, qp, psn, pad=0, ackreq=False, se=False):
    return struct.pack(">BBHII", opcode, se << 7 | pad << 4, 0xFFFF, qp, ackreq << 31 | psn)


def transport(opcode, qp, psn, ext=b"", payload=b"", **kw):
    pad = -len(payload) % 4
    return bth(opcode, qp, psn, pad, **kw) + ext + payload + bytes(pad)


def icrc(masked_hdrs, body):
    """CRC-32 over 8 bytes of ones (no LRH), the masked headers and the BTH (byte 4 masked),
    then the rest, stored least significant byte first."""
    m = bytearray(body[:12])
    m[4] = 0xFF
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + masked_hdrs + m + body[12:]))


def mask_v6(h):
    h = bytearray(h)
    h[0] |= 0x0F
    h[1] = h[2] = h[3] = h[7] = 0xFF
    return h


def roce_v1(body, tclass=0, flow=0, hop=1, sgid=GID_A, dgid=GID_B):
    grh = struct.pack(">IHBB", 6 << 28 | tclass << 20 | flow, len(body) + 4, 0x1B, hop)
    grh += sgid + dgid
    return struct.pack(">H", 0x8915), grh + body + icrc(mask_v6(grh), body)


def udp(body):
    return struct.pack(">HHHH", 0xC123, 4791, 8 + len(body) + 4, 0)


def ipv4(body, tos=0, options=b"", ident=0x1234):
    u = udp(body)
    ihl = 5 + len(options) // 4
    ip = bytearray(struct.pack(">BBHHHBBH4s4s", 0x40 | ihl, tos, ihl * 4 + len(u) + len(body) + 4,
                               ident, 0x4000, 64, 17, 0, bytes([10, 0, 0, 1]),
                               bytes([10, 0, 0, 2])) + options)
    s = sum(struct.unpack(">%dH" % (len(ip) // 2), ip))
    s = (s & 0xFFFF) + (s >> 16)
    ip[10:12] = struct.pack(">H", ~(s + (s >> 16)) & 0xFFFF)
    m = bytearray(ip)
    m[1] = m[8] = m[10] = m[11] = 0xFF
    mu = u[:6] + b"\xff\xff"
    return struct.pack(">H", 0x0800), bytes(ip) + u + body + icrc(bytes(m) + mu, body)


def ipv6(body, tclass=0, flow=0, ext=b""):
    """ext: extension headers, the first byte of each naming the next (the last: 17)."""
    u = udp(body)
    nxt = 60 if ext else 17
    ip = struct.pack(">IHBB", 6 << 28 | tclass << 20 | flow, len(ext) + len(u) + len(body) + 4,
                     nxt, 64)
    ip += IP6_A + IP6_B
    mu = u[:6] + b"\xff\xff"
    return struct.pack(">H", 0x86DD), ip + ext + u + body + icrc(bytes(mask_v6(ip)) + ext + mu,
                                                                  body)


def tag(tpid, pcp, vid):
    return struct.pack(">HH", tpid, pcp << 13 | vid)


def ether(net, tags=b"", trailer=b""):
    ethertype, packet = net
    return MAC_B + MAC_A + tags + ethertype + packet + trailer


def frames():
    reth = struct.pack(">QII", 0x00007F0012345000, 0x1234, 8192)
    deth = struct.pack(">II", 0x11111111, 0x000013)
    aeth_nak = struct.pack(">I", (3 << 5 | 0) << 24 | 7)  # NAK, PSN sequence error, MSN 7
    aeth_ack = struct.pack(">I", 31 << 24 | 8)
    cnp = bytes(16)
    return [
        # RoCE v1 RC SEND Only, untagged, odd payload (pad 3)
        ether(roce_v1(transport(0x04, 0x11, 100, payload=b"hello", ackreq=True))),
        # RoCE v1 UD SEND Only with Immediate in VLAN 100, PCP 3; traffic class and flow label
        ether(roce_v1(transport(0x65, 0x12, 7, deth + struct.pack(">I", 0xFEEDFACE),
                                b"datagram"), tclass=0x60, flow=0x12345, hop=1),
              tags=tag(0x8100, 3, 100)),
        # RoCE v1 NAK in VLAN 100, PCP 5
        ether(roce_v1(transport(0x11, 0x13, 100, aeth_nak), sgid=GID_B, dgid=GID_A),
              tags=tag(0x8100, 5, 100)),
        # RoCEv2/IPv4 RDMA WRITE First in VLAN 5, PCP 5, DSCP 26 and ECN CE
        ether(ipv4(transport(0x06, 0x14, 1000, reth, bytes(range(64))), tos=26 << 2 | 3),
              tags=tag(0x8100, 5, 5)),
        # RoCEv2/IPv6 CNP in 802.1ad S-tag 200 + 802.1Q C-tag 7, DSCP 48
        ether(ipv6(transport(0x81, 0x15, 0, cnp), tclass=48 << 2, flow=0xABCDE),
              tags=tag(0x88A8, 6, 200) + tag(0x8100, 6, 7)),
        # RoCEv2/IPv6 SEND Only behind two destination-options headers (8 and 16 bytes of
        # PadN), which the ICRC covers unmasked as uroce computes it (Annex A17 has no rule:
        # RoCEv2 sends none)
        ether(ipv6(transport(0x04, 0x18, 9, payload=b"behind extension headers"),
                   ext=bytes([60, 0, 1, 4, 0, 0, 0, 0]) + bytes([17, 1, 1, 12]) + bytes(12))),
        # RoCEv2/IPv4 with options (four NOPs) carrying an ACK
        ether(ipv4(transport(0x11, 0x16, 55, aeth_ack), options=b"\x01\x01\x01\x01")),
        # RoCEv2/IPv4 ACK followed by a captured FCS
        ether(ipv4(transport(0x11, 0x17, 56, aeth_ack)), trailer=b"\xde\xad\xbe\xef"),
    ]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                            "layers.pcap")
    with open(out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames()):
            f.write(struct.pack("<IIII", 1700000000, i, len(fr), len(fr)) + fr)


if __name__ == "__main__":
    main()
