#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# uroce-dump -T fields against tshark 4.0, field by field, on every capture of
# ../shared/testdata/captures and on the crafted packets of tests/vectors/tshark/crafted: the
# golden files (tests/vectors/tshark/, made by
# tests/vectors/make-tshark-golden.sh) hold tshark's output, and uroce-dump must print the
# same lines, except where an entry of EXCEPTIONS below shows tshark to be wrong or to leave a
# field to another dissector. Each entry accepts a different value only under its own
# condition; everything else goes through diff. docs/uroce-dump-vs-tshark.md explains them.
set -u

: "${UROCE_DUMP:?the uroce-dump binary}" "${UROCE_VECTORS:?tests/vectors}"
golden_dir=$UROCE_VECTORS/tshark
# The real captures are in ../shared; without it only the crafted packets are compared.
captures=${UROCE_SHARED:-/nonexistent}/testdata/captures
[ -d "$captures" ] || echo "no ../shared captures: only the crafted packets are compared"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One exception per line, columns separated by " ; ":
#   capture glob ; field regex ; frames ; accepted ; why
# frames: all, or a condition on tshark's value of another field, FIELD~REGEX or FIELD!~REGEX.
# accepted: tshark-empty    tshark shows nothing, uroce-dump a value
#           uroce-empty     uroce-dump shows nothing, tshark a value
#           tshark-short=N  tshark's bytes are uroce-dump's without their last N bytes
#           tshark-twice    tshark shows uroce-dump's value twice
#           any             tshark decodes these bytes as something else
EXCEPTIONS=$(cat <<'EOF'
rxe-* ; ^infiniband\.payload$ ; all ; tshark-empty ; tshark never fills infiniband.payload on RoCEv2: the payload goes to its data or MAD dissector (its length is compared through data.len)
cx4lx-cnp.pcap ; ^infiniband\.payload$ ; all ; tshark-empty ; as for rxe-*
ib-native* ; ^infiniband\.payload$ ; infiniband.bth.destqp~^0x00000[01]$ ; tshark-empty ; tshark shows MADs (QP0/QP1) as MADs only
ib-native* ; ^infiniband\.payload$ ; all ; tshark-short=6 ; tshark cuts native InfiniBand payloads 6 bytes short: frame 10 carries an IPv4 packet of total length 84 after the 4-byte IPoIB header (88 bytes), tshark shows 82
cx4lx-cnp.pcap ; ^infiniband\.invariant\.crc$ ; infiniband.bth.opcode~^129$ ; tshark-empty ; tshark 4.0 does not know opcode 0x81 (CNP, Annex A17.9.3), calls it Unknown and stops before the ICRC
rxe-rdmacm-send.pcap ; ^(infiniband\.invariant\.crc|data\.len)$ ; frame.number~^(8|10|12|14|16|18)$ ; tshark-empty ; the RPC-over-RDMA heuristic of tshark claims these 4-byte SEND payloads, reports Malformed Packet and shows neither the data nor the ICRC
rxe-rdmacm-send.pcap ; ^data\.len$ ; frame.number~^(20|22|27|29)$ ; tshark-empty ; a heuristic dissector of tshark swallows these 56-byte SEND payloads and shows nothing (frame.protocols ends at infiniband), while the same payloads in frames 31 and 33 are data
rxe-* ; ^data\.len$ ; infiniband.bth.opcode~^$ ; uroce-empty ; tshark's data.len also counts TCP payloads, uroce-dump's is the InfiniBand payload (pad included) only
ib-native* ; ^(ip|ipv6|udp|data)\. ; all ; uroce-empty ; tshark dissects the IP packets that IPoIB carries, uroce-dump stops at the IPoIB header
opcodes.pcap ; ^infiniband\.payload$ ; all ; tshark-empty ; as for rxe-*
opcodes.pcap ; ^infiniband\.(immdt|ieth)$ ; all ; tshark-twice ; tshark gives its ImmDt and IETH header items the name of the value inside them, so it prints each value twice
opcodes.pcap ; ^(infiniband\.invariant\.crc|data\.len)$ ; infiniband.bth.opcode~^(22|23)$ ; tshark-empty ; the RPC-over-RDMA heuristic of tshark claims the SEND with Invalidate payloads too (Malformed Packet, no ICRC)
opcodes.pcap ; ^(infiniband\.|data\.len$) ; infiniband.bth.opcode~^(164|28|29)$ ; tshark-empty ; tshark 4.0 knows neither XRC (0xA0-0xBF) nor FLUSH (0x1C) and ATOMIC WRITE (0x1D) of IBA 1.5: Unknown OpCode, nothing after the BTH
opcodes.pcap ; ^(infiniband\.(bth|rdeth|deth|reth|aeth|invariant)|data\.len$) ; infiniband.bth.opcode~^(68|76|77|85)$ ; any ; tshark reads RD packets 8 bytes too far: its BTH spans 20 bytes and its RDETH is the second half of the DETH (E2E Context 2748 = the DETH's SrcQP 0xabc)
EOF
)

# Rewrites uroce-dump's value to tshark's where an exception accepts the difference, and
# reports each exception's uses on stderr. Arguments: the exceptions for this capture
# (without their glob), the golden file, uroce-dump's output. Plain POSIX awk (Debian: mawk).
accept_exceptions() {
	awk -F'\t' -v OFS='\t' -v rules="$1" '
	function when_ok(cond, row,    neg, part, f) {
		if (cond == "all")
			return 1
		neg = index(cond, "!~") > 0
		split(cond, part, neg ? "!~" : "~")
		f = col[part[1]]
		if (!f)
			return 0
		return neg ? golden[row, f] !~ part[2] : golden[row, f] ~ part[2]
	}
	function accepted(how, g, u,    n) {
		if (how == "tshark-empty")
			return g == "" && u != ""
		if (how == "uroce-empty")
			return u == "" && g != ""
		if (how == "tshark-twice")
			return g == u "," u
		if (how == "any")
			return 1
		if (how ~ /^tshark-short=/) {
			n = 2 * substr(how, 14)
			return length(u) == length(g) + n && substr(u, 1, length(g)) == g
		}
		return 0
	}
	BEGIN {
		nrules = split(rules, line, "\n")
		for (r = 1; r <= nrules; r++) {
			split(line[r], part, / ; /)
			rfield[r] = part[1]; rwhen[r] = part[2]; rhow[r] = part[3]; rwhy[r] = part[4]
		}
	}
	FNR == NR {
		for (i = 1; i <= NF; i++)
			golden[FNR, i] = $i
		next
	}
	FNR == 1 {
		for (i = 1; i <= NF; i++) {
			col[$i] = i
			name[i] = $i
		}
		print
		next
	}
	{
		for (i = 1; i <= NF; i++) {
			if ($i == golden[FNR, i])
				continue
			for (r = 1; r <= nrules; r++) {
				if (rfield[r] == "" || name[i] !~ rfield[r] || !when_ok(rwhen[r], FNR) ||
				    !accepted(rhow[r], golden[FNR, i], $i))
					continue
				$i = golden[FNR, i]
				used[r]++
				break
			}
		}
		print
	}
	END {
		for (r = 1; r <= nrules; r++)
			if (used[r])
				printf "  accepted %d x %s: %s\n", used[r], rfield[r], rwhy[r] > "/dev/stderr"
	}' "$2" "$3"
}

fail=0
count=0
for golden in "$golden_dir"/*.fields.txt; do
	name=$(basename "$golden" .fields.txt)
	cap=$golden_dir/crafted/$name
	[ -f "$cap" ] || cap=$captures/$name
	if [ ! -f "$cap" ]; then
		[ -d "$captures" ] || continue
		echo "FAIL $name: golden file without its capture"
		fail=1
		continue
	fi
	IFS=$'\t' read -r -a fields <"$golden"
	args=()
	for f in "${fields[@]}"; do args+=(-e "$f"); done
	if ! "$UROCE_DUMP" -q -r "$cap" -T fields -E header=y "${args[@]}" >"$tmp/out" 2>"$tmp/err"; then
		echo "FAIL $name: uroce-dump failed: $(cat "$tmp/err")"
		fail=1
		continue
	fi
	rules=
	while IFS= read -r rule; do
		# shellcheck disable=SC2053 # the first column is a glob
		[[ $name == ${rule%% ; *} ]] && rules+=${rule#* ; }$'\n'
	done <<<"$EXCEPTIONS"
	echo "$name:"
	accept_exceptions "$rules" "$golden" "$tmp/out" >"$tmp/accepted"
	if diff -u "$golden" "$tmp/accepted" >"$tmp/diff"; then
		echo "  ok, $(($(wc -l <"$golden") - 1)) frames x ${#fields[@]} fields"
	else
		echo "FAIL $name: differs from tshark:"
		head -n 40 "$tmp/diff"
		fail=1
	fi
	count=$((count + 1))
done

# The golden files must cover the current field lists: a list changed without regenerating
# them would silently test less.
want=$(cat "$UROCE_VECTORS"/fields-ib.txt "$UROCE_VECTORS"/fields-net.txt \
	"$UROCE_VECTORS"/fields-mgmt.txt 2>/dev/null | grep -v -e '^#' -e '^$' | tr '\n' '\t')
first=$(ls "$golden_dir"/*.fields.txt | head -n 1)
have=$(head -n 1 "$first" | tr '\n' '\t')
if [ "$want" != "$have" ]; then
	echo "FAIL the field lists changed since the golden files were made: run tests/vectors/make-tshark-golden.sh"
	fail=1
fi
[ "$count" -gt 0 ] || { echo "FAIL no golden files in $golden_dir"; fail=1; }
exit $fail
