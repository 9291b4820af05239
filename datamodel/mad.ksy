meta:
  id: mad
  title: Management Datagram, common header
  license: MIT
  endian: be
doc: |
  A MAD (IBA Vol. 1 13.4.3): 256 bytes sent to QP0 (subnet management) or QP1 (general
  services: the CM, SA, ...) in a UD SEND Only. The 24-byte common header names the
  management class and its method and attribute; the class-specific part follows.
  uroce src/wire/mad.c.
seq:
  - id: base_version
    type: u1
  - id: mgmt_class
    type: u1
  - id: class_version
    type: u1
  - id: method
    type: u1
    doc: the R bit (a response) and the method
  - id: status
    type: u2
  - id: class_specific
    type: u2
  - id: transaction_id
    type: u8
  - id: attribute_id
    type: u2
  - id: reserved
    type: u2
  - id: attribute_modifier
    type: u4
  - id: data
    size-eos: true
    doc: the class-specific rest, 232 bytes in a whole MAD
