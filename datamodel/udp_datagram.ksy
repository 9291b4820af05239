meta:
  id: udp_datagram
  title: UDP header (RFC 768); destination port 4791 is RoCEv2
  license: MIT
  endian: be
  imports:
    - ib_transport
doc: |
  The UDP header, its body bounded by Length. Destination port 4791 carries the InfiniBand
  transport from the BTH to the ICRC (Annex A17.4); the source port is flow entropy
  (A17.9.4) and the checksum is usually 0 over IPv4. uroce: src/wire/ip.c.
seq:
  - id: src_port
    type: u2
  - id: dst_port
    type: u2
  - id: length
    type: u2
  - id: checksum
    type: u2
  - id: body
    size: length - 8
    type:
      switch-on: dst_port
      cases:
        4791: ib_transport
