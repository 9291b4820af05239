meta:
  id: aeth
  title: ACK Extended Transport Header
  license: MIT
  endian: be
doc: |
  IBA Vol. 1 9.3.6; in ACKs and READ responses that carry one. The syndrome's bits 6..5 are
  its type (0 ACK, 1 RNR NAK, 3 NAK) and bits 4..0 its value: the credit count of an ACK,
  the RNR timer of an RNR NAK, the NAK code (IBA Tables 43-46). uroce src/wire/ib.c.
seq:
  - id: syndrome_reserved
    type: b1
  - id: syndrome_type
    type: b2
  - id: syndrome_value
    type: b5
  - id: msn
    type: b24
    doc: message sequence number
instances:
  syndrome:
    value: '(syndrome_reserved ? 0x80 : 0) | syndrome_type << 5 | syndrome_value'
