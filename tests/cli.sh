#!/usr/bin/env bash
# Command-line tests of build/mmlab against docs/INTERFACE.md (TAP).
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

"$MMLAB" list >"$tmp/list"
ok $? "mmlab list exits 0"
grep -q '^refcount-scale .*000_e9374adfdd9a9d66.txt' "$tmp/list"
ok $? "list names refcount-scale and its seed"

# mmlab variants NAME: the built variants (all of them, or those of make DESIGNS=...)
"$MMLAB" variants vmalloc >"$tmp/variants"
ok $? "mmlab variants vmalloc exits 0"
"$MMLAB" run vmalloc --help >"$tmp/vhelp" 2>&1
[ "$(head -1 "$tmp/variants")" = vanilla ] &&
	while read -r v; do grep -q "^  $v " "$tmp/vhelp" || exit 1; done <"$tmp/variants"
ok $? "it lists vanilla first, and only variants --help shows ($(tr '\n' ' ' <"$tmp/variants"))"
usage_error "variants without a name" variants
usage_error "variants of an unknown experiment" variants nosuch

"$MMLAB" run refcount-scale --help >"$tmp/help" 2>&1
ok $? "run refcount-scale --help exits 0"
for opt in threads seconds read-size pages syscall-ns variant scale repeat seed json mem; do
	grep -q -- "--$opt" "$tmp/help"
	ok $? "--help lists --$opt"
done

"$MMLAB" run refcount-scale --scale tiny --threads 1,2 --json "$tmp/rs.json" >"$tmp/table" 2>"$tmp/progress"
ok $? "run refcount-scale --scale tiny exits 0"
grep -q '^#threads *| *vanilla *| *frozen-bit *| *boost (%)' "$tmp/table"
ok $? "the table has the seed's header"
grep -q '^Hmean ops/s-2 ' "$tmp/table"
ok $? "mmtests-style Hmean row for 2 threads"
python3 - "$tmp/rs.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["experiment"] == "refcount-scale"
assert d["seed"] == "000_e9374adfdd9a9d66.txt"
assert d["checks"] == {"invariants": "passed", "data": "passed"}, d["checks"]
variants = {r["variant"] for r in d["results"]}
assert variants == {"vanilla", "frozen-bit", "cmpxchg-guess", "seqcount-read", "host-pread"}, variants
for r in d["results"]:
    assert r["metric"] == "ops_per_sec" and r["unit"] == "ops/s" and r["higher_is_better"]
    assert r["point"]["threads"] in (1, 2)
    assert len(r["samples"]) == d["params"]["repeat"] and r["median"] > 0
    assert r["counters"]["mismatched_reads"] == 0
    if r["variant"] == "vanilla":
        assert "cas_retries_per_op" in r["counters"]
    if r["variant"] == "frozen-bit":
        assert "undo_loops_per_op" in r["counters"]
for c in d["comparisons"]:
    assert c["baseline"] == "vanilla" and c["verdict"] in ("improvement", "regression", "none")
    assert abs(c["ratio"] - 1 - c["change_pct"] / 100) < 1e-6
assert len(d["comparisons"]) == 8
for key in ("threads", "seconds", "read-size", "pages", "scale", "repeat", "seed"):
    assert key in d["params"], key
# --syscall-ns auto: derived from host-pread at 1 thread, reported on every model sample
assert d["params"]["syscall-ns"] == "auto" and d["params"]["read-path"] == "tmpfs", d["params"]
for r in d["results"]:
    if r["variant"] != "host-pread":
        assert r["counters"]["syscall_ns"] > 0, r["counters"]
    else:
        # one struct file per thread (kcmp), unless the host forbids kcmp (-1)
        assert r["counters"]["host_open_files"] in (-1, r["point"]["threads"]), r["counters"]
PY
ok $? "JSON follows the contract (results, comparisons, counters, checks, params)"

"$MMLAB" run refcount-scale --scale tiny --variant vanilla,frozen-bit --threads 1 --seed 7 --json "$tmp/a.json" >/dev/null 2>&1
ok $? "a run with --variant and --seed"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert {r['variant'] for r in d['results']} == {'vanilla','frozen-bit'}; assert d['params']['seed'] == 7" "$tmp/a.json"
ok $? "--variant limits the variants; --seed is recorded"

"$MMLAB" run refcount-scale --scale tiny --variant vanilla --threads 1 --syscall-ns 0 --read-path filemap \
	--json "$tmp/f.json" >/dev/null 2>"$tmp/f.err"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); p=d['params']; r=d['results'][0]
assert p['syscall-ns'] == 0 and p['read-path'] == 'filemap', p
assert r['counters']['syscall_ns'] == 0 and r['counters']['mismatched_reads'] == 0, r['counters']" "$tmp/f.json" &&
	! grep -q 'syscall-ns auto' "$tmp/f.err"
ok $? "--syscall-ns 0 --read-path filemap: no calibration, the page-cache read alone"
usage_error "bad --read-path" run refcount-scale --read-path ext4
usage_error "bad --syscall-ns word" run refcount-scale --syscall-ns automatic

usage_error "unknown experiment" run no-such-experiment
usage_error "unknown option" run refcount-scale --bogus 1
usage_error "unknown variant" run refcount-scale --variant vanilla,bogus
usage_error "zero threads" run refcount-scale --threads 0
usage_error "thread count above range" run refcount-scale --threads 1,5000
usage_error "more threads than the model's NR_CPUS" run refcount-scale --threads 257
usage_error "read size above a page" run refcount-scale --read-size 5000
usage_error "negative seconds" run refcount-scale --seconds -1
usage_error "bad scale" run refcount-scale --scale huge
usage_error "zero repeat" run refcount-scale --repeat 0
usage_error "more memory than the machine has" run refcount-scale --mem 100T
usage_error "less memory than one max-order block" run refcount-scale --mem 1M
usage_error "malformed size" run refcount-scale --mem 12Q
usage_error "more pages than the simulated memory holds" run refcount-scale --pages 1000000 --mem 64M
usage_error "malformed thread list" run refcount-scale --threads 1,,2

done_testing
