#!/usr/bin/env bash
# mmlab compare A B and --repeat auto on the command line (TAP).
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

run=(run refcount-scale --scale tiny --threads 1,2 --variant vanilla,frozen-bit --repeat 4)
mkdir -p "$tmp/a" "$tmp/b"
"$MMLAB" "${run[@]}" --json "$tmp/a/refcount-scale.json" >/dev/null 2>&1 &&
	"$MMLAB" "${run[@]}" --json "$tmp/b/refcount-scale.json" >/dev/null 2>&1
ok $? "two runs to compare"

"$MMLAB" compare "$tmp/a/refcount-scale.json" "$tmp/b/refcount-scale.json" >"$tmp/cmp" 2>"$tmp/err"
ok $? "compare of two files exits 0"
grep -q '^compare refcount-scale$' "$tmp/cmp" && grep -q '^ *A: .*a/refcount-scale.json' "$tmp/cmp"
ok $? "names the experiment and both files"
[ "$(grep -cE '^(vanilla|frozen-bit) +Median ops/s-[12] +[0-9.]+!? +[0-9.]+!? +[(*] *-?[0-9.]+%[)*] +[0-9.]+ \[[0-9.]+, [0-9.]+\]$' "$tmp/cmp")" -eq 4 ]
ok $? "a row per variant and point: A's and B's medians (! when the host was noisy), change, ratio [interval]"
python3 - "$tmp" <<'PY'
import json, re, statistics, sys
t = sys.argv[1]
a, b = (json.load(open(f"{t}/{x}/refcount-scale.json")) for x in "ab")
rows = [l.split() for l in open(f"{t}/cmp") if re.match(r"^(vanilla|frozen-bit) ", l)]
for ra, rb, row in zip(a["results"], b["results"], rows):
    assert row[0] == ra["variant"] and row[2] == "ops/s-%d" % ra["point"]["threads"], row
    ma, mb = statistics.median(ra["samples"]), statistics.median(rb["samples"])
    assert abs(float(row[3].rstrip("!")) - ma) < 0.01 and abs(float(row[4].rstrip("!")) - mb) < 0.01, (row, ma, mb)
    assert abs(float(row[-3]) - mb / ma) < 0.001, (row, mb / ma)
PY
ok $? "the medians and ratio are the files' own"

"$MMLAB" compare "$tmp/a" "$tmp/b" >"$tmp/cmpdir" 2>/dev/null
ok $? "compare of two results/<run-id>/ directories exits 0"
cmp -s <(tail -n +2 "$tmp/cmp" | sed 's/^ *[AB]: .*//') <(tail -n +2 "$tmp/cmpdir" | sed 's/^ *[AB]: .*//')
ok $? "directories: the same comparison as of the files, paired by name"
"$MMLAB" compare "$tmp/a/refcount-scale.json" "$tmp/a/refcount-scale.json" >"$tmp/self" 2>/dev/null
! grep -q '\*' <(grep -E '^(vanilla|frozen-bit) ' "$tmp/self") &&
	[ "$(grep -cE '\( +0\.00%\) +1\.000 \[' "$tmp/self")" -eq 4 ]
ok $? "a run against itself: no change, ratio 1, nothing significant"

"$MMLAB" run free-contig --scale tiny --json "$tmp/fc.json" >/dev/null 2>&1
usage_error "compare of two experiments" compare "$tmp/a/refcount-scale.json" "$tmp/fc.json"
usage_error "compare of a missing file" compare "$tmp/a/refcount-scale.json" "$tmp/nope.json"
printf '{"experiment": "refcount-scale", "params": {}, "results": [{"variant": 1}]}' >"$tmp/bad.json"
usage_error "compare of a file that is not a result" compare "$tmp/a/refcount-scale.json" "$tmp/bad.json"
printf '{"experiment": ' >"$tmp/cut.json"
usage_error "compare of a truncated file" compare "$tmp/a/refcount-scale.json" "$tmp/cut.json"
usage_error "compare of a file and a directory" compare "$tmp/a/refcount-scale.json" "$tmp/b"
usage_error "compare with one argument" compare "$tmp/a"
mkdir -p "$tmp/empty"
usage_error "compare of directories with nothing in common" compare "$tmp/a" "$tmp/empty"

# --repeat auto on the real binary: bounded, and the samples it took recorded
"$MMLAB" run refcount-scale --scale tiny --threads 1 --variant vanilla,frozen-bit --repeat auto:2 \
	--ci-target 0.1 --json "$tmp/auto.json" >"$tmp/auto.txt" 2>"$tmp/auto.err"
ok $? "--repeat auto:2 with an unreachable target exits 0"
grep -q 'stopped after [0-9]* rounds: the time bound was reached' "$tmp/auto.err"
ok $? "stops at the time bound and says so"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); n={len(r['samples']) for r in d['results']}; \
sys.exit(not (len(n) == 1 and min(n) >= 3 and d['params']['repeat'] == min(n) and d['params']['repeat_auto']['seconds'] == 2))" "$tmp/auto.json"
ok $? "at least 3 samples, as many for every variant, recorded as params.repeat"
usage_error "--repeat auto:0" run refcount-scale --repeat auto:0
usage_error "--repeat auto:x" run refcount-scale --repeat auto:x
usage_error "--ci-target without auto" run refcount-scale --ci-target 5
usage_error "--ci-target out of range" run refcount-scale --repeat auto --ci-target 60

done_testing
