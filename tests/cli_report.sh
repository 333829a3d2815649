#!/usr/bin/env bash
# tools/report.py on real virtual-time runs whose presets carry the seeds' own numbers (TAP):
# every section and plot is made, and the table "Against the seed's own table" has the rows
# each seed series gives, with a value, a counter and a range:
#   refcount-scale@e5-2690v3-2s   seed 000, the metric at threads 1 and 2
#   free-contig@m2-vm             seed 001, ns_per_page at order 9
#   reclaim-large@yitian710-32c   seed 004, ns_per_reclaimed_page at contpte on
#   migrate-fork@qemu-2node       seed 003, the metric's range at 1000 children (not run here:
#                                 no row), so a run at other points has no seed table
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
PY
ok $? "a seed range: inside it, or the error from its nearer end"

done_testing
