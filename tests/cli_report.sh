#!/usr/bin/env bash
# tools/report.py on real virtual-time runs whose presets carry the seeds' own numbers (TAP):
# every section and plot is made, and the table "Against the seed's own table" has the rows
# each seed series gives, with a value, a counter and a range:
#   refcount-scale@e5-2690v3-2s   seed 000, the metric at threads 1 and 2
#   free-contig@m2-vm             seed 001, ns_per_page at order 9
#   reclaim-large@yitian710-32c   seed 004, ns_per_reclaimed_page at contpte on
#   migrate-fork@qemu-2node       seed 003, the metric's range at 1000 children (not run here:
#                                 no row), so a run at other points has no seed table
# and the table "Against the seed's own gains" the change series give (change_pct, over the
# variant's own baseline or over a named one), at points of several axes:
#   vmalloc@graviton3-64c         seed 001, batched over vanilla-v1base at test/pages/huge
#   readseq@icelake-32v           seed 002, the throughput's change, and P50..P99 (other metrics)
#   reclaim-large@xeon-8369b-2s   seed 004, ranges "at least", one over batched-referenced
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

PY=${PYTHON:-build/venv/bin/python}
d=$tmp/results/.20990101-000000.partial
mkdir -p "$d"
"$MMLAB" run refcount-scale --machine e5-2690v3-2s --threads 1,2 --repeat 2 --variant vanilla,frozen-bit \
	--json "$d/refcount-scale@e5-2690v3-2s.json" >/dev/null 2>&1 &&
"$MMLAB" run free-contig --machine m2-vm --scale tiny --variant vanilla,batched \
	--json "$d/free-contig@m2-vm.json" >/dev/null 2>&1 &&
"$MMLAB" run reclaim-large --machine yitian710-32c --scale tiny --contpte on \
	--json "$d/reclaim-large@yitian710-32c.json" >/dev/null 2>&1 &&
"$MMLAB" run migrate-fork --machine qemu-2node --scale tiny --variant vanilla,mgt-entry \
	--json "$d/migrate-fork@qemu-2node.json" >/dev/null 2>&1
ok $? "four virtual-time runs on presets with seed series"

"$MMLAB" run vmalloc --machine graviton3-64c --tests fix_size_alloc_test --pages 512 --loops 100 --cpus 64 \
	--repeat 1 --variant vanilla-v1base,batched --json "$d/vmalloc@graviton3-64c.json" >/dev/null 2>&1 &&
"$MMLAB" run readseq --machine icelake-32v --threads 32 --file-size 256K --mem 256M --repeat 1 \
	--variant vanilla,batched --json "$d/readseq@icelake-32v.json" >/dev/null 2>&1 &&
"$MMLAB" run reclaim-large --machine xeon-8369b-2s --scale tiny --contpte off --repeat 1 \
	--json "$d/reclaim-large@xeon-8369b-2s.json" >/dev/null 2>&1
ok $? "three virtual-time runs on presets with change series"

"$PY" tools/report.py "$d" >"$tmp/report.out" 2>&1
ok $? "report.py exits 0 ($(grep -m1 'no plot\|Error' "$tmp/report.out" | head -c 160))"
! grep -q "no plot" "$tmp/report.out"
ok $? "every run has its plot"
[ -s "$d/refcount-scale@e5-2690v3-2s.png" ] && [ -s "$d/free-contig@m2-vm.png" ] &&
	[ -s "$d/reclaim-large@yitian710-32c.png" ] && [ -s "$d/migrate-fork@qemu-2node.png" ]
ok $? "the four plots are written"

python3 - "$d/report.md" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
sections = re.split(r"^## ", text, flags=re.M)
def seed_rows(name):
    sec = next((s for s in sections if s.startswith(name)), None)
    assert sec is not None, name
    if "Against the seed's own table" not in sec:
        return []
    table = sec.split("Against the seed's own table", 1)[1].split("\n### ", 1)[0]
    return [[c.strip() for c in l.strip("|").split("|")] for l in table.splitlines()
            if l.startswith("| ") and not l.startswith("| ---") and "variant" not in l]
r = seed_rows("refcount-scale@e5-2690v3-2s")
assert [(x[0], x[1], x[2]) for x in r] == [("1", "vanilla", "ops_per_sec"), ("1", "frozen-bit", "ops_per_sec"),
        ("2", "vanilla", "ops_per_sec"), ("2", "frozen-bit", "ops_per_sec")], r
assert r[0][4] == "1343381" and r[3][4] == "2455837", r       # the seed's column
# The 1-thread vanilla point is the one `syscall` was fitted to (its source quotes it): "fit",
# and said under the table; frozen-bit's 1-thread point and the 2-thread ones are predictions.
assert r[0][5] == "fit" and all(x[5] != "fit" for x in r[1:]), r
sec = next(s for s in sections if s.startswith("refcount-scale@e5-2690v3-2s"))
assert "Fitted, not predicted" in sec and "`syscall` 682" in sec, sec[-800:]
assert "Fitted, not predicted" not in next(s for s in sections if s.startswith("free-contig@m2-vm"))
f = seed_rows("free-contig@m2-vm")
assert [(x[0], x[1], x[2], x[4]) for x in f] == [("9", "vanilla", "ns_per_page", "32.9"),
                                                 ("9", "batched", "ns_per_page", "2.66")], f
