meta:
  id: immdt
  title: Immediate Data Extended Transport Header
  license: MIT
  endian: be
doc: IBA Vol. 1 9.3.8; four bytes the receiver gets in its completion. uroce src/wire/ib.c.
seq:
  - id: data
    type: u4
