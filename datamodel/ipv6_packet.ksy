meta:
  id: ipv6_packet
  title: IPv6 fixed header (RFC 8200) carrying RoCEv2
  license: MIT
  endian: be
  imports:
    - udp_datagram
doc: |
  The 40-byte IPv6 header, the extension headers that follow it, and the body, all bounded by
  Payload Length. RoCEv2 over IPv6 sends UDP directly after the header; extension headers
  (RFC 8200 section 4: hop-by-hop, routing, fragment, destination options, mobility, HIP,
  shim6) are walked over as uroce does. uroce: src/wire/ip.c uroce_ipv6_decode.
seq:
  - id: version
    type: b4
  - id: traffic_class
    type: b8
  - id: flow_label
    type: b20
  - id: payload_length
    type: u2
  - id: next_header
    type: u1
  - id: hop_limit
    type: u1
  - id: src
    size: 16
  - id: dst
    size: 16
  - id: extension_headers
    type: 'extension_header(_index == 0 ? next_header : extension_headers[_index - 1].next_header)'
    repeat: until
    repeat-until: not _.followed_by_extension
    if: first_is_extension
  - id: body
    size: payload_length - (_io.pos - 40)
    type:
      switch-on: upper_protocol
      cases:
        17: udp_datagram
types:
  extension_header:
    params:
      - id: kind
        type: u1
        doc: the Next Header value that announced this header
    seq:
      - id: next_header
        type: u1
      - id: length_units
        type: u1
        doc: length in 8-byte units, not counting the first 8 (the fragment header has none)
      - id: data
        size: 'kind == 44 ? 6 : length_units * 8 + 6'
    instances:
      followed_by_extension:
        value: >-
          next_header == 0 or next_header == 43 or next_header == 44 or next_header == 60
          or next_header == 135 or next_header == 139 or next_header == 140
instances:
  first_is_extension:
    value: >-
      next_header == 0 or next_header == 43 or next_header == 44 or next_header == 60
      or next_header == 135 or next_header == 139 or next_header == 140
  upper_protocol:
    value: 'first_is_extension ? extension_headers.last.next_header : next_header'
    doc: what the last extension header (or the header itself) says follows
  dscp:
    value: traffic_class >> 2
  ecn:
    value: traffic_class & 3
