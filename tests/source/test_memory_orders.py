#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every atomic access in src/ spells its memory order (docs/verbs.md "Threads and locks").

A plain read or write of an _Atomic object (`qp->state == ...`, `x = 1`, `x++`) is an
implicit sequentially consistent access, and so is atomic_load() and its kin without
_explicit. This test finds both, through clang's syntax tree of every file of src/ in the
build's compile_commands.json (so that headers' inline functions and macros are seen as
compiled): implicit loads are AtomicToNonAtomic conversions, implicit stores NonAtomicToAtomic
ones, read-modify-writes operators on an _Atomic type. Exits 77 (skipped) without clang.

Usage: test_memory_orders.py BUILD_DIR SOURCE_DIR
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

IMPLICIT_CALL = re.compile(
    r"\batomic_(load|store|exchange|compare_exchange_weak|compare_exchange_strong|"
    r"fetch_add|fetch_sub|fetch_or|fetch_and|fetch_xor|flag_test_and_set|flag_clear)\s*\(")
LOCATION = re.compile(r"<(?:(/[^:<>]+):(\d+)|line:(\d+))")
RMW = re.compile(r"(UnaryOperator|CompoundAssignOperator) .*'_Atomic\(.*'(?: (?:prefix|postfix))? '(\+\+|--)'"
                 r"|CompoundAssignOperator .*'_Atomic\(")


def clang_args(entry, clang):
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    out = [clang, "-fsyntax-only", "-w", "-Xclang", "-ast-dump", "-fno-color-diagnostics"]
    skip = False
    for a in args[1:]:
        if skip:
            skip = False
        elif a == "-o":
            skip = True
        elif a != "-c" and a != entry["file"]:
            out.append(a)
    return out + [entry["file"]]


def main():
    build, source = sys.argv[1], os.path.realpath(sys.argv[2])
    clang = shutil.which("clang")
    db = os.path.join(build, "compile_commands.json")
    if not clang:
        print("clang not found: skipped (scripts/install-deps.sh installs it)")
        return 77
    if not os.path.exists(db):
        print(f"no {db}: skipped")
        return 77
    src = os.path.join(source, "src") + "/"
    found = set()
    files = 0
    seen = set()
    for entry in json.load(open(db)):
        f = os.path.realpath(entry["file"])
        if not f.startswith(src) or not f.endswith(".c") or f in seen:
            continue
        seen.add(f)
        files += 1
        with open(f, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if IMPLICIT_CALL.search(line.split("//")[0]):
                    found.add((f, n, "atomic_*() without _explicit: implicit seq_cst"))
        r = subprocess.run(clang_args(entry, clang), cwd=entry["directory"], capture_output=True,
                           text=True)
        if r.returncode != 0:
            print(f"FAIL clang could not parse {f}:\n{r.stderr[:2000]}")
            return 1
        cur_file, cur_line = None, None
        for node in r.stdout.splitlines():
            m = LOCATION.search(node)
            if m:
                if m.group(1):
                    cur_file, cur_line = m.group(1), int(m.group(2))
                else:
                    cur_line = int(m.group(3))
            if not cur_file or not os.path.realpath(cur_file).startswith(src):
                continue
            if "<AtomicToNonAtomic>" in node:
                found.add((os.path.realpath(cur_file), cur_line, "plain read of an _Atomic object: implicit seq_cst load"))
            elif "<NonAtomicToAtomic>" in node:
                found.add((os.path.realpath(cur_file), cur_line, "plain write of an _Atomic object: implicit seq_cst store"))
            elif RMW.search(node):
                found.add((os.path.realpath(cur_file), cur_line, "operator on an _Atomic object: implicit seq_cst read-modify-write"))
    if not files:
        print(f"FAIL no file of {src} in {db}")
        return 1
    for f, n, what in sorted(found):
        print(f"FAIL {os.path.relpath(f, source)}:{n}: {what}")
    if found:
        print(f"{len(found)} implicit atomic accesses: spell the order (atomic_load_explicit, ...)")
        return 1
    print(f"{files} files of src/: every atomic access spells its memory order")
    return 0


if __name__ == "__main__":
    sys.exit(main())
