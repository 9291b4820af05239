meta:
  id: ethernet_frame
  title: Ethernet II frame, with 802.1Q / 802.1ad tags, as RoCE carries it
  license: MIT
  endian: be
  imports:
    - vlan_tag
    - ipv4_packet
    - ipv6_packet
    - roce_v1_packet
doc: |
  An Ethernet II frame without its FCS (captures and NICs strip it): destination and source
  MAC, EtherType, and as many VLAN tags as the frame carries (802.1ad S-tag 0x88A8, 802.1Q
  C-tag 0x8100), each with the EtherType of what follows it. RoCEv2 rides IPv4 (0x0800) or
  IPv6 (0x86DD); RoCE v1 has its own EtherType, 0x8915 (RoCE v1 specification section 2).
  The body runs to the end of the frame: padding of a short frame stays inside it, and the
  layers below bound themselves by their own length fields.
  uroce: src/wire/eth.c.
seq:
  - id: dst
    size: 6
    doc: destination MAC
  - id: src
    size: 6
    doc: source MAC
  - id: ether_type
    type: u2
    doc: the first EtherType, a TPID when a tag follows
  - id: tags
    type: vlan_tag
    repeat: until
    repeat-until: not _.more_tags
    if: is_tag_tpid
  - id: body
    size-eos: true
    type:
      switch-on: inner_type
      cases:
        0x0800: ipv4_packet
        0x86dd: ipv6_packet
        0x8915: roce_v1_packet
instances:
  is_tag_tpid:
    value: ether_type == 0x8100 or ether_type == 0x88a8
  inner_type:
    value: 'is_tag_tpid ? tags.last.ether_type : ether_type'
    doc: the EtherType of the payload, after every tag
