meta:
  id: cnp
  title: RoCEv2 Congestion Notification Packet body
  license: MIT
  endian: be
doc: |
  Annex A17.9.3: a CNP is BTH opcode 0x81 (transport CNP), 16 reserved bytes, the ICRC. The
  BTH's destination QP is the QP the notification is about. uroce src/wire/ib.c.
seq:
  - id: reserved
    size: 16