assert f[1][6] and f[1][7] == "+91.9", f        # boosts: the model's and the seed's
y = seed_rows("reclaim-large@yitian710-32c")
assert [x[1] for x in y] == ["vanilla", "batched-referenced", "batched"], y
assert all(x[2] == "ns_per_reclaimed_page" for x in y), y
assert seed_rows("migrate-fork@qemu-2node") == [], "no seed point at 10 children"
PY
ok $? "the seed tables: the metric, a counter, and none where the run has no seed point"

# Change series: the model's change from the run's own medians, the seed's, the error in points.
python3 - "$d" <<'PY'
import json, re, sys
d = sys.argv[1]
text = open(d + "/report.md").read()
sections = re.split(r"^## ", text, flags=re.M)
def table(name, title):
    sec = next(s for s in sections if s.startswith(name))
    if title not in sec:
        return []
    t = sec.split(title, 1)[1].split("\n### ", 1)[0]
    return [[c.strip() for c in l.strip("|").split("|")] for l in t.splitlines()
            if l.startswith("| ") and not l.startswith("| ---") and "variant" not in l]
def median(run, variant, metric=None, **point):
    r = json.load(open("%s/%s.json" % (d, run)))
    return next(x["median"] for x in r["results"] if x["variant"] == variant and x["point"] == point
                and (metric is None or x["metric"] == metric))
gains = "Against the seed's own gains"
v = table("vmalloc@graviton3-64c", gains)
assert [r[:3] for r in v] == [["fix_size_alloc_test/512/0", "batched", "vanilla-v1base"],
                              ["fix_size_alloc_test/512/1", "batched", "vanilla-v1base"]], v
pt = dict(test="fix_size_alloc_test", pages=512, huge=1)
m = (1 - median("vmalloc@graviton3-64c", "batched", **pt) /
     median("vmalloc@graviton3-64c", "vanilla-v1base", **pt)) * 100
assert v[1][3] == "%+.1f" % m and v[1][4] == "+81.6" and v[1][5] == "%+.1f" % (m - 81.6), (v, m)
assert v[0][4] == "+65.1", v
rs = table("readseq@icelake-32v", gains)
m = (median("readseq@icelake-32v", "batched", "ops_per_sec", threads=32) /
     median("readseq@icelake-32v", "vanilla", "ops_per_sec", threads=32) - 1) * 100
assert rs == [["32", "batched", "vanilla", "%+.1f" % m, "+51.0", "%+.1f" % (m - 51)]], (rs, m)
# readseq's latencies are metrics of their own: the seed's P50..P99 beside the model's, the
# batched row's boost a reduction (lower is better), the seed's P50 -63.9%.
rv = table("readseq@icelake-32v", "Against the seed's own table")
assert [(r[1], r[2], r[4]) for r in rv] == [("vanilla", "lat_p50_us", "6.15"), ("batched", "lat_p50_us", "2.22"),
        ("vanilla", "lat_p75_us", "13.38"), ("batched", "lat_p75_us", "7.75"),
        ("vanilla", "lat_p99_us", "507.9"), ("batched", "lat_p99_us", "348.5")], rv
p50 = median("readseq@icelake-32v", "vanilla", "lat_p50_us", threads=32)
assert rv[0][3] == "%.4g" % p50 and rv[1][7] == "+63.9", rv
x = table("reclaim-large@xeon-8369b-2s", gains)
assert [r[:3] for r in x] == [["off", "batched", "batched-referenced"],
                              ["off", "batched-referenced", "vanilla"]], x
assert x[0][4] == "+50.0..+100.0" and x[1][4] == "+10.0..+100.0", x
PY
ok $? "the gains table: a three-axis point, the metric's change, another metric, a named baseline"

# A range: the RFC's three runs at 1000 children; 'inside' when the model is within them.
python3 - "$d/migrate-fork@qemu-2node.json" "$tmp/r2/.20990101-000001.partial" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    r["point"] = {"children": 1000}
    x = 150000.0 if r["variant"] == "vanilla" else 10000.0
    r["samples"] = [x]
    r["median"] = r["min"] = r["max"] = x
for c in d.get("comparisons", []):
    c["point"] = {"children": 1000}
d["points"] = [{"index": 0, "label": "1000", "point": {"children": 1000}}]
os.makedirs(sys.argv[2])
json.dump(d, open(sys.argv[2] + "/migrate-fork@qemu-2node.json", "w"))
PY
"$PY" tools/report.py "$tmp/r2/.20990101-000001.partial" >/dev/null 2>&1 &&
python3 - "$tmp/r2/.20990101-000001.partial/report.md" <<'PY'
import sys
t = open(sys.argv[1]).read().split("Against the seed's own table", 1)[1].split("\n### ", 1)[0]
rows = [[c.strip() for c in l.strip("|").split("|")] for l in t.splitlines()
        if l.startswith("| 1000")]
