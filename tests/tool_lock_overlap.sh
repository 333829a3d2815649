#!/usr/bin/env bash
# tools/lock_overlap (docs/VALIDATION.md, "2d"): it runs and prints well-formed output (TAP).
# The measurements are vt_probe_rmw() (src/machine/vt_calibrate.c) and vt_probe_rmw_misses()
# (src/machine/vt_calibrate_mem.c), the ones calibrate uses.
# Not a check of the host: whether its locked RMWs overlap other work is a measurement,
# in docs/VALIDATION.md.
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash
LOCK=${LOCK_OVERLAP:-build/tools/lock_overlap}

"$LOCK" >"$tmp/out" 2>"$tmp/err"
ok $? "lock_overlap exits 0 ($(head -c 160 "$tmp/err" | tr -d '\n'))"
grep -qE '^locked decs of one count, chained: [0-9]+\.[0-9]+ ns each' "$tmp/out"
ok $? "it prints the chained locked decrement's time"
grep -qE '^work +work alone +locked \+ work +sum \(the model\) +larger$' "$tmp/out"
ok $? "it prints the table's header"
[ "$(grep -cE '^x[0-9]+ ' "$tmp/out")" -eq 2 ]
ok $? "one row for the light work and one for the heavy"
chain=$(sed -nE 's/^locked decs of one count, chained: ([0-9.]+) ns.*/\1/p' "$tmp/out")
awk -v c="$chain" '/^x[0-9]+ / {
	if (NF != 8 || $7 != "a" || $8 != "line") exit 1
	for (i = 2; i <= 5; i++) if ($i !~ /^[0-9]+\.[0-9]+$/ || $i <= 0) exit 1
	# the sum and the larger are computed from the other two columns and the chain
	if ($4 - ($2 + c) > 0.011 || ($2 + c) - $4 > 0.011) exit 1
	m = $2 > c ? $2 : c
	if ($5 - m > 0.011 || m - $5 > 0.011) exit 1
}' "$tmp/out"
ok $? "each row: four positive times, the sum is work + chained, the larger is their max"
grep -qE '^the code beside locked RMWs: (yes|no) \(the locked decrement adds (under|at least) half its chained cost' "$tmp/out"
ok $? "it gives the verdict on the code beside the locked RMWs"
grep -qE '^random lines of [0-9]+ MiB: independent loads [0-9.]+ ns each, each followed by a locked add [0-9.]+ ns, a dependent chase [0-9.]+ ns$' "$tmp/out"
ok $? "it prints the misses with and without locked adds, and the chase"
grep -qE '^misses across locked RMWs: (overlap|drained) \(with the locked adds a load takes [0-9]+% of the chase' "$tmp/out"
ok $? "it gives the verdict on the misses"
v2=$(sed -nE 's/^misses across locked RMWs: (overlap|drained).*/\1/p' "$tmp/out")
# calibrate's rmw.overlap: the share of the heaviest work under the decrement,
# (work + chained - locked) / work, within 0..1
awk -v c="$chain" '/^x[0-9]+ / { w = $2; l = $3 }
/^rmw.overlap for calibrate: / {
	seen = 1
	h = (w + c - l) / w; if (h < 0) h = 0; if (h > 1) h = 1
	d = $4 - h; if (d < 0) d = -d
	exit !($4 >= 0 && $4 <= 1 && d < 0.01)
}
END { if (!seen) exit 1 }' "$tmp/out"
ok $? "calibrate's rmw.overlap is the share of the heaviest work under the decrement ($(grep '^rmw.overlap for' "$tmp/out" | cut -c1-40))"
want=yes; [ "$v2" = overlap ] && want=no
grep -qx "rmw.drain for calibrate: $want" "$tmp/out" && [ "$(tail -n 1 "$tmp/out")" = "rmw.drain for calibrate: $want" ]
ok $? "it ends with calibrate's rmw.drain, no where the misses overlap ($want, the misses $v2)"

"$LOCK" --bogus >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "valid: no arguments" "$tmp/err"
ok $? "an argument: exit 2 with one line naming what is valid"
done_testing
