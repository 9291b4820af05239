# SPDX-License-Identifier: MIT
"""Parses capture files with the datamodel (datamodel/*.ksy compiled to Python by compile.js,
run by Debian's python3-kaitaistruct) and compares every header field with uroce-dump's
`-T json` output of the same files, frame by frame, in both directions: a field one side
shows and the other does not is a difference too. Any difference fails (exit 1).

Usage: python3 check.py --dump UROCE_DUMP --model COMPILED_DIR CAPTURE...

The captures are read here (pcap, pcapng, raw ERF), independently of uroce's own reader;
the containers are not part of the datamodel, only what they carry."""
import argparse
import ipaddress
import json
import struct
import subprocess
import sys

# uroce-dump fields that are the datamodel's business: those of the headers it describes.
# Field names starting with one of these prefixes are compared (after DERIVED is removed).
COVERED = (
    "eth.", "vlan.", "ieee8021ad.", "ip.", "uroce.ip.", "ipv6.", "udp.",
    "infiniband.lrh", "infiniband.grh", "infiniband.bth", "uroce.bth.",
    "infiniband.rdeth", "infiniband.deth", "uroce.xrceth", "uroce.feth", "infiniband.reth",
    "infiniband.atomiceth", "infiniband.aeth", "infiniband.atomicacketh", "infiniband.immdt",
    "infiniband.ieth", "uroce.cnp", "infiniband.payload", "uroce.payload.len",
    "uroce.atomic_write.", "infiniband.invariant.crc", "infiniband.variant.crc",
    "infiniband.mad",
)
# Covered names that are interpretations, not wire fields: uroce-dump's explanations.
DERIVED = {"uroce.aeth.meaning", "uroce.aeth.credits"}


def opt(obj, name):
    """A field the datamodel reads only under a condition (`if:`): None when absent."""
    return getattr(obj, name, None)


def hexs(b):
    return bytes(b).hex()


def mac(b):
    return ":".join("%02x" % x for x in b)


def ip6(b):
    return str(ipaddress.IPv6Address(bytes(b)))


# --- captures -------------------------------------------------------------------------------

LINK_ETHERNET, LINK_RAW, LINK_ERF, LINK_IPV4, LINK_IPV6 = 1, 101, 197, 228, 229


def read_pcap(data):
    magic = data[:4]
    order = {b"\xd4\xc3\xb2\xa1": "<", b"\x4d\x3c\xb2\xa1": "<",
             b"\xa1\xb2\xc3\xd4": ">", b"\xa1\xb2\x3c\x4d": ">"}[magic]
    link = struct.unpack(order + "I", data[20:24])[0] & 0x0FFFFFFF
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack(order + "I", data[off + 8:off + 12])[0]
        yield link, data[off + 16:off + 16 + incl]
        off += 16 + incl


def read_pcapng(data):
    off, order, links = 0, "<", []
    while off + 12 <= len(data):
        btype = struct.unpack(order + "I", data[off:off + 4])[0]
        if btype == 0x0A0D0D0A:  # section header: its byte-order magic sets the order
            order = "<" if data[off + 8:off + 12] == b"\x4d\x3c\x2b\x1a" else ">"
            links = []
        blen = struct.unpack(order + "I", data[off + 4:off + 8])[0]
        body = data[off + 8:off + blen - 4]
        if btype == 1:  # interface description
            links.append(struct.unpack(order + "H", body[:2])[0])
        elif btype == 6:  # enhanced packet
            iface, _, _, caplen = struct.unpack(order + "IIII", body[:16])
            yield links[iface], body[20:20 + caplen]
        elif btype == 3:  # simple packet
            yield links[0], body[4:]
        off += blen


def erf_payload(rec):
    """The packet inside one ERF record (header, extension headers, and for Ethernet types
    the 2-byte pad); returns (link, bytes)."""
    rtype = rec[8]
    off = 16
    more = rtype & 0x80
    while more:
        more = rec[off] & 0x80
        off += 8
    rlen, wlen = struct.unpack(">HxxH", rec[10:16])
    body = rec[off:min(rlen, off + wlen)]
    if rtype & 0x7F == 21:  # InfiniBand
        return "ib", body
    if rtype & 0x7F == 2:  # Ethernet
        return LINK_ETHERNET, body[2:]
    return None, body


def read_erf(data):
    off = 0
    while off + 16 <= len(data):
        rlen = struct.unpack(">H", data[off + 10:off + 12])[0]
        yield erf_payload(data[off:off + rlen])
        off += rlen