v = next(r for r in rows if r[1] == "vanilla")
m = next(r for r in rows if r[1] == "mgt-entry")
assert v[4] == "120000..197000" and v[5] == "inside", v
assert m[4] == "18000..58000" and m[5] == "-44%", m      # 10000 against the range's low end
# The RFC's shares (a counter in per cent): the seed's range, and no boost of a share.
sh = {r[1]: r for r in rows if r[2] == "restore_pct"}
assert sh["vanilla"][4] == "86.1..88.4" and sh["mgt-entry"][4] == "61.1..67.2", sh
assert sh["mgt-entry"][6] == sh["mgt-entry"][7] == "", sh
assert m[6] != "", m                                     # the metric's boost is there
PY
ok $? "a seed range: inside it, or the error from its nearer end; no boost of a share"

# A change's error in points: inside a range (either end included), else from the nearer end;
# a single value: the difference. Model 60 against 50..100, 60..70, 61..70, 40..59, and 55.
python3 - "$d/reclaim-large@xeon-8369b-2s.json" "$tmp/r3" <<'PY'
import json, os, sys
src, out = sys.argv[1], sys.argv[2]
d = json.load(open(src))
def set_median(variant, x):
    for r in d["results"]:
        if r["variant"] == variant and r["metric"] == d["results"][0]["metric"]:
            r["samples"] = [x]
            r["median"] = r["min"] = r["max"] = x
set_median("vanilla", 100.0)
set_median("batched-referenced", 40.0)     # 60% off vanilla
set_median("batched", 40.0)                # 0% off batched-referenced
cases = {"a": "50..100", "b": "60..70", "c": "61..70", "d": "40..59", "e": "55"}
for k, rng in cases.items():
    lo, hi = (float(v) for v in rng.split("..")) if ".." in rng else (float(rng),) * 2
    d["machine"]["seed_points"] = [
        {"variant": "batched-referenced", "counter": "change_pct", "source": "t",
         "points": {"off": [lo, hi] if lo != hi else lo}},
        {"variant": "batched", "counter": "change_pct_over_batched-referenced", "source": "t",
         "points": {"off": [-1, 1]}}]
    os.makedirs("%s/%s/.20990101-000002.partial" % (out, k))
    json.dump(d, open("%s/%s/.20990101-000002.partial/reclaim-large@xeon-8369b-2s.json" % (out, k), "w"))
PY
for k in a b c d e; do
	"$PY" tools/report.py "$tmp/r3/$k/.20990101-000002.partial" >/dev/null 2>&1 || echo "report $k failed"
done >"$tmp/r3.out"
python3 - "$tmp/r3" <<'PY'
import sys
want = {"a": "inside", "b": "inside", "c": "-1.0", "d": "+1.0", "e": "+5.0"}
for k, err in want.items():
    t = open("%s/%s/.20990101-000002.partial/report.md" % (sys.argv[1], k)).read()
    t = t.split("Against the seed's own gains", 1)[1].split("\n### ", 1)[0]
    rows = {r[1]: r for r in ([c.strip() for c in l.strip("|").split("|")] for l in t.splitlines()
                              if l.startswith("| off"))}
    assert rows["batched-referenced"][3] == "+60.0" and rows["batched-referenced"][5] == err, (k, rows)
    assert rows["batched"][3] == "+0.0" and rows["batched"][5] == "inside", (k, rows)
PY
ok $? "a change's error: inside a range at either end, else from the nearer end ($(head -c 100 "$tmp/r3.out"))"

# A fit is the fitted setting's number whole: 134338 and 13433810 are not 1343381 (at 2 threads
# here), 1343381 is (at 1 thread).
python3 - "$d/refcount-scale@e5-2690v3-2s.json" "$tmp/r4/.20990101-000003.partial" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
for sp in d["machine"]["seed_points"]:
    if sp["variant"] == "vanilla":
        sp["points"] = {"1": 1343381, "2": 134338}
    else:
        sp["points"] = {"1": 13433810, "2": 2455837}
os.makedirs(sys.argv[2])
json.dump(d, open(sys.argv[2] + "/refcount-scale@e5-2690v3-2s.json", "w"))
PY
"$PY" tools/report.py "$tmp/r4/.20990101-000003.partial" >/dev/null 2>&1 &&
python3 - "$tmp/r4/.20990101-000003.partial/report.md" <<'PY'
import sys
t = open(sys.argv[1]).read().split("Against the seed's own table", 1)[1].split("\n### ", 1)[0]
rows = [[c.strip() for c in l.strip("|").split("|")] for l in t.splitlines() if l.startswith("| 1 ") or l.startswith("| 2 ")]
fit = {(r[0], r[1]): r[5] == "fit" for r in rows}
assert fit == {("1", "vanilla"): True, ("1", "frozen-bit"): False, ("2", "vanilla"): False,
               ("2", "frozen-bit"): False}, rows
PY
ok $? "a fit is the number whole, not a part of a longer one"

done_testing
