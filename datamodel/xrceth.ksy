meta:
  id: xrceth
  title: XRC Extended Transport Header
  license: MIT
  endian: be
doc: IBA Vol. 1 9.3.3 (XRC annex); in XRC requests. uroce src/wire/ib.c.
seq:
  - id: reserved
    type: u1
  - id: xrc_srq
    type: b24
    doc: the XRC shared receive queue the message is for
