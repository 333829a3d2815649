#!/usr/bin/env bash
# Sharding: mmlab run --shard I/N and mmlab merge (TAP).  A tiny run split
# into 2 shards and merged must have the unsharded run's structure: the same
# points, variants, metrics and number of samples (values differ: they are
# measurements), and comparisons computed from the shards' samples.
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

run=(run refcount-scale --scale tiny --threads 1,2,3 --variant vanilla,frozen-bit --repeat 4)

"$MMLAB" "${run[@]}" --json "$tmp/full.json" >"$tmp/full.txt" 2>/dev/null
ok $? "unsharded run exits 0"
for i in 0 1; do
	"$MMLAB" "${run[@]}" --shard $i/2 --json "$tmp/s$i.json" >"$tmp/s$i.txt" 2>/dev/null
	ok $? "shard $i/2 exits 0"
done
"$MMLAB" merge "$tmp/merged.json" "$tmp/s1.json" "$tmp/s0.json" >"$tmp/merged.txt" 2>"$tmp/merge.err"
ok $? "merge of the two shards (in any order) exits 0"

check_merged() {	# check_merged MERGED.json: the structure of the unsharded run
python3 - "$tmp" "$1" <<'PY'
import json, sys
t = sys.argv[1]
full, merged = json.load(open(f"{t}/full.json")), json.load(open(sys.argv[2]))
s0, s1 = (json.load(open(f"{t}/s{i}.json")) for i in (0, 1))
assert s0["shard"] == {"index": 0, "count": 2} and s1["shard"] == {"index": 1, "count": 2}
assert {r["point"]["threads"] for r in s0["results"]} == {1, 3}, "shard 0: points 0 and 2"
assert {r["point"]["threads"] for r in s1["results"]} == {2}, "shard 1: point 1"
assert list(merged) == list(full), (list(merged), list(full))
shape = lambda d: [(r["metric"], r["point"], r["variant"], len(r["samples"]), sorted(r["counters"]),
                    sorted(r["host_noise"])) for r in d["results"]]
assert shape(merged) == shape(full), "same points, variants, metrics, sample counts, counters"
cmp = lambda d: [(c["metric"], c["point"], c["variant"]) for c in d["comparisons"]]
assert cmp(merged) == cmp(full), "the same comparisons"
mine = {(c["metric"], json.dumps(c["point"]), c["variant"]): c for c in s0["comparisons"] + s1["comparisons"]}
for c in merged["comparisons"]:
    assert mine[(c["metric"], json.dumps(c["point"]), c["variant"])] == c, "from the shards' own samples"
assert merged["params"] == full["params"] and merged["points"] == full["points"]
PY
}
check_merged "$tmp/merged.json"
ok $? "merged JSON has the unsharded structure; comparisons are the shards' own"
# the check itself must catch a merge that lost a sample
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['results'][3]['samples'].pop(); \
json.dump(d, open(sys.argv[2], 'w'))" "$tmp/merged.json" "$tmp/broken.json"
! check_merged "$tmp/broken.json" 2>/dev/null
ok $? "the structure check catches a merged file that lost a sample"
diff <(sed -E '/^!:/d; s/[0-9.+-]+/N/g; s/[ *()!]+/ /g' "$tmp/full.txt") <(sed -E '/^!:/d; s/[0-9.+-]+/N/g; s/[ *()!]+/ /g' "$tmp/merged.txt") >"$tmp/diff"
ok $? "merge prints the tables of an unsharded run (numbers aside)"
sed 's/^/# /' "$tmp/diff"

"$MMLAB" merge "$tmp/x.json" "$tmp/s0.json" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'shard 1/2 is missing' "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ]
ok $? "a missing shard: exit 1, one line ($(cat "$tmp/err"))"
"$MMLAB" merge "$tmp/x.json" "$tmp/s0.json" "$tmp/s0.json" "$tmp/s1.json" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'overlap' "$tmp/err"
ok $? "a shard given twice: exit 1, overlapping points"
"$MMLAB" run refcount-scale --scale tiny --threads 1,2,3 --variant vanilla,frozen-bit --repeat 5 \
	--shard 1/2 --seed 9 --json "$tmp/other.json" >/dev/null 2>&1
"$MMLAB" merge "$tmp/x.json" "$tmp/s0.json" "$tmp/other.json" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'differ in params' "$tmp/err"
ok $? "shards of two different runs: exit 1, params differ"
usage_error "merge of a file that is not a shard" merge "$tmp/x.json" "$tmp/full.json"
usage_error "merge of a missing file" merge "$tmp/x.json" "$tmp/nope.json"
usage_error "merge of a text file" merge "$tmp/x.json" "$tmp/full.txt"
usage_error "merge without shards" merge "$tmp/x.json"
usage_error "--shard I out of range" "${run[@]}" --shard 2/2
usage_error "--shard N zero" "${run[@]}" --shard 0/0
usage_error "--shard malformed" "${run[@]}" --shard 1-2

done_testing
