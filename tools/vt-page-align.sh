#!/usr/bin/env bash
# Put every data section of a virtual-time kernel build (build/k/<design>/vt/
# kernel.o) on a page boundary of its own.
#
#   tools/vt-page-align.sh KERNEL_O
#
# The simulated machine indexes its caches by frame number and the offset
# within the page (docs/design/memory-hierarchy.md, "Indexing"): a global's
# offset in its page picks its sets.  Linked after the other designs' builds,
# a design's globals would lie at offsets that depend on which designs
# `make DESIGNS=...` linked before it; aligned, they lie where the design's
# own build puts them, in every binary.  Writable sections (.data, .bss,
# .tbss, .data.rel.ro, ...) and .rodata; not the merged string and constant
# sections, which the final link pools across builds.
set -euo pipefail

[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: $0 KERNEL_O" >&2; exit 2; }
obj=$1
args=()
while read -r name flags; do
	case $flags in
	*M*) continue ;;
	esac
	case $name:$flags in
	*:*W* | .rodata:*) args+=(--set-section-alignment "$name=4096") ;;
	esac
done < <(readelf -SW "$obj" | sed -n 's/^ *\[ *[0-9]*\] *//p' |
	 awk '$2 == "PROGBITS" || $2 == "NOBITS" { f = ""; for (i = 7; i <= NF; i++) if ($i ~ /^[A-Za-z]+$/) { f = $i; break } print $1, f }')
[ ${#args[@]} -gt 0 ] || { echo "$0: no data section in $obj" >&2; exit 1; }
objcopy "${args[@]}" "$obj"
