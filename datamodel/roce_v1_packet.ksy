meta:
  id: roce_v1_packet
  title: RoCE v1 packet (EtherType 0x8915)
  license: MIT
  endian: be
  imports:
    - grh
    - ib_transport
doc: |
  RoCE v1 carries the InfiniBand GRH and transport directly in an Ethernet frame: no LRH, no
  IP, no UDP (RoCE v1 specification sections 2 and 6; Annex A17 for the version). The GRH's
  Payload Length bounds the transport, BTH to ICRC.
seq:
  - id: grh
    size: 40
    type: grh
  - id: transport
    size: grh.payload_length
    type: ib_transport
