meta:
  id: icrc
  title: Invariant CRC
  license: MIT
doc: |
  The 4-byte Invariant CRC that ends every InfiniBand transport packet (IBA Vol. 1 7.8.1;
  RoCEv2: Annex A17.4.2): CRC-32 (the IEEE/zlib one) over the headers with their variant
  fields masked to ones and the payload, stored least significant byte first
  (docs/facts.md section 1). uroce src/wire/icrc.c.
seq:
  - id: value
    type: u4le
