#!/usr/bin/env bash
# Command-line tests of `mmlab run alloc-free`, the two-file experiment of
# docs/PORTING.md, on the host and on a simulated machine (TAP).
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

"$MMLAB" list >"$tmp/list"
grep -qE '^alloc-free +- +alloc_pages\(\) and __free_pages\(\) of one order' "$tmp/list"
ok $? "list names alloc-free, no seed, and what it times"

"$MMLAB" run alloc-free --help >"$tmp/help" 2>&1
ok $? "run alloc-free --help exits 0"
grep -q -- '--order' "$tmp/help" && grep -q -- '--iterations' "$tmp/help" && grep -q -- '--cpus' "$tmp/help" &&
	grep -q '^  vanilla ' "$tmp/help" && grep -q '^  frozen-bit ' "$tmp/help"
ok $? "--help lists --order, --iterations, --cpus and both variants"

# On the host: every order a point, both variants, the checks passed.
"$MMLAB" run alloc-free --scale tiny --json "$tmp/host.json" >"$tmp/host.txt" 2>"$tmp/err"
ok $? "run alloc-free --scale tiny exits 0 ($(tail -n 1 "$tmp/err" | head -c 160))"
grep -q '^#order *| *vanilla *| *frozen-bit *| *boost (%)' "$tmp/host.txt" &&
	[ "$(grep -cE '^(0|3|9) +\|' "$tmp/host.txt")" -ge 3 ]
ok $? "the table has a column per variant and a row per order"
python3 - "$tmp/host.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["experiment"] == "alloc-free" and d["seed"] == "", (d["experiment"], d["seed"])
assert d["checks"] == {"invariants": "passed", "data": "passed"}, d["checks"]
p = d["params"]
assert p["order"] == [0, 3, 9] and p["iterations"] == 200 and p["cpus"] == 1, p
assert p["variant"] == ["vanilla", "frozen-bit"], p["variant"]
res = {(r["variant"], r["point"]["order"]): r for r in d["results"]}
assert set(res) == {(v, o) for v in ("vanilla", "frozen-bit") for o in (0, 3, 9)}, set(res)
for r in res.values():
    assert r["metric"] == "usec" and r["higher_is_better"] is False
    assert len(r["samples"]) == 2 and r["median"] > 0
    # the median of the samples' ns_per_op: the loop's time over its 200 pairs
    assert abs(r["counters"]["ns_per_op"] - r["median"] * 1000 / 200) < 1e-9 * r["counters"]["ns_per_op"], r
    assert "events_per_op" not in r["counters"], "the host counts no machine events"
cmp = {c["point"]["order"]: c for c in d["comparisons"]}
assert set(cmp) == {0, 3, 9} and all(c["baseline"] == "vanilla" and c["variant"] == "frozen-bit"
                                     for c in cmp.values()), d["comparisons"]
PY
ok $? "host JSON: a result per variant and order, usec, ns_per_op, frozen-bit compared with vanilla"

# On a simulated machine: the same numbers twice; frozen-bit's last put is one
# compare-exchange more than vanilla's, an event a free.
vt=(run alloc-free --scale tiny --machine e5-2690v3-2s --order 0,9 --iterations 100)
"$MMLAB" "${vt[@]}" --json "$tmp/vt-a.json" >/dev/null 2>"$tmp/err" &&
	"$MMLAB" "${vt[@]}" --json "$tmp/vt-b.json" >/dev/null 2>>"$tmp/err"
ok $? "run alloc-free --machine e5-2690v3-2s exits 0, twice ($(tail -n 1 "$tmp/err" | head -c 160))"
python3 - "$tmp/vt-a.json" "$tmp/vt-b.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["machine"]["name"] == "e5-2690v3-2s", a["machine"]
assert a["checks"] == {"invariants": "passed", "data": "passed"}, a["checks"]
ra, rb = ({(r["variant"], r["point"]["order"]): r for r in d["results"]} for d in (a, b))
assert set(ra) == set(rb) == {(v, o) for v in ("vanilla", "frozen-bit") for o in (0, 9)}, set(ra)
for k, r in ra.items():
    assert r["samples"] == rb[k]["samples"] and r["counters"] == rb[k]["counters"], k
    c = r["counters"]
    assert r["median"] > 0 and c["blocks_per_op"] > 0 and c["events_per_op"] > 0, (k, c)
    assert abs(c["ns_per_op"] - r["median"] * 1000 / 100) < 1e-9 * c["ns_per_op"], (k, c["ns_per_op"])
