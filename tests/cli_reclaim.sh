#!/usr/bin/env bash
# Command-line tests of `mmlab run reclaim-large` against docs/INTERFACE.md (TAP).
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

"$MMLAB" list >"$tmp/list"
grep -q '^reclaim-large .*004_d709c66f3e505c38.txt' "$tmp/list"
ok $? "list names reclaim-large and its seed"

"$MMLAB" run reclaim-large --help >"$tmp/help" 2>&1
ok $? "run reclaim-large --help exits 0"
for opt in folio-order ra-kb map-size reclaim contpte tlb-flush-ns tlbi-ns processes data events \
	variant scale repeat seed json mem; do
	grep -q -- "--$opt" "$tmp/help"
	ok $? "--help lists --$opt"
done
grep -q 'default 1536M, at --scale tiny 256M, at --scale full 11G' "$tmp/help"
ok $? "--help shows the experiment's own --mem defaults"
for v in vanilla batched-referenced batched; do
	grep -q "^  $v " "$tmp/help"
	ok $? "--help lists variant $v"
done

usage_error "folio order above 9" run reclaim-large --folio-order 10
usage_error "reclaim more than the mapping" run reclaim-large --reclaim 128M --map-size 64M
grep -q -- '--reclaim 128M.*--map-size 64M' "$tmp/err"
ok $? "the reclaim error names both values"
usage_error "mapping larger than the simulated memory" run reclaim-large --map-size 4G --mem 256M
grep -q -- '--map-size 4G.*--mem 256M.*--map-size up to 186M' "$tmp/err"
ok $? "the memory error names --map-size, --mem and the largest valid --map-size"
usage_error "page tables of many processes beyond the simulated memory" \
	run reclaim-large --processes 64 --map-size 1G --mem 1100M
grep -q -- 'page tables of 63 more processes.*--mem 1100M.*--map-size up to' "$tmp/err"
ok $? "the memory error counts every process's page tables"
usage_error "mapping larger than the default memory" run reclaim-large --map-size 4G
grep -q -- '--mem 1536M' "$tmp/err"
ok $? "--mem defaults to 1536M at --scale default"
usage_error "unknown contpte word" run reclaim-large --contpte maybe
usage_error "contpte word given twice" run reclaim-large --contpte on,on
usage_error "negative TLB flush cost" run reclaim-large --tlb-flush-ns -1
usage_error "negative TLBI cost" run reclaim-large --tlbi-ns -1
usage_error "no process" run reclaim-large --processes 0
usage_error "mapping not whole folios" run reclaim-large --scale tiny --map-size 3M --reclaim 1M --folio-order 9 \
	--ra-kb 0
# Readahead's 128 KiB window makes order-5 folios: 3136K is not whole ones, at 64 KiB it is.
usage_error "mapping not whole readahead folios" run reclaim-large --scale tiny --map-size 3136K --reclaim 1M
grep -q -- 'order 5 of --folio-order 9 and --ra-kb 128: 131072 bytes' "$tmp/err"
ok $? "the folio-size error names the order readahead gives and why"
"$MMLAB" run reclaim-large --scale tiny --map-size 3136K --reclaim 1M --ra-kb 64 --repeat 1 --contpte off \
	--variant vanilla --events off >/dev/null 2>"$tmp/err"
ok $? "the same mapping in 64 KiB folios (--ra-kb 64) runs"
usage_error "read_ahead_kb not whole pages" run reclaim-large --ra-kb 6
grep -q -- 'valid: a multiple of 4 in 0..4096' "$tmp/err"
ok $? "the --ra-kb error says a multiple of 4"
usage_error "read_ahead_kb above 4096" run reclaim-large --ra-kb 4100
usage_error "unknown data word" run reclaim-large --data maybe

