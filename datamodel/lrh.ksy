meta:
  id: lrh
  title: InfiniBand Local Route Header
  license: MIT
  endian: be
doc: |
  The 8-byte Local Route Header of native InfiniBand (IBA Vol. 1 7.7). RoCE has none.
  uroce: src/wire/ib.c uroce_lrh_decode.
seq:
  - id: vl
    type: b4
    doc: virtual lane
  - id: lver
    type: b4
    doc: link version
  - id: sl
    type: b4
    doc: service level
  - id: reserved2
    type: b2
  - id: lnh
    type: b2
    doc: |
      what follows the LRH: 0 a raw header, 1 an IPv6 packet, 2 the BTH, 3 a GRH then
      the BTH
  - id: dlid
    type: u2
  - id: reserved5
    type: b5
  - id: packet_length
    type: b11
    doc: 4-byte words from the LRH through the ICRC
  - id: slid
    type: u2
