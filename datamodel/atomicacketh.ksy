meta:
  id: atomicacketh
  title: Atomic ACK Extended Transport Header
  license: MIT
  endian: be
doc: IBA Vol. 1 9.3.7; the value the target held before the atomic. uroce src/wire/ib.c.
seq:
  - id: original_remote_data
    type: u8
