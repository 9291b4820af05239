meta:
  id: grh
  title: InfiniBand Global Route Header
  license: MIT
  endian: be
doc: |
  The 40-byte Global Route Header (IBA Vol. 1 8.3), laid out as an IPv6 header: after the
  LRH in native InfiniBand when LNH is 3, first after the Ethernet header in RoCE v1. Next
  Header 0x1B says an IBA transport header follows. The GIDs are 16 bytes each.
  uroce: src/wire/ib.c uroce_grh_decode.
seq:
  - id: ip_version
    type: b4
  - id: traffic_class
    type: b8
  - id: flow_label
    type: b20
  - id: payload_length
    type: u2
    doc: bytes after the GRH through the ICRC
  - id: next_header
    type: u1
  - id: hop_limit
    type: u1
  - id: sgid
    size: 16
  - id: dgid
    size: 16
