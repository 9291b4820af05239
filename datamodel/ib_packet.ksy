meta:
  id: ib_packet
  title: Native InfiniBand packet, LRH to VCRC
  license: MIT
  endian: be
  imports:
    - lrh
    - grh
    - ib_transport
    - vcrc
doc: |
  A packet on an InfiniBand link (IBA Vol. 1 chapter 7): the LRH, a GRH when LNH says so,
  then the transport (LNH 2 and 3) or a raw packet (LNH 0: a raw header and payload; LNH 1:
  an IPv6 packet), and the VCRC. LRH.PktLen counts 4-byte words from the LRH through the
  ICRC; the VCRC follows. uroce: src/wire/packet.c.
seq:
  - id: lrh
    size: 8
    type: lrh
  - id: grh
    size: 40
    type: grh
    if: lrh.lnh == 3
  - id: transport
    size: body_length
    type: ib_transport
    if: lrh.lnh >= 2
  - id: raw
    size: body_length
    if: lrh.lnh < 2
  - id: vcrc
    type: vcrc
instances:
  body_length:
    value: 'lrh.packet_length * 4 - 8 - (lrh.lnh == 3 ? 40 : 0)'
