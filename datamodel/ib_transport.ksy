meta:
  id: ib_transport
  title: InfiniBand transport packet, BTH to ICRC
  license: MIT
  endian: be
  imports:
    - bth
    - rdeth
    - deth
    - xrceth
    - feth
    - reth
    - atomiceth
    - aeth
    - atomicacketh
    - immdt
    - ieth
    - cnp
    - mad
    - icrc
doc: |
  What every version carries alike: the BTH, the extended headers its opcode calls for, in
  wire order (IBA Vol. 1 9.2 and Table 36; Annex A17.9.3 for the CNP), the payload, its pad
  and the ICRC. In RoCEv2 this is the UDP payload; in RoCE v1 and native InfiniBand it
  follows the GRH or the LRH. The payload of a UD SEND Only to QP0 or QP1 is a MAD.
  A reserved opcode, or one its transport has not, ends the packet after the BTH.
  uroce: src/wire/opcode.h (the same table), src/wire/packet.c.
seq:
  - id: bth
    size: 12
    type: bth
  - id: rdeth
    size: 4
    type: rdeth
    if: known and has_rdeth
  - id: deth
    size: 8
    type: deth
    if: known and has_deth
  - id: xrceth
    size: 4
    type: xrceth
    if: known and has_xrceth
  - id: feth
    size: 4
    type: feth
    if: known and has_feth
  - id: reth
    size: 16
    type: reth
    if: known and has_reth
  - id: atomiceth
    size: 28
    type: atomiceth
    if: known and has_atomiceth
  - id: aeth
    size: 4
    type: aeth
    if: known and has_aeth
  - id: atomicacketh
    size: 8
    type: atomicacketh
    if: known and has_atomicacketh
  - id: immdt
    size: 4
    type: immdt
    if: known and has_immdt
  - id: ieth
    size: 4
    type: ieth
    if: known and has_ieth
  - id: cnp
    size: 16
    type: cnp
    if: known and is_cnp
  - id: payload
    size: _io.size - _io.pos - 4 - bth.pad_count
    type:
      switch-on: is_mad
      cases:
        true: mad
    if: known
  - id: pad
    size: bth.pad_count
    if: known
  - id: icrc
    type: icrc
    if: known
  - id: unknown_rest
    size-eos: true
    if: not known
instances:
  transport:
    value: bth.opcode >> 5
  operation:
    value: bth.opcode & 0x1f
  connected:
    value: transport == 0 or transport == 1 or transport == 2 or transport == 5
    doc: RC, UC, RD, XRC
  is_cnp:
    value: bth.opcode == 0x81
  known:
    value: >-
      ((transport == 0 or transport == 5) and (operation <= 0x14 or operation == 0x16
      or operation == 0x17 or operation == 0x1c or operation == 0x1d))
      or (transport == 1 and operation <= 0x0b)
      or (transport == 2 and operation <= 0x15)
      or (transport == 3 and (operation == 0x04 or operation == 0x05))
      or is_cnp
    doc: the opcode is one its transport has (IBA Table 36, IBA 1.5 for FLUSH and ATOMIC WRITE)
  is_request:
    value: >-
      operation <= 0x0c or operation == 0x13 or operation == 0x14 or operation == 0x15
      or operation == 0x16 or operation == 0x17 or operation == 0x1c or operation == 0x1d
  has_rdeth:
    value: transport == 2
  has_deth:
    value: transport == 3 or (transport == 2 and is_request)
  has_xrceth:
    value: transport == 5 and is_request
  has_feth:
    value: connected and operation == 0x1c
  has_reth:
    value: >-
      connected and (operation == 0x06 or operation == 0x0a or operation == 0x0b
      or operation == 0x0c or operation == 0x1c or operation == 0x1d)
  has_atomiceth:
    value: connected and (operation == 0x13 or operation == 0x14)
  has_aeth:
    value: >-
      connected and (operation == 0x0d or operation == 0x0f or operation == 0x10
      or operation == 0x11 or operation == 0x12)
  has_atomicacketh:
    value: connected and operation == 0x12
  has_immdt:
    value: >-
      (connected or transport == 3) and (operation == 0x03 or operation == 0x05
      or operation == 0x09 or operation == 0x0b)
  has_ieth:
    value: connected and (operation == 0x16 or operation == 0x17)
  has_payload:
    value: >-
      (connected and (operation <= 0x0b or (operation >= 0x0d and operation <= 0x10)
      or operation == 0x16 or operation == 0x17 or operation == 0x1d))
      or transport == 3
    doc: SEND, RDMA WRITE, READ responses and ATOMIC WRITE carry a payload, maybe empty
  is_mad:
    value: known and bth.dest_qp <= 1 and bth.opcode == 0x64
    doc: a UD SEND Only to QP0 or QP1 carries a MAD (IBA 13.4)