def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"\x0a\x0d\x0d\x0a":
        reader = read_pcapng(data)
    elif data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\xc3\xd4",
                      b"\xa1\xb2\x3c\x4d"):
        reader = read_pcap(data)
    else:
        reader = read_erf(data)
    for link, frame in reader:
        if link == LINK_ERF:
            link, frame = erf_payload(frame)
        yield link, frame


# --- the datamodel's parse, as uroce-dump field names ----------------------------------------

class Fields(dict):
    def add(self, key, value):
        if key in self:  # a field that occurs twice in a frame (two VLAN tags)
            prev = self[key]
            self[key] = (prev if isinstance(prev, list) else [prev]) + [value]
        else:
            self[key] = value


def from_ethernet(f, e):
    f.add("eth.dst", mac(e.dst))
    f.add("eth.src", mac(e.src))
    f.add("eth.type", e.ether_type)
    tpid = e.ether_type
    for t in (opt(e, "tags") or []):
        name = "ieee8021ad" if tpid == 0x88A8 else "vlan"
        f.add(name + ".priority", t.pcp)
        f.add(name + ".dei", t.dei)
        f.add(name + ".id", t.vid)
        if name == "vlan":
            f.add("vlan.etype", t.ether_type)
        tpid = t.ether_type
    body = opt(e, "body")
    if body is None or isinstance(body, bytes):
        return
    kind = type(body).__name__
    if kind == "Ipv4Packet":
        from_ipv4(f, body)
    elif kind == "Ipv6Packet":
        from_ipv6(f, body)
    elif kind == "RoceV1Packet":
        from_grh(f, body.grh, body._raw_grh)
        from_transport(f, body.transport)


def from_ipv4(f, p):
    f.add("ip.version", p.version)
    f.add("ip.hdr_len", p.header_length)
    f.add("ip.dsfield", p.tos)
    f.add("ip.dsfield.dscp", p.dscp)
    f.add("ip.dsfield.ecn", p.ecn)
    f.add("ip.len", p.total_length)
    f.add("ip.id", p.identification)
    f.add("ip.flags", p.flags)
    f.add("ip.flags.df", p.flag_df)
    f.add("ip.flags.mf", p.flag_mf)
    f.add("ip.ttl", p.ttl)
    f.add("ip.proto", p.protocol)
    f.add("ip.checksum", p.header_checksum)
    f.add("ip.src", str(ipaddress.IPv4Address(p.src)))
    f.add("ip.dst", str(ipaddress.IPv4Address(p.dst)))
    f.add("uroce.ip.options", len(p.options) > 0)
    from_udp(f, opt(p, "body"))


def from_ipv6(f, p):
    f.add("ipv6.version", p.version)
    f.add("ipv6.tclass", p.traffic_class)
    f.add("ipv6.tclass.dscp", p.dscp)
    f.add("ipv6.tclass.ecn", p.ecn)
    f.add("ipv6.flow", p.flow_label)
    f.add("ipv6.plen", p.payload_length)
    f.add("ipv6.nxt", p.next_header)
    f.add("ipv6.hlim", p.hop_limit)
    f.add("ipv6.src", ip6(p.src))
    f.add("ipv6.dst", ip6(p.dst))
    ext = opt(p, "extension_headers") or []
    if ext:
        f.add("uroce.ipv6.ext_len", sum(2 + len(h.data) for h in ext))
    from_udp(f, opt(p, "body"))


def from_udp(f, u):
    if u is None or isinstance(u, bytes):
        return
    f.add("udp.srcport", u.src_port)
    f.add("udp.dstport", u.dst_port)
    f.add("udp.length", u.length)
    f.add("udp.checksum", u.checksum)
    if not isinstance(u.body, bytes):
        from_transport(f, u.body)


def from_ib(f, p):
    lrh = p.lrh
    f.add("infiniband.lrh", hexs(p._raw_lrh))
    for key, value in (("vl", lrh.vl), ("lver", lrh.lver), ("sl", lrh.sl),
                       ("reserved2", lrh.reserved2), ("lnh", lrh.lnh), ("dlid", lrh.dlid),
                       ("reserved5", lrh.reserved5), ("pktlen", lrh.packet_length),
                       ("slid", lrh.slid)):
        f.add("infiniband.lrh." + key, value)
    if opt(p, "grh") is not None:
        from_grh(f, p.grh, p._raw_grh)
    if opt(p, "transport") is not None:
        from_transport(f, p.transport)
    f.add("infiniband.variant.crc", p.vcrc.value)


