#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Compiles the datamodel (every datamodel/*.ksy, with the Kaitai Struct compiler from npm) to
# Python and compares its parse of each capture with uroce-dump's, field by field
# (check.py). Exits 0 when every field agrees, 1 on a difference, 2 when a tool is missing.
#
# Usage: datamodel/run-check.sh UROCE_DUMP CAPTURE...
#   KSY_DIR=DIR compiles the .ksy files of DIR instead (the test's mutated copy).
# Needs: node with datamodel/node_modules (npm ci --prefix datamodel; scripts/install-deps.sh
# runs it) and Debian's python3-kaitaistruct (for /usr/bin/python3: another python3 first
# on PATH, pyenv's say, would not see it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dump=${1:?usage: run-check.sh UROCE_DUMP CAPTURE...}
shift
python=/usr/bin/python3

missing() {
	echo "datamodel: $1; scripts/install-deps.sh installs it" >&2
	exit 2
}
command -v node >/dev/null || missing "no node (Debian package nodejs)"
[ -f "$here/node_modules/kaitai-struct-compiler/package.json" ] ||
	missing "no kaitai-struct-compiler in $here/node_modules (npm ci --prefix datamodel)"
"$python" -c 'import kaitaistruct' 2>/dev/null || missing "no python3-kaitaistruct"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
node "$here/compile.js" "$out" "${KSY_DIR:-$here}"
"$python" "$here/check.py" --dump "$dump" --model "$out" "$@"
