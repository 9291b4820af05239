meta:
  id: reth
  title: RDMA Extended Transport Header
  license: MIT
  endian: be
doc: |
  IBA Vol. 1 9.3.4; in the first packet of an RDMA WRITE, in READ requests, FLUSH and
  ATOMIC WRITE. uroce src/wire/ib.c.
seq:
  - id: virtual_address
    type: u8
  - id: r_key
    type: u4
  - id: dma_length
    type: u4