"$MMLAB" run reclaim-large --scale tiny --repeat 2 --json "$tmp/rl.json" >"$tmp/rl.txt" 2>"$tmp/rl.err"
ok $? "run reclaim-large --scale tiny --repeat 2 exits 0 ($(tail -n 1 "$tmp/rl.err" | head -c 200))"
grep -q '^#contpte *| *vanilla *| *batched-referenced *| *boost (%) *| *batched *| *boost (%)' "$tmp/rl.txt"
ok $? "the table has a column per variant with its boost"
grep -q '^on (arm64) ' "$tmp/rl.txt" && grep -q '^off (x86-64) ' "$tmp/rl.txt"
ok $? "the table has a row per contpte point"
python3 - "$tmp/rl.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["experiment"] == "reclaim-large" and d["seed"] == "004_d709c66f3e505c38.txt"
assert d["checks"] == {"invariants": "passed", "data": "passed"}, d["checks"]
p = d["params"]
assert p["mem"] == 256 << 20 and p["map-size"] == 64 << 20 and p["reclaim"] == 48 << 20, p
assert p["contpte"] == ["on", "off"] and p["data"] == "on" and p["events"] == "on", p
assert p["ra-kb"] == 128 and p["folio-order"] == 9, p
for key in ("folio-order", "tlb-flush-ns", "tlbi-ns", "processes"):
    assert key in p, key
variants = ("vanilla", "batched-referenced", "batched")
cells = {(r["variant"], r["point"]["contpte"]): r for r in d["results"]}
assert len(d["results"]) == 6 and set(cells) == {(v, c) for v in variants for c in ("on", "off")}, cells.keys()
for r in d["results"]:
    assert set(r["point"]) == {"contpte"}, r["point"]
    assert r["metric"] == "usec" and r["unit"] == "usec" and r["higher_is_better"] is False
    assert len(r["samples"]) == 2 and r["median"] > 0, r
    c = r["counters"]
    for k in ("ptes_visited", "tlb_flushes", "tlb_pages_flushed", "rmap_walks", "reclaimed_pages",
              "scanned_pages", "referenced_calls", "unmap_calls", "mapped_pages"):
        assert k in c, (r["variant"], k)
    assert c["reclaimed_pages"] >= p["reclaim"] // 4096, c
    assert c["ptes_visited"] > 0 and c["rmap_walks"] > 0, c
for c in ("on", "off"):
    # the same folios reclaimed by every design
    assert len({cells[(v, c)]["counters"]["reclaimed_pages"] for v in variants}) == 1, c
on = lambda v: cells[(v, "on")]["counters"]["ptes_visited"]
assert on("batched") < on("vanilla"), (on("batched"), on("vanilla"))
assert len(d["comparisons"]) == 4
for c in d["comparisons"]:
    assert c["baseline"] == "vanilla" and c["metric"] == "usec"
    assert (c["ratio"] < 1) == (c["change_pct"] > 0)
PY
ok $? "JSON: three variants at contpte on and off, usec, the rmap and TLB counters, checks passed, batched visits fewer PTEs"

"$MMLAB" run reclaim-large --scale tiny --repeat 1 --variant batched,vanilla --contpte off --processes 2 \
	--map-size 16M --reclaim 8M --data off --events off --json "$tmp/o.json" >/dev/null 2>"$tmp/o.err"
ok $? "a run with --variant, --contpte off, --processes 2, --data off, --events off ($(tail -n 1 "$tmp/o.err" | head -c 200))"
python3 - "$tmp/o.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["checks"] == {"invariants": "passed", "data": "passed"}, d["checks"]
assert [(r["variant"], r["point"]) for r in d["results"]] == \
    [("vanilla", {"contpte": "off"}), ("batched", {"contpte": "off"})], d["results"]
assert d["params"]["processes"] == 2 and d["params"]["data"] == "off"
for r in d["results"]:
    assert "ptes_visited" not in r["counters"] and "tlb_flushes" in r["counters"], r["counters"]
PY
ok $? "the options select the variants and the point; no event counters with --events off"

