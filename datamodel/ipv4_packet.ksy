meta:
  id: ipv4_packet
  title: IPv4 header (RFC 791) carrying RoCEv2
  license: MIT
  endian: be
  imports:
    - udp_datagram
doc: |
  The IPv4 header; its body is bounded by Total Length, so that Ethernet padding after it is
  not read as the datagram. RoCEv2 sets DF and carries ECN in the low two bits of the
  Type of Service byte (Annex A17.9.1). uroce: src/wire/ip.c.
seq:
  - id: version
    type: b4
  - id: ihl
    type: b4
    doc: header length in 32-bit words
  - id: dscp
    type: b6
  - id: ecn
    type: b2
  - id: total_length
    type: u2
  - id: identification
    type: u2
  - id: flag_reserved
    type: b1
  - id: flag_df
    type: b1
    doc: don't fragment
  - id: flag_mf
    type: b1
    doc: more fragments
  - id: fragment_offset
    type: b13
  - id: ttl
    type: u1
  - id: protocol
    type: u1
  - id: header_checksum
    type: u2
  - id: src
    size: 4
  - id: dst
    size: 4
  - id: options
    size: ihl * 4 - 20
  - id: body
    size: total_length - ihl * 4
    type:
      switch-on: protocol
      cases:
        17: udp_datagram
instances:
  header_length:
    value: ihl * 4
  flags:
    value: '(flag_reserved ? 4 : 0) | (flag_df ? 2 : 0) | (flag_mf ? 1 : 0)'
  tos:
    value: dscp << 2 | ecn