def from_grh(f, g, raw):
    f.add("infiniband.grh", hexs(raw))
    for key, value in (("ipver", g.ip_version), ("tclass", g.traffic_class),
                       ("flowlabel", g.flow_label), ("paylen", g.payload_length),
                       ("nxthdr", g.next_header), ("hoplmt", g.hop_limit),
                       ("sgid", ip6(g.sgid)), ("dgid", ip6(g.dgid))):
        f.add("infiniband.grh." + key, value)


# Extended headers: (attribute of ib_transport, uroce-dump name of its bytes, its fields as
# (uroce-dump name, attribute)). One table for every header. uroce-dump keeps tshark's names,
# which give the AtomicETH's address and R_Key the RETH's.
EXT = (
    ("rdeth", "infiniband.rdeth", (("infiniband.rdeth.eecnxt", "ee_context"),)),
    ("deth", "infiniband.deth", (("infiniband.deth.q_key", "q_key"),
                                 ("infiniband.deth.srcqp", "src_qp"))),
    ("xrceth", "uroce.xrceth", (("uroce.xrceth.xrcsrq", "xrc_srq"),)),
    ("feth", "uroce.feth", (("uroce.feth.sel", "selectivity_level"),
                            ("uroce.feth.plt", "placement_type"))),
    ("reth", "infiniband.reth", (("infiniband.reth.va", "virtual_address"),
                                 ("infiniband.reth.r_key", "r_key"),
                                 ("infiniband.reth.dmalen", "dma_length"))),
    ("atomiceth", "infiniband.atomiceth", (("infiniband.reth.va", "virtual_address"),
                                           ("infiniband.reth.r_key", "r_key"),
                                           ("infiniband.atomiceth.swapdt", "swap_or_add_data"),
                                           ("infiniband.atomiceth.cmpdt", "compare_data"))),
    ("aeth", "infiniband.aeth", (("infiniband.aeth.syndrome", "syndrome"),
                                 ("infiniband.aeth.msn", "msn"))),
    ("atomicacketh", "infiniband.atomicacketh",
     (("infiniband.atomicacketh.origremdt", "original_remote_data"),)),
    ("immdt", "infiniband.immdt", ()),
    ("ieth", "infiniband.ieth", ()),
    ("cnp", "uroce.cnp", (("uroce.cnp.reserved", "reserved"),)),
)
# The AETH syndrome's value by its type (IBA 9.3.6): ACK, RNR NAK, reserved, NAK.
AETH_VALUE = ("credit_count", "timer", "reserved_value", "error_code")
BTH = (("opcode", "opcode"), ("se", "solicited_event"), ("m", "mig_req"),
       ("padcnt", "pad_count"), ("tver", "transport_version"), ("p_key", "partition_key"),
       ("destqp", "dest_qp"), ("a", "ack_req"), ("reserved7", "reserved7"), ("psn", "psn"))
MAD = (("baseversion", "base_version"), ("mgmtclass", "mgmt_class"),
       ("classversion", "class_version"), ("method", "method"), ("status", "status"),
       ("classspecific", "class_specific"), ("transactionid", "transaction_id"),
       ("attributeid", "attribute_id"), ("attributemodifier", "attribute_modifier"))


def from_transport(f, t):
    b = t.bth
    f.add("infiniband.bth", hexs(t._raw_bth))
    for key, attr in BTH:
        f.add("infiniband.bth." + key, getattr(b, attr))
    for key, attr in (("fecn", "fecn"), ("becn", "becn"), ("reserved6", "reserved6")):
        f.add("uroce.bth." + key, getattr(b, attr))
    if not t.known:
        return
    for attr, name, subfields in EXT:
        h = opt(t, attr)
        if h is None:
            continue
        # the header's bytes; uroce-dump shows a CNP's presence as true
        f.add(name, True if attr == "cnp" else hexs(getattr(t, "_raw_" + attr)))
        for key, sub in subfields:
            value = getattr(h, sub)
            f.add(key, hexs(value) if isinstance(value, bytes) else value)
        if attr == "aeth":
            f.add("infiniband.aeth.syndrome.reserved", int(h.syndrome_reserved))
            f.add("infiniband.aeth.syndrome.opcode", h.syndrome_type)
            f.add("infiniband.aeth.syndrome." + AETH_VALUE[h.syndrome_type], h.syndrome_value)
    payload = t._raw_payload if t.is_mad else t.payload
    if payload:
        f.add("infiniband.payload", hexs(payload))
    if t.has_payload:
        f.add("uroce.payload.len", len(payload))
    if t.operation == 0x1D and t.connected:  # ATOMIC WRITE: its 8 bytes, a big-endian value
        f.add("uroce.atomic_write.data", int.from_bytes(payload, "big"))
    if t.is_mad:
        m = t.payload
        f.add("infiniband.mad", hexs(payload))
        for key, attr in MAD:
            f.add("infiniband.mad." + key, getattr(m, attr))
        f.add("infiniband.mad.data", hexs(m.data))
    # uroce-dump, as tshark, shows the ICRC's four bytes in wire order read as a big-endian
    # number; the datamodel reads the CRC's value (stored least significant byte first).
    f.add("infiniband.invariant.crc", int.from_bytes(t.icrc.value.to_bytes(4, "little"), "big"))


