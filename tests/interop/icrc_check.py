#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Verify the ICRC of every RoCEv2 packet in pcap / pcapng files, independently of uroce's code.

The ICRC (IBTA Annex A17.3.3, facts.md section 1) is zlib's CRC-32 over:
  8 bytes of 0xFF (the masked LRH),
  the IP header with its variant fields set to ones (IPv4: TOS, TTL, header checksum;
  IPv6: traffic class, flow label, hop limit),
  the UDP header with the checksum set to 0xFFFF,
  the BTH with byte 4 (FECN, BECN, reserved) set to 0xFF,
  the rest of the packet up to the ICRC,
and is stored least-significant byte first. Only the Python standard library is used
(zlib.crc32, struct); with --scapy, every IPv4 packet is also checked with scapy's RoCE layer
(scapy.contrib.roce.BTH.compute_icrc) and the two must agree.

Usage: icrc_check.py [--scapy] FILE...
       icrc_check.py --mutate {masked,unmasked} IN OUT
         writes a copy of IN (as pcap) where every RoCEv2 packet is changed:
         masked:   TOS/ECN, TTL, IPv4 checksum, UDP checksum and BTH byte 4 (or IPv6 traffic
                   class, flow label, hop limit) set to other values: every ICRC must still verify;
         unmasked: one bit flipped in a field the ICRC covers (a different position in each
                   packet, from the IP addresses to the ICRC itself): every ICRC must fail.

