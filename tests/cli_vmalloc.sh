#!/usr/bin/env bash
# Command-line tests of `mmlab run vmalloc` against docs/INTERFACE.md (TAP).
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

"$MMLAB" list >"$tmp/list"
grep -q '^vmalloc .*001_f30f4b09299f9d59.txt' "$tmp/list"
ok $? "list names vmalloc and its seed"

"$MMLAB" run vmalloc --help >"$tmp/help" 2>&1
ok $? "run vmalloc --help exits 0"
for opt in tests loops pages tlb-flush-ns arch variant scale repeat seed json mem; do
	grep -q -- "--$opt" "$tmp/help"
	ok $? "--help lists --$opt"
done

"$MMLAB" run vmalloc --scale tiny --json "$tmp/v.json" >"$tmp/table" 2>"$tmp/progress"
ok $? "run vmalloc --scale tiny exits 0"
grep -q '^test_vmalloc benchmark *| *vanilla *| *vanilla-v1base *| *boost (%) *| *batched *| *boost vs vanilla-v1base (%) *| *bulk' "$tmp/table"
ok $? "the table has a column per variant with its boost, batched's against v1's base"
grep -q '| *batched/vanilla-v1base *| *batched/vanilla *|' "$tmp/table" &&
	grep -q '^baseline of batched: vanilla-v1base .*also compared with vanilla$' "$tmp/table"
ok $? "batched's ratios to both bases, and the footer names its baseline"
grep -q 'fix_size.*p:512.*h:1' "$tmp/table"
ok $? "the table has the thread's fix_size p:512 h:1 row"
python3 - "$tmp/v.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["experiment"] == "vmalloc"
assert d["seed"] == "001_f30f4b09299f9d59.txt"
assert d["checks"] == {"invariants": "passed", "data": "passed"}, d["checks"]
variants = {r["variant"] for r in d["results"]}
assert variants == {"vanilla", "vanilla-v1base", "batched", "bulk", "chunk-prepare"}, variants
tests = {r["point"]["test"] for r in d["results"]}
expect = {"fix_size_alloc_test", "fix_align_alloc_test", "random_size_alloc_test",
          "random_size_align_alloc_test", "long_busy_list_alloc_test",
          "full_fit_alloc_test", "vm_map_ram_test"}
assert tests == expect, tests
fix = {(r["point"]["pages"], r["point"]["huge"]) for r in d["results"]
       if r["point"]["test"] == "fix_size_alloc_test"}
assert fix == {(1, 0), (4, 0), (16, 0), (64, 0), (256, 0), (512, 0),
               (16, 1), (64, 1), (256, 1), (512, 1)}, fix
for r in d["results"]:
    assert set(r["point"]) == {"test", "pages", "huge"}, r["point"]
    assert r["metric"] == "usec" and r["unit"] == "usec" and not r["higher_is_better"]
    assert len(r["samples"]) == d["params"]["repeat"] and r["median"] > 0
    c = r["counters"]
    fpo = c["free_pages_by_order"]
    assert isinstance(fpo, list) and len(fpo) == 11, fpo
    assert all(isinstance(x, (int, float)) and x >= 0 for x in fpo), fpo
    assert len(c["pcp_pages_by_order"]) == 11
    assert c["test_failed"] == 0
    for k in ("loops", "tlb_flushes", "tlb_pages_flushed", "purges", "pgtable_pages"):
        assert k in c, k
    if r["point"]["test"] == "fix_size_alloc_test" and r["point"]["pages"] >= 64:
        assert c["loops"] == (d["params"]["loops"] + 4) // 5, c["loops"]
    else:
        assert c["loops"] == d["params"]["loops"], c["loops"]
assert len(d["results"]) == 16 * 5, len(d["results"])
assert len(d["comparisons"]) == 16 * 5, len(d["comparisons"])
base = {"vanilla-v1base": "vanilla", "batched": "vanilla-v1base", "bulk": "vanilla",
        "chunk-prepare": "vanilla"}
for c in d["comparisons"]:
    assert c["metric"] == "usec"
    if c["own_baseline"]:
        assert c["baseline"] == base[c["variant"]], c
    else:
        assert c["variant"] == "batched" and c["baseline"] == "vanilla", c
for key in ("tests", "loops", "pages", "tlb-flush-ns", "arch", "scale", "repeat", "seed"):
    assert key in d["params"], key
PY
ok $? "JSON follows the contract: points, metric usec, variants, free_pages_by_order lists of 11, checks passed"

"$MMLAB" run vmalloc --scale tiny --variant vanilla,bulk --tests fix_size_alloc_test --pages 512 \
	--arch x86-64 --loops 20 --json "$tmp/a.json" >/dev/null 2>&1
ok $? "a run of one case with --variant, --tests, --pages, --arch, --loops"
python3 - "$tmp/a.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert {r["variant"] for r in d["results"]} == {"vanilla", "bulk"}
assert {(r["point"]["test"], r["point"]["pages"], r["point"]["huge"]) for r in d["results"]} == \
    {("fix_size_alloc_test", 512, 0), ("fix_size_alloc_test", 512, 1)}
assert d["params"]["arch"] == "x86-64"
for r in d["results"]:
    assert r["counters"]["loops"] == 4
PY
ok $? "the options select the variants, the case and its rows"

"$MMLAB" run vmalloc --scale tiny --variant vanilla --tests align_shift_alloc_test >"$tmp/xfail" 2>&1
ok $? "align_shift_alloc_test, an expected failure, runs and exits 0"

"$MMLAB" run vmalloc --scale tiny --variant vanilla --tests full_fit_alloc_test,fix_align_alloc_test \
	--json "$tmp/l.json" >/dev/null 2>&1
ok $? "--tests takes a list"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert [r['point']['test'] for r in d['results']] == ['fix_align_alloc_test', 'full_fit_alloc_test']; assert d['params']['tests'] == ['full_fit_alloc_test', 'fix_align_alloc_test']" "$tmp/l.json"
ok $? "a list runs those cases, in the table's order, and is recorded as given"

usage_error "unknown test" run vmalloc --tests no_such_test
usage_error "unknown test in a list" run vmalloc --tests fix_size_alloc_test,bogus
usage_error "empty item in a list" run vmalloc --tests fix_size_alloc_test,,full_fit_alloc_test
usage_error "zero loops" run vmalloc --loops 0
usage_error "zero pages" run vmalloc --pages 0
usage_error "pages above range" run vmalloc --pages 1,100000
usage_error "negative TLB flush cost" run vmalloc --tlb-flush-ns -1
usage_error "unknown arch" run vmalloc --arch sparc
usage_error "unknown variant" run vmalloc --variant vanilla,frozen-bit
usage_error "memory too small for long_busy_list" run vmalloc --mem 16M --tests long_busy_list_alloc_test

done_testing
