meta:
  id: feth
  title: Flush Extended Transport Header
  license: MIT
  endian: be
doc: |
  IBA 1.5 Memory Placement Extensions, the FLUSH operation; the selectivity level and the
  placement type (Linux rxe_hdr.h FETH_SEL_MASK 0x30, FETH_PLT_MASK 0x0f). uroce
  src/wire/ib.c.
seq:
  - id: reserved
    type: b26
  - id: selectivity_level
    type: b2
  - id: placement_type
    type: b4