Prints one summary line per file ("FILE: N RoCEv2 packets, N ICRC ok, 0 bad") and one line per
bad packet. Exit status: 0 when every RoCEv2 packet verifies and there was at least one, 1 when
an ICRC is bad (or scapy disagrees), 2 on unreadable input or no RoCEv2 packet at all.
"""
import struct
import sys
import zlib

ROCE_PORT = 4791
LINKTYPE_NULL, LINKTYPE_ETHERNET, LINKTYPE_RAW, LINKTYPE_LINUX_SLL = 0, 1, 101, 113
LINKTYPE_IPV4, LINKTYPE_IPV6, LINKTYPE_LINUX_SLL2 = 228, 229, 276


class InputError(Exception):
    pass


def read_pcap(data):
    """Yields (linktype, frame bytes) from a classic pcap file."""
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        e = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = ">"
    else:
        raise InputError("not a pcap file")
    if len(data) < 24:
        raise InputError("truncated pcap header")
    linktype = struct.unpack(e + "I", data[20:24])[0] & 0x0FFFFFFF
    off = 24
    while off + 16 <= len(data):
        incl, orig = struct.unpack(e + "II", data[off + 8:off + 16])
        frame = data[off + 16:off + 16 + incl]
        if len(frame) < incl:
            raise InputError("truncated record at offset %d" % off)
        yield linktype, frame, incl < orig
        off += 16 + incl


def read_pcapng(data):
    """Yields (linktype, frame bytes, truncated) from a pcapng file."""
    off, e, linktypes = 0, "<", []
    while off + 12 <= len(data):
        btype = struct.unpack(e + "I", data[off:off + 4])[0]
        if btype == 0x0A0D0D0A:  # section header: byte order, new interface numbering
            bom = data[off + 8:off + 12]
            e = "<" if bom == b"\x4d\x3c\x2b\x1a" else ">"
            linktypes = []
        blen = struct.unpack(e + "I", data[off + 4:off + 8])[0]
        if blen < 12 or off + blen > len(data):
            raise InputError("bad block length at offset %d" % off)
        body = data[off + 8:off + blen - 4]
        if btype == 1:  # interface description
            linktypes.append(struct.unpack(e + "H", body[:2])[0])
        elif btype == 6:  # enhanced packet
            ifid, _, _, cap, orig = struct.unpack(e + "IIIII", body[:20])
            yield linktypes[ifid], body[20:20 + cap], cap < orig
        elif btype == 3:  # simple packet (interface 0)
            orig = struct.unpack(e + "I", body[:4])[0]
            frame = body[4:4 + orig]
            yield linktypes[0], frame, len(frame) < orig
        off += blen


def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"\x0a\x0d\x0d\x0a":
        return list(read_pcapng(data))
    return list(read_pcap(data))


def network_offset(linktype, frame):
    """Returns (offset of the IP header, IP version) or None for frames that carry no IP."""
    if linktype == LINKTYPE_ETHERNET:
        off, etype = 12, None
        while off + 2 <= len(frame):
            etype = struct.unpack("!H", frame[off:off + 2])[0]
            if etype in (0x8100, 0x88A8, 0x9100):  # VLAN tags
                off += 4
                continue
            off += 2
            break
        return {0x0800: (off, 4), 0x86DD: (off, 6)}.get(etype)
    if linktype == LINKTYPE_LINUX_SLL and len(frame) >= 16:
        etype = struct.unpack("!H", frame[14:16])[0]
        return {0x0800: (16, 4), 0x86DD: (16, 6)}.get(etype)
    if linktype == LINKTYPE_LINUX_SLL2 and len(frame) >= 20:
        etype = struct.unpack("!H", frame[0:2])[0]
        return {0x0800: (20, 4), 0x86DD: (20, 6)}.get(etype)
    if linktype == LINKTYPE_NULL and len(frame) >= 4:
        fam = struct.unpack("<I", frame[:4])[0]
        if fam == 2:
            return 4, 4
        if fam in (10, 24, 28, 30):
            return 4, 6
        return None
    if linktype in (LINKTYPE_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6) and frame:
        v = frame[0] >> 4
        return (0, v) if v in (4, 6) else None
    return None


class RocePacket:
    """The byte ranges of one RoCEv2 packet inside its frame."""

    def __init__(self, frame, ip, version):
        self.frame, self.ip, self.version = frame, ip, version
        if version == 4:
            ihl = (frame[ip] & 0x0F) * 4
            total = struct.unpack("!H", frame[ip + 2:ip + 4])[0]
            if frame[ip + 9] != 17 or ihl < 20:
                raise ValueError("not UDP")
            self.udp = ip + ihl
            self.end = ip + total
        else:
            if frame[ip + 6] != 17:  # extension headers: not RoCEv2 as rxe and the spec use it
                raise ValueError("not UDP")
            self.udp = ip + 40
            self.end = self.udp + struct.unpack("!H", frame[ip + 4:ip + 6])[0]
        if self.end > len(frame):
            raise IndexError("truncated")
        dport = struct.unpack("!H", frame[self.udp + 2:self.udp + 4])[0]
        if dport != ROCE_PORT:
            raise ValueError("not RoCEv2")
        ulen = struct.unpack("!H", frame[self.udp + 4:self.udp + 6])[0]
        if self.udp + ulen != self.end or ulen < 8 + 12 + 4:
            raise IndexError("UDP length %d does not fit" % ulen)
        self.bth = self.udp + 8

    def stored(self):
        return struct.unpack("<I", self.frame[self.end - 4:self.end])[0]

    def computed(self):
        f = self.frame
        ip = bytearray(f[self.ip:self.udp])
        if self.version == 4:
            ip[1] = 0xFF  # TOS (DSCP + ECN)
            ip[8] = 0xFF  # TTL
            ip[10:12] = b"\xff\xff"  # header checksum
        else:
            ip[0] |= 0x0F  # traffic class, high nibble
            ip[1:4] = b"\xff\xff\xff"  # traffic class low nibble + flow label
            ip[7] = 0xFF  # hop limit
        udp = bytearray(f[self.udp:self.bth])
        udp[6:8] = b"\xff\xff"
        bth = bytearray(f[self.bth:self.bth + 12])
        bth[4] = 0xFF
        crc = zlib.crc32(b"\xff" * 8)
        for part in (ip, udp, bth, f[self.bth + 12:self.end - 4]):
            crc = zlib.crc32(part, crc)
        return crc & 0xFFFFFFFF


def roce_packets(path):
    """Yields (frame number, RocePacket or an error string) for every RoCEv2 frame."""
    for n, (linktype, frame, truncated) in enumerate(frames(path), 1):
        net = network_offset(linktype, frame)
        if not net:
            continue
        try:
            pkt = RocePacket(frame, *net)
        except ValueError:
            continue
        except (IndexError, struct.error):
            if truncated:
                yield n, "cut by the snap length"
            else:
                yield n, "malformed"
            continue
        yield n, pkt


def scapy_icrc(frame, linktype):
    """scapy's ICRC of the frame (IPv4 only), or None when scapy cannot decode it."""
    from scapy.contrib.roce import BTH
    from scapy.layers.inet import IP
    from scapy.layers.l2 import Ether
    from scapy.packet import raw

    p = Ether(frame) if linktype == LINKTYPE_ETHERNET else IP(frame)
    if BTH not in p:
        return None
    b = p[BTH]
    return struct.unpack("<I", b.compute_icrc(raw(b)))[0]


