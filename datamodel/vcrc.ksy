meta:
  id: vcrc
  title: Variant CRC
  license: MIT
  endian: be
doc: |
  The 2-byte Variant CRC of native InfiniBand (IBA Vol. 1 7.8.2): CRC-16 over the whole
  packet from the LRH through the ICRC, recomputed at each hop. RoCE has none.
  uroce src/wire/crc.c.
seq:
  - id: value
    type: u2
