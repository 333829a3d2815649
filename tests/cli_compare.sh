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

# The interval is oriented like the ratio (B/A): A's samples about 100, B's about 200 (and the
# other way round), every cell.  A mutant that passes the samples to the interval in the other
# order gives [0.48, 0.52] beside a ratio of 2.
python3 - "$tmp/a/refcount-scale.json" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for name, base in (("low", 100.0), ("high", 200.0)):
    for r in d["results"]:
        r["samples"] = [base + i for i in range(len(r["samples"]))]
    json.dump(d, open(f"{sys.argv[2]}/{name}.json", "w"))
PY
check_orientation() {	# check_orientation A B LOW HIGH: every row's ratio and interval within LOW..HIGH
	"$MMLAB" compare "$tmp/$1.json" "$tmp/$2.json" >"$tmp/orient" 2>&1 &&
	awk -v lo="$3" -v hi="$4" '/^(vanilla|frozen-bit) / { n++; r = $(NF-2); l = $(NF-1); h = $NF
		gsub(/[][,]/, "", l); gsub(/[][,]/, "", h)
		if (!(r > lo && r < hi && l > lo && l < hi && h > lo && h < hi && l <= r && r <= h)) bad++ }
		END { exit !(n == 4 && !bad) }' "$tmp/orient"
}
check_orientation low high 1.9 2.1
ok $? "B twice A: ratio about 2 and its interval about 2 ($(grep -m1 '^vanilla' "$tmp/orient" | awk '{print $(NF-2), $(NF-1), $NF}'))"
check_orientation high low 0.47 0.53
ok $? "B half A: ratio about 0.5 and its interval about 0.5 ($(grep -m1 '^vanilla' "$tmp/orient" | awk '{print $(NF-2), $(NF-1), $NF}'))"

# Runs under different conditions: every difference named above the table; cells whose
# parameters differ (host against virtual time, another simulated machine, another setting)
# are not paired without --force.
vrun=(run refcount-scale --scale tiny --threads 1,2 --variant vanilla,frozen-bit --machine e5-2690v3-2s --repeat 4)
"$MMLAB" "${vrun[@]}" --json "$tmp/vt.json" >/dev/null 2>&1 &&
	"$MMLAB" "${vrun[@]}" --syscall-ns 500 --json "$tmp/vt500.json" >/dev/null 2>&1 &&
	"$MMLAB" "${vrun[@]/e5-2690v3-2s/epyc-9654-2s}" --json "$tmp/epyc.json" >/dev/null 2>&1 &&
	"$MMLAB" "${vrun[@]/1,2/1,2,4}" --json "$tmp/vt124.json" >/dev/null 2>&1
ok $? "runs in virtual time to compare"
usage_error_says 'different parameters \(machine "host" vs "e5-2690v3-2s"\).*--force' \
	"compare of host time against virtual time" compare "$tmp/a/refcount-scale.json" "$tmp/vt.json"
[ ! -s "$tmp/out" ]
ok $? "a refused compare prints no table"
usage_error_says 'different parameters \(syscall-ns "auto" vs 500\)' \
	"compare of two --syscall-ns" compare "$tmp/vt.json" "$tmp/vt500.json"
usage_error_says 'different parameters \(machine "e5-2690v3-2s" vs "epyc-9654-2s"\)' \
	"compare of two simulated machines" compare "$tmp/vt.json" "$tmp/epyc.json"
cp "$tmp/vt.json" "$tmp/a/refcount-scale.json"
usage_error_says 'different parameters \(machine "host" vs "e5-2690v3-2s"\)' \
	"compare of directories, one pair under different conditions" compare "$tmp/b" "$tmp/a"
"$MMLAB" compare --force "$tmp/b/refcount-scale.json" "$tmp/vt.json" >"$tmp/forced" 2>"$tmp/err"
ok $? "--force: compare of host time against virtual time exits 0"
sed -n '/^conditions differ/,/^$/p' "$tmp/forced" >"$tmp/cond"
grep -q '^  params.machine: A "host", B "e5-2690v3-2s"  (cells paired only by --force)$' "$tmp/cond" &&
	grep -q '^  machine.time: A "host", B "virtual"$' "$tmp/cond" &&
	grep -q '^  machine.cpu_model: ' "$tmp/cond" && grep -qE '^(vanilla|frozen-bit) ' "$tmp/forced" &&
	[ "$(grep -n '^conditions differ' "$tmp/forced" | cut -d: -f1)" -lt "$(grep -n '^ops_per_sec' "$tmp/forced" | cut -d: -f1)" ]
ok $? "--force: the differences (machine, time, CPU model) are named above the table"
"$MMLAB" compare "$tmp/vt.json" "$tmp/vt124.json" >"$tmp/axis" 2>/dev/null &&
	grep -q '^  params.threads: A \[1,2\], B \[1,2,4\]$' "$tmp/axis" &&
	[ "$(grep -cE '^(vanilla|frozen-bit) ' "$tmp/axis")" -eq 4 ]
ok $? "other points (--threads) are named but pair where both have them"
"$MMLAB" compare "$tmp/vt.json" "$tmp/vt.json" >"$tmp/same" 2>/dev/null && ! grep -q 'conditions differ' "$tmp/same"
ok $? "runs under the same conditions: no difference named"
usage_error_says "unknown option '--forse'; valid: --force" "compare with an unknown option" compare --forse "$tmp/vt.json" "$tmp/vt.json"
usage_error "compare with three files" compare "$tmp/vt.json" "$tmp/vt.json" "$tmp/vt.json"

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