def check(path, use_scapy):
    total = ok = bad = other = agree = 0
    linktypes = {}
    for n, (lt, _, _) in enumerate(frames(path), 1):
        linktypes[n] = lt
    for n, pkt in roce_packets(path):
        total += 1
        if isinstance(pkt, str):
            other += 1
            print("%s: frame %d: %s" % (path, n, pkt))
            continue
        want, got = pkt.computed(), pkt.stored()
        if want == got:
            ok += 1
        else:
            bad += 1
            print("%s: frame %d: ICRC 0x%08x on the wire, 0x%08x computed" % (path, n, got, want))
        if use_scapy and pkt.version == 4:
            s = scapy_icrc(pkt.frame[:pkt.end], linktypes[n]) if linktypes[n] == LINKTYPE_ETHERNET \
                else scapy_icrc(pkt.frame[pkt.ip:pkt.end], LINKTYPE_RAW)
            if s == want:
                agree += 1
            else:
                bad += 1
                print("%s: frame %d: scapy computes 0x%s, this script 0x%08x" %
                      (path, n, "None" if s is None else "%08x" % s, want))
    line = "%s: %d RoCEv2 packets, %d ICRC ok, %d bad" % (path, total, ok, bad)
    if other:
        line += ", %d not checkable" % other
    if use_scapy:
        line += "; scapy agrees on %d" % agree
    print(line)
    if bad:
        return 1
    return 2 if ok == 0 else 0


def write_pcap(path, records):
    with open(path, "wb") as f:
        lt = records[0][0] if records else LINKTYPE_ETHERNET
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, lt))
        for i, (rlt, frame) in enumerate(records):
            if rlt != lt:
                raise InputError("several link types: cannot write one pcap")
            f.write(struct.pack("<IIII", i, 0, len(frame), len(frame)))
            f.write(frame)


def mutate(src, dst, mode):
    records = []
    changed = 0
    for n, (lt, frame, truncated) in enumerate(frames(src), 1):
        frame = bytearray(frame)
        net = None if truncated else network_offset(lt, frame)
        pkt = None
        if net:
            try:
                pkt = RocePacket(bytes(frame), *net)
            except (ValueError, IndexError, struct.error):
                pkt = None
        if pkt:
            ip, udp, bth = pkt.ip, pkt.udp, pkt.bth
            if mode == "masked":
                if pkt.version == 4:
                    frame[ip + 1] ^= 0x03 | (n & 0xFC)  # ECN CE and a DSCP
                    frame[ip + 8] = (frame[ip + 8] - 1 - n % 200) & 0xFF  # TTL
                    frame[ip + 10] ^= 0x5A  # header checksum
                else:
                    frame[ip] ^= 0x0F
                    frame[ip + 1] ^= 0xFF
                    frame[ip + 3] ^= n & 0xFF
                    frame[ip + 7] = (frame[ip + 7] - 1) & 0xFF
                frame[udp + 6] ^= 0xA5  # UDP checksum
                frame[bth + 4] ^= 0xC0  # FECN, BECN
            else:
                # A covered bit, from the source address (IPv4 byte 12 / IPv6 byte 8) to the
                # last byte of the ICRC, a different one in each packet. Left out: the masked
                # bytes (UDP checksum, BTH byte 4) and the UDP destination port and length,
                # without which the packet would no longer be found as RoCEv2 at all.
                first = ip + (12 if pkt.version == 4 else 8)
                covered = [i for i in range(first, pkt.end)
                           if i not in (udp + 2, udp + 3, udp + 4, udp + 5, udp + 6, udp + 7,
                                        bth + 4)]
                pos = covered[(n * 7919) % len(covered)]
                frame[pos] ^= 1 << (n % 8)
            changed += 1
        records.append((lt, bytes(frame)))
    write_pcap(dst, records)
    print("%s: %d RoCEv2 packets changed (%s) -> %s" % (src, changed, mode, dst))
    return 0 if changed else 2


def main(argv):
    args = argv[1:]
    if len(args) == 4 and args[0] == "--mutate" and args[1] in ("masked", "unmasked"):
        return mutate(args[2], args[3], args[1])
    use_scapy = "--scapy" in args
    files = [a for a in args if not a.startswith("--")]
    if not files or len(files) + use_scapy != len(args):
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        return 2
    if use_scapy:
        try:
            import scapy.contrib.roce  # noqa: F401
        except ImportError as e:
            print("scapy with its RoCE layer is not available (%s)" % e, file=sys.stderr)
            return 2
    status = 0
    for path in files:
        try:
            status = max(status, check(path, use_scapy))
        except (OSError, InputError) as e:
            print("%s: %s" % (path, e))
            status = 2
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
