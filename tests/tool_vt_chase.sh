#!/usr/bin/env bash
# tools/vt_chase (docs/VALIDATION.md): it runs on a small machine file and prints well-formed
# output (TAP).  Not a check of accuracy: how close the curves come to published measurements
# is a benchmark result, in docs/VALIDATION.md.
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash
CHASE=${VT_CHASE:-build/tools/vt_chase}

# A small machine: 4 KiB L1, 32 KiB L2, 256 KiB L3 (the levels tests/test_vt_cache.c uses).
sed -e 's/^l1d.size .*/l1d.size 4 | test/' -e 's/^l2.size .*/l2.size 32 | test/' \
    -e 's/^l3.size .*/l3.size 256 | test/' machines/validation/x5650-westmere-2s.conf >"$tmp/small.conf"

"$CHASE" "$tmp/small.conf" --sizes 2K,16K,128K,1M >"$tmp/out" 2>"$tmp/err"
ok $? "vt_chase on a small machine exits 0 ($(head -c 160 "$tmp/err" | tr -d '\n'))"
grep -q '^# vt_chase: machine x5650-westmere-2s' "$tmp/out"
ok $? "the header names the machine"
[ "$(grep -vc '^#' "$tmp/out")" -eq 4 ]
ok $? "one line a size"
awk '!/^#/ { if (NF != 12) exit 1; for (i = 1; i <= NF; i++) if ($i !~ /^[0-9]+(\.[0-9]+)?$/) exit 1 }' "$tmp/out"
ok $? "each line is 12 non-negative numbers"
awk '!/^#/ { print $1 }' "$tmp/out" | tr '\n' ' ' | grep -qx '2 16 128 1024 '
ok $? "the sizes in KiB, in the order asked"
"$CHASE" "$tmp/small.conf" --sizes 2K,16K,128K,1M >"$tmp/out2" 2>/dev/null && cmp -s "$tmp/out" "$tmp/out2"
ok $? "the same command prints the same numbers (virtual time)"

# The two chases past the 4 KiB L1 (64 lines, 16 sets of 4, frames in order):
#   2K, 4K: every line fits, neither chase misses the L1
#   8K:     the random cycle misses every load (LRU), uniform draws about half (C/N = 1/2)
#   16K:    uniform about three quarters (1 - 1/4); 64K: half of the 32 KiB L2's misses too
"$CHASE" "$tmp/small.conf" --sizes 2K,4K,8K,16K,64K >"$tmp/knee" 2>/dev/null
col() { awk -v s="$1" -v c="$2" '!/^#/ && $1 == s { print $c }' "$tmp/knee"; }
within() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }
for s in 2 4; do
	within "$(col $s 5)" 0 0 && within "$(col $s 10)" 0 0
	ok $? "${s} KiB fits the L1: no L1 miss in either chase ($(col $s 5), $(col $s 10))"
done
within "$(col 8 5)" 0.99 1
ok $? "8 KiB, twice the L1: the random cycle misses every load ($(col 8 5))"
within "$(col 8 10)" 0.4 0.6
ok $? "8 KiB: the uniform chase misses about half ($(col 8 10))"
within "$(col 16 10)" 0.7 0.82
ok $? "16 KiB: the uniform chase misses about three quarters ($(col 16 10))"
within "$(col 64 11)" 0.4 0.6 && within "$(col 64 6)" 0.99 1
ok $? "64 KiB, twice the L2: uniform about half its L2 misses, the cycle all ($(col 64 11), $(col 64 6))"
within "$(col 8 9)" 1.6 3.6
ok $? "8 KiB: the uniform chase's latency lies between the L1's and the L2's ($(col 8 9) ns)"

for bad in "--sizes 100" "--sizes 1K,x" "--sizes" "--bogus"; do
	# shellcheck disable=SC2086
	"$CHASE" "$tmp/small.conf" $bad >/dev/null 2>"$tmp/err"
	[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]
	ok $? "bad usage '$bad': exit 2 with one line"
done
"$CHASE" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]
ok $? "no machine file: exit 2 with one line"
"$CHASE" "$tmp/nonexistent.conf" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]
ok $? "a machine file that does not load: exit 2 with one line"
done_testing