# --memcg on (the default: the series' test ran in a cgroup) and off. In virtual time on
# xeon-8369b-2s each PTE vanilla unmaps updates the cgroup's mapped-file statistic too,
# which batched does once a run: vanilla's unmap is longer with the cgroup, batched's
# reduction larger. The cgroup's books are checked (the checks must pass).
# rl_xeon OPTION VALUE: vanilla and batched at x86's point on xeon-8369b-2s, tiny, into
# $tmp/OPTION-VALUE.json; one check that it ran.
rl_xeon() {
	"$MMLAB" run reclaim-large --machine xeon-8369b-2s --scale tiny --repeat 1 --contpte off \
		--variant vanilla,batched "--$1" "$2" --json "$tmp/$1-$2.json" >/dev/null 2>"$tmp/xeon.err"
	ok $? "--$1 $2 runs on xeon-8369b-2s ($(tail -n 1 "$tmp/xeon.err" | head -c 200))"
}
rl_xeon memcg on
rl_xeon memcg off
python3 - "$tmp/memcg-on.json" "$tmp/memcg-off.json" <<'PY'
import json, sys
on, off = (json.load(open(f)) for f in sys.argv[1:3])
assert on["checks"] == off["checks"] == {"invariants": "passed", "data": "passed"}
assert on["params"]["memcg"] == "on" and off["params"]["memcg"] == "off"
u = lambda d, v: next(r for r in d["results"] if r["variant"] == v)["median"]
assert u(on, "vanilla") > u(off, "vanilla"), (u(on, "vanilla"), u(off, "vanilla"))
red = lambda d: 1 - u(d, "batched") / u(d, "vanilla")
assert red(on) > red(off), (red(on), red(off))
PY
ok $? "with the cgroup vanilla takes longer and batched's reduction is larger; the books balance"
usage_error_says 'valid: one of on\|off' "--memcg maybe" run reclaim-large --scale tiny --memcg maybe

# --mapper sleeping (the default) and running, in virtual time on xeon-8369b-2s (x86: the
# flush is deferred either way, the mapping process having run on CPU 1): asleep, its CPU is
# lazy and no deferred flush interrupts anyone; running, every batch's flush is a shootdown
# of tlb.flush, the same count in both designs, so batched's reduction is smaller.
rl_xeon mapper sleeping
rl_xeon mapper running
python3 - "$tmp/mapper-sleeping.json" "$tmp/mapper-running.json" <<'PY'
import json, sys
sl, ru = (json.load(open(f)) for f in sys.argv[1:3])
assert sl["params"]["mapper"] == "sleeping" and ru["params"]["mapper"] == "running"
assert sl["params"]["cpus"] == 2, sl["params"]["cpus"]
for d in (sl, ru):
    assert d["checks"] == {"invariants": "passed", "data": "passed"}, d["checks"]
    for r in d["results"]:
        c = r["counters"]
        assert c["tlb_flushes"] > 0, c
        want = c["tlb_flushes"] if d is ru else 0
        assert c["tlb_shootdowns"] == want and c["tlb_syncs"] == want, (d["params"]["mapper"], c)
# The phases of the call (virtual time): each nonzero, the rmap walks, __remove_mapping()
# and the batch frees inside shrink_folio_list(), which with isolation and putback is
# inside the call; the deferred flush's shootdowns show up in free_usec only.
for d in (sl, ru):
    for r in d["results"]:
        c = r["counters"]
        parts = ("isolate_usec", "list_usec", "putback_usec", "remove_usec", "free_usec",
                 "referenced_usec", "unmap_usec")
        assert all(c[k] > 0 for k in parts), c
        inner = c["referenced_usec"] + c["unmap_usec"] + c["remove_usec"] + c["free_usec"]
        assert inner < c["list_usec"], (inner, c["list_usec"])
        outer = c["isolate_usec"] + c["list_usec"] + c["putback_usec"]
        assert outer <= r["median"] < 1.05 * outer, (outer, r["median"])
for v in ("vanilla", "batched"):
    c = lambda d: next(r for r in d["results"] if r["variant"] == v)["counters"]
    assert c(ru)["free_usec"] > c(sl)["free_usec"], v
    for k in ("isolate_usec", "remove_usec", "referenced_usec", "unmap_usec"):
        assert c(ru)[k] == c(sl)[k], (v, k, c(ru)[k], c(sl)[k])
u = lambda d, v: next(r for r in d["results"] if r["variant"] == v)["median"]
assert u(ru, "vanilla") > u(sl, "vanilla") and u(ru, "batched") > u(sl, "batched")
red = lambda d: 1 - u(d, "batched") / u(d, "vanilla")
assert red(sl) > red(ru), (red(sl), red(ru))
PY
ok $? "asleep no flush interrupts anyone; running, each is a shootdown (in free_usec) and batched gains less; the phases nest"
usage_error_says 'valid: one of sleeping\|running' "--mapper awake" run reclaim-large --scale tiny --mapper awake
usage_error "one CPU leaves the mapping process none of its own" run reclaim-large --scale tiny --cpus 1

done_testing