def parse(models, link, frame):
    """Returns (fields, error): the datamodel's fields of one frame, or the parse error."""
    f = Fields()
    try:
        if link == LINK_ETHERNET:
            from_ethernet(f, models["ethernet_frame"].EthernetFrame.from_bytes(frame))
        elif link == "ib":
            from_ib(f, models["ib_packet"].IbPacket.from_bytes(frame))
        elif link in (LINK_RAW, LINK_IPV4, LINK_IPV6):
            if frame[0] >> 4 == 4:
                from_ipv4(f, models["ipv4_packet"].Ipv4Packet.from_bytes(frame))
            else:
                from_ipv6(f, models["ipv6_packet"].Ipv6Packet.from_bytes(frame))
        else:
            return f, "link type %s is not one the datamodel starts from" % link
    except Exception as e:  # a truncated or malformed frame: EOFError, ValidationError ...
        return f, "%s: %s" % (type(e).__name__, e)
    return f, None


# --- comparison ------------------------------------------------------------------------------

def normal(v):
    """One form for both sides: uroce-dump writes integers above 2^53 as strings (decimal,
    or 0x-hex for hexadecimal fields) and booleans as true/false."""
    if isinstance(v, list):
        return [normal(x) for x in v]
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, str):
        try:
            return int(v, 16) if v.startswith("0x") else int(v) if v.isdigit() else v
        except ValueError:
            return v
    return v


def covered(key):
    return key.startswith(COVERED) and key not in DERIVED


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dump", required=True, help="the uroce-dump binary")
    ap.add_argument("--model", required=True, help="the compiled datamodel (Python)")
    ap.add_argument("captures", nargs="+")
    args = ap.parse_args()

    sys.path.insert(0, args.model)
    import importlib
    models = {name: importlib.import_module(name)
              for name in ("ethernet_frame", "ib_packet", "ipv4_packet", "ipv6_packet")}

    total_diffs = total_fields = total_frames = 0
    for path in args.captures:
        out = subprocess.run([args.dump, "-T", "json", "-r", path], check=True,
                             capture_output=True, text=True).stdout
        dumped = [json.loads(line) for line in out.splitlines() if line.strip()]
        diffs = compared = 0
        ours = list(frames(path))
        if len(ours) != len(dumped):
            print("%s: %d frames read here, %d by uroce-dump" % (path, len(ours), len(dumped)))
            diffs += 1
        for n, ((link, frame), d) in enumerate(zip(ours, dumped), 1):
            model, err = parse(models, link, frame)
            theirs = {k: v for k, v in d.items() if covered(k)}
            mine = {k: v for k, v in model.items() if covered(k)}
            if err and not d.get("uroce.malformed"):
                diffs += 1
                if diffs <= 40:
                    print("%s frame %d: the datamodel cannot parse it (%s), uroce-dump can"
                          % (path, n, err))
            for key in sorted(set(theirs) | set(mine)):
                a, b = normal(mine.get(key)), normal(theirs.get(key))
                if err and key not in mine:
                    continue  # the datamodel stopped where the frame is malformed
                compared += 1
                if a != b:
                    diffs += 1
                    if diffs <= 40:
                        print("%s frame %d: %s: datamodel %r, uroce-dump %r"
                              % (path, n, key, mine.get(key), theirs.get(key)))
        print("%s: %d frames, %d fields compared, %d differences"
              % (path, len(dumped), compared, diffs))
        if compared == 0:
            print("%s: nothing compared" % path)
            diffs += 1
        total_diffs += diffs
        total_fields += compared
        total_frames += len(dumped)
    print("datamodel check: %d captures, %d frames, %d fields compared, %d differences"
          % (len(args.captures), total_frames, total_fields, total_diffs))
    return 1 if total_diffs else 0


if __name__ == "__main__":
    sys.exit(main())