for o in (0, 9):
    van, fb = ra[("vanilla", o)]["counters"], ra[("frozen-bit", o)]["counters"]
    assert abs(fb["events_per_op"] - van["events_per_op"] - 1) < 1e-9, (o, van["events_per_op"], fb["events_per_op"])
PY
ok $? "virtual time: the same numbers twice, every check, frozen-bit one event a free more than vanilla"

# The report of a run (make run's tools/report.py) says it has no seed.
mkdir -p "$tmp/report"
cp "$tmp/host.json" "$tmp/report/alloc-free.json"
"${PYTHON:-build/venv/bin/python}" tools/report.py "$tmp/report" >/dev/null 2>"$tmp/err" &&
	grep -qxF '| [alloc-free](#alloc-free) | none | invariants passed, data passed |' "$tmp/report/report.md" &&
	grep -qxF 'Seed: none (an experiment of its own).' "$tmp/report/report.md" &&
	grep -q '^| `vanilla` | `frozen-bit` | none (no seed) |' "$tmp/report/report.md"
ok $? "report.md: seed none, vanilla its baseline ($(tail -n 1 "$tmp/err" | head -c 160))"

# The bounds of each option: at them it runs, below and above it exits 2.
at_bound() {	# at_bound DESCRIPTION ARGS...
	local what=$1; shift
	"$MMLAB" run alloc-free --scale tiny --repeat 1 --variant vanilla "$@" >/dev/null 2>"$tmp/err"
	ok $? "$what: runs ($(tail -n 1 "$tmp/err" | head -c 120))"
}
at_bound "--order 0,10, the lowest and highest orders" --order 0,10 --iterations 1
usage_error_says "^mmlab: --order.*-1 is out of range.*0\.\.10" "--order -1" run alloc-free --order -1
usage_error_says "^mmlab: --order.*11 is out of range.*0\.\.10" "--order 11" run alloc-free --order 11
usage_error_says "^mmlab: --order.*range 3-2 is empty" "--order 3-2" run alloc-free --order 3-2
at_bound "--iterations 1" --iterations 1 --order 0
usage_error_says "^mmlab: --iterations.*'0'.*1\.\.100000000" "--iterations 0" run alloc-free --iterations 0
usage_error_says "^mmlab: --iterations.*'100000001'.*1\.\.100000000" "--iterations 100000001" \
	run alloc-free --iterations 100000001
# 100000000 iterations are accepted: the error that stops the run is --json's, checked after the options.
usage_error_says "^mmlab: --json: " "--iterations 100000000 is accepted" \
	run alloc-free --iterations 100000000 --json "$tmp/no/such/dir/x.json"
at_bound "--cpus 256, the host build's CPUs (1, the default, ran above)" --cpus 256 --iterations 1 --order 0
usage_error_says "^mmlab: --cpus.*'0'.*1\.\.256" "--cpus 0" run alloc-free --cpus 0
usage_error_says "^mmlab: --cpus.*'257'.*1\.\.256" "--cpus 257" run alloc-free --cpus 257
at_bound "--cpus 24 on e5-2690v3-2s, its CPUs" --machine e5-2690v3-2s --cpus 24 --iterations 1 --order 0
usage_error_says "^mmlab: --cpus: 25 is more than e5-2690v3-2s's 24 CPUs; valid: 1\.\.24" \
	"--cpus 25 on e5-2690v3-2s" run alloc-free --machine e5-2690v3-2s --cpus 25

done_testing
