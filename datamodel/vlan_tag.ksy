meta:
  id: vlan_tag
  title: IEEE 802.1Q / 802.1ad tag control information
  license: MIT
  endian: be
doc: |
  The four bytes after a TPID (0x8100 or 0x88A8) less the TPID itself: the tag control
  information and the EtherType of what follows. RoCE v1 carries its QoS in the PCP (RoCE v1
  specification section 10). uroce: src/wire/eth.c.
seq:
  - id: pcp
    type: b3
    doc: priority code point (802.1p priority)
  - id: dei
    type: b1
    doc: drop eligible indicator
  - id: vid
    type: b12
    doc: VLAN identifier
  - id: ether_type
    type: u2
    doc: EtherType of what follows, or the TPID of the next tag
instances:
  more_tags:
    value: ether_type == 0x8100 or ether_type == 0x88a8
