meta:
  id: deth
  title: Datagram Extended Transport Header
  license: MIT
  endian: be
doc: IBA Vol. 1 9.3.2; in UD packets and RD requests. uroce src/wire/ib.c.
seq:
  - id: q_key
    type: u4
  - id: reserved
    type: u1
  - id: src_qp
    type: b24
