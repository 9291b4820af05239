meta:
  id: ieth
  title: Invalidate Extended Transport Header
  license: MIT
  endian: be
doc: IBA Vol. 1 9.3.9; the R_Key a SEND with Invalidate invalidates. uroce src/wire/ib.c.
seq:
  - id: r_key
    type: u4
