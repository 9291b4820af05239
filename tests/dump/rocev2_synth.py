# SPDX-License-Identifier: MIT
"""Hand-built RoCEv2/IPv4 frames and pcap files for the uroce-dump tests (test_flows.sh,
test_flows_series.sh): Ethernet, IPv4 (DF, TTL 64, header checksum), UDP to 4791 (checksum 0)
and the BTH, with the ICRC computed as docs/facts.md section 1 gives it (zlib's CRC-32 over
the masked headers), so that every frame verifies."""
import struct
import zlib


def frame(src, dst, opcode, qp, psn, ext=b"", payload=b"", ackreq=False, tos=0):
    """One frame from src to dst (4-byte addresses), BTH opcode and destination QP, PSN psn
    (ackreq sets the A bit), the extended headers ext, then payload and its pad."""
    pad = -len(payload) % 4
    bth = struct.pack(">BBHII", opcode, pad << 4, 0xFFFF, qp, ackreq << 31 | psn)
    body = bth + ext + payload + bytes(pad)
    udp = struct.pack(">HHHH", 0xC000, 4791, 8 + len(body) + 4, 0)
    ip = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, tos, 28 + len(body) + 4, 0, 0x4000, 64,
                               17, 0, src, dst))
    s = sum(struct.unpack(">10H", ip))
    s = (s & 0xFFFF) + (s >> 16)
    ip[10:12] = struct.pack(">H", ~(s + (s >> 16)) & 0xFFFF)
    mip, mbth = bytearray(ip), bytearray(bth)
    mip[1] = mip[8] = mip[10] = mip[11] = mbth[4] = 0xFF
    crc = zlib.crc32(b"\xff" * 8 + mip + udp[:6] + b"\xff\xff" + mbth + body[12:])
    return (b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip + udp + body +
            struct.pack("<I", crc))


def write_pcap(path, frames):
    """A pcap file (Ethernet, microseconds) of (time in microseconds, frame) pairs."""
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for t, f in frames:
            out.write(struct.pack("<IIII", 1 + t // 1000000, t % 1000000, len(f), len(f)) + f)
