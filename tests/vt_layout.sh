#!/usr/bin/env bash
# Each virtual-time build keeps its data on pages of its own
# (tools/vt-page-align.sh, -fno-merge-constants), so a design's globals lie
# at the same page offsets whichever designs are linked beside it (TAP).
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

# Name, flags and alignment of each PROGBITS/NOBITS section of $1.
sections() {
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] *//p' |
		awk '$2 == "PROGBITS" || $2 == "NOBITS" { f = "-"; for (i = 7; i < NF; i++) if ($i ~ /^[A-Za-z]+$/) { f = $i; break } print $1, f, $NF }'
}

mapfile -t vts < <(ls build/k/*/vt/kernel.o 2>/dev/null)
[ ${#vts[@]} -gt 0 ] && [ -f build/k/vanilla/vt/kernel.o ]
ok $? "found the vt builds (${#vts[@]}, vanilla's among them)"

bad=""
for o in "${vts[@]}"; do
	while read -r name flags align; do
		case $flags in *A*M* | *M*A*) bad+=" $o:$name(merged)"; continue ;; *M*) continue ;; esac
		case $name:$flags in
		*:*W* | .rodata:*) [ "$align" = 4096 ] || bad+=" $o:$name(align $align)" ;;
		esac
	done < <(sections "$o")
done
[ -z "$bad" ]
ok $? "every vt build's writable sections and .rodata are page-aligned, none merged${bad:0:300}"

# The machine's globals every kernel build reads, on pages of their own
# (src/machine/host.c): else they share one with the design linked last.
nr=$(nm build/mmlab | awk '$3 == "nr_cpu_ids" { print $1 }')
cpu=$(readelf -sW build/mmlab | awk '$8 == "cpu_number" && $4 == "TLS" { print $2 }' | head -1)
[ -n "$nr" ] && [ "${nr: -3}" = 000 ] && [ -n "$cpu" ] && [ $((16#$cpu % 4096)) -eq 0 ]
ok $? "nr_cpu_ids (at $nr) and cpu_number (TLS offset $cpu) start pages of their own"

# The tool on an object of its own: alignment 8 before, 4096 after, at the boundary.
printf 'int counter = 1;\nlong table[3];\nconst int limit[2] = { 4, 5 };\n' >"$tmp/d.c"
gcc -O2 -fno-common -c "$tmp/d.c" -o "$tmp/d.o"
before=$(sections "$tmp/d.o" | awk '$1 == ".data" { print $3 }')
tools/vt-page-align.sh "$tmp/d.o"
ok $? "vt-page-align.sh runs on a small object"
sections "$tmp/d.o" >"$tmp/after"
[ "$before" != 4096 ] && grep -q '^\.data WA 4096$' "$tmp/after" && grep -q '^\.bss WA 4096$' "$tmp/after" &&
	grep -q '^\.rodata A 4096$' "$tmp/after" && grep -q '^\.text AX [0-9]*$' "$tmp/after" &&
	! grep -q '^\.text AX 4096$' "$tmp/after"
ok $? ".data (was $before), .bss and .rodata at 4096, .text left as it was"

printf '\t.text\nf:\tret\n' | as -o "$tmp/t.o"
objcopy -R .data -R .bss "$tmp/t.o"
tools/vt-page-align.sh "$tmp/t.o" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "no data section" "$tmp/out"
ok $? "an object without data is refused (exit $rc)"
tools/vt-page-align.sh >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q usage "$tmp/out"
ok $? "no argument: usage, exit $rc"

done_testing
