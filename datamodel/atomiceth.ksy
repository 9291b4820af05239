meta:
  id: atomiceth
  title: Atomic Extended Transport Header
  license: MIT
  endian: be
doc: IBA Vol. 1 9.3.5; in CmpSwap and FetchAdd requests. uroce src/wire/ib.c.
seq:
  - id: virtual_address
    type: u8
  - id: r_key
    type: u4
  - id: swap_or_add_data
    type: u8
  - id: compare_data
    type: u8
