meta:
  id: bth
  title: InfiniBand Base Transport Header
  license: MIT
  endian: be
doc: |
  The 12-byte Base Transport Header that starts every transport packet (IBA Vol. 1 9.2;
  RoCEv2: Annex A17.4). The opcode's upper three bits are the transport (RC, UC, RD, UD,
  CNP, XRC), its lower five the operation (IBA Table 36). FECN and BECN (byte 4) are native
  InfiniBand's congestion bits, which RoCE ignores (CA17-29). uroce: src/wire/ib.c
  uroce_bth_decode, src/wire/opcode.h.
seq:
  - id: opcode
    type: u1
  - id: solicited_event
    type: b1
  - id: mig_req
    type: b1
  - id: pad_count
    type: b2
    doc: bytes of pad after the payload, 0 to 3
  - id: transport_version
    type: b4
  - id: partition_key
    type: u2
  - id: fecn
    type: b1
  - id: becn
    type: b1
  - id: reserved6
    type: b6
  - id: dest_qp
    type: b24
  - id: ack_req
    type: b1
  - id: reserved7
    type: b7
  - id: psn
    type: b24
instances:
  transport:
    value: opcode >> 5
    doc: 0 RC, 1 UC, 2 RD, 3 UD, 4 CNP, 5 XRC (6 reserved, 7 manufacturer-specific)
  operation:
    value: opcode & 0x1f
