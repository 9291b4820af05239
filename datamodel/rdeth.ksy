meta:
  id: rdeth
  title: Reliable Datagram Extended Transport Header
  license: MIT
  endian: be
doc: IBA Vol. 1 9.3.1; in every RD packet. uroce src/wire/ib.c.
seq:
  - id: reserved
    type: u1
  - id: ee_context
    type: b24
    doc: the end-to-end context
