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
cp "$tmp/s0.json" "$tmp/s0copy.json"
"$MMLAB" merge "$tmp/x.json" "$tmp/s0.json" "$tmp/s1.json" "$tmp/s0copy.json" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "s0.json' and '.*s0copy.json' are both shard 0/2: their points overlap" "$tmp/err" && [ ! -s "$tmp/out" ]
ok $? "a copy of a shard: exit 1, both named, overlapping points ($(cat "$tmp/err"))"
# a shard that repeats another shard's points: shard 0 carrying a result of point 1 (shard 1's)
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
s0, s1 = (json.load(open(f"{t}/s{i}.json")) for i in (0, 1))
s0["results"].append(s1["results"][0])
json.dump(s0, open(f"{t}/s0-foreign.json", "w"))
s0 = json.load(open(f"{t}/s0.json"))
s0["results"].append(s0["results"][0])
json.dump(s0, open(f"{t}/s0-twice.json", "w"))
PY
"$MMLAB" merge "$tmp/x.json" "$tmp/s0-foreign.json" "$tmp/s1.json" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "s0-foreign.json' is shard 0/2 but has point {\"threads\": 2}" "$tmp/err" && [ ! -s "$tmp/out" ]
ok $? "a shard that repeats another shard's point: exit 1, named ($(cat "$tmp/err"))"
"$MMLAB" merge "$tmp/x.json" "$tmp/s1.json" "$tmp/s0-foreign.json" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "s0-foreign.json' is shard 0/2 but has point {\"threads\": 2}" "$tmp/err"
ok $? "the same, given after the shard whose point it repeats ($(cat "$tmp/err"))"
"$MMLAB" merge "$tmp/x.json" "$tmp/s0-twice.json" "$tmp/s1.json" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "s0-twice.json': vanilla at {\"threads\": 1} in ops_per_sec twice" "$tmp/err"
ok $? "a shard that repeats one of its own results: exit 1, named ($(cat "$tmp/err"))"
[ ! -e "$tmp/x.json" ]
ok $? "no refused merge wrote OUT"
# merged comparisons: the interval oriented like the ratio (candidate/vanilla), from the samples
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
for i in (0, 1):
    d = json.load(open(f"{t}/s{i}.json"))
    for r in d["results"]:
        r["samples"] = [(100.0 if r["variant"] == "vanilla" else 200.0) + k for k in range(len(r["samples"]))]
    json.dump(d, open(f"{t}/syn{i}.json", "w"))
PY
"$MMLAB" merge "$tmp/syn.json" "$tmp/syn0.json" "$tmp/syn1.json" >/dev/null 2>&1 &&
python3 - "$tmp/syn.json" <<'PY'
import json, sys
cs = [c for c in json.load(open(sys.argv[1]))["comparisons"] if c["variant"] == "frozen-bit"]
assert len(cs) == 3, cs
for c in cs:
    assert 1.9 < c["ratio"] < 2.1 and 1.9 < c["ci95_low"] <= c["ratio"] <= c["ci95_high"] < 2.1, c
PY
ok $? "merge: frozen-bit at twice vanilla's samples gives a ratio and an interval about 2"
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

# In virtual time a sample is a function of its inputs alone (issue 23, item 6):
# a run split into shards and merged, a run with its variants in another order,
# and a run of one point alone give every sample the unsharded run gave, bit for
# bit.  Each experiment whose simulated CPUs touch memory the runner allocated
# (readseq's records and histograms, refcount-scale's per-thread results) or
# whose event build runs first (migrate-fork) is here.
same_samples() {	# same_samples A.json B.json: B's every (point, variant) sample list is A's
python3 - "$1" "$2" <<'PY'
import json, sys
key = lambda r: (r["metric"], json.dumps(r["point"], sort_keys=True), r["variant"])
a = {key(r): r["samples"] for r in json.load(open(sys.argv[1]))["results"]}
b = {key(r): r["samples"] for r in json.load(open(sys.argv[2]))["results"]}
assert b and set(b) <= set(a), (sorted(b), sorted(a))
bad = [(k, a[k], b[k]) for k in b if a[k] != b[k]]
assert not bad, bad[:3]
PY
}
vt_same() {	# vt_same NAME POINT-OPTION LIST ONE VARIANTS REVERSED [OPTIONS...]
	local name=$1 opt=$2 list=$3 one=$4 vars=$5 rev=$6; shift 6
	local r=("$MMLAB" run "$name" --machine e5-2690v3-2s --scale tiny --repeat 2 "$@")
	"${r[@]}" $opt "$list" --variant "$vars" --json "$tmp/vt-full.json" >/dev/null 2>&1 &&
	"${r[@]}" $opt "$list" --variant "$vars" --shard 0/2 --json "$tmp/vt-s0.json" >/dev/null 2>&1 &&
	"${r[@]}" $opt "$list" --variant "$vars" --shard 1/2 --json "$tmp/vt-s1.json" >/dev/null 2>&1 &&
	"$MMLAB" merge "$tmp/vt-m.json" "$tmp/vt-s1.json" "$tmp/vt-s0.json" >/dev/null 2>&1 &&
	same_samples "$tmp/vt-full.json" "$tmp/vt-m.json"
	ok $? "$name in virtual time: shards merged give the unsharded run's samples bit for bit"
	"${r[@]}" $opt "$list" --variant "$rev" --json "$tmp/vt-rev.json" >/dev/null 2>&1 &&
	same_samples "$tmp/vt-full.json" "$tmp/vt-rev.json"
	ok $? "$name in virtual time: variants in the other order ($rev) give the same samples"
	"${r[@]}" $opt "$one" --variant "$vars" --json "$tmp/vt-one.json" >/dev/null 2>&1 &&
	same_samples "$tmp/vt-full.json" "$tmp/vt-one.json"
	ok $? "$name in virtual time: $opt $one alone gives the same samples"
}
vt_same refcount-scale --threads 1,2,3 3 vanilla,frozen-bit frozen-bit,vanilla
vt_same readseq --threads 1,2 2 vanilla,batched batched,vanilla
vt_same migrate-fork --children 1,10 10 vanilla,mgt-entry mgt-entry,vanilla
# the check itself must catch one sample that differs in its last bit
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=d['results'][-1]; \
r['samples'][-1] *= 1 + 2**-52; json.dump(d, open(sys.argv[2], 'w'))" "$tmp/vt-full.json" "$tmp/vt-bit.json"
! same_samples "$tmp/vt-full.json" "$tmp/vt-bit.json" 2>/dev/null
ok $? "the bit-for-bit check catches a sample one bit off"

done_testing
