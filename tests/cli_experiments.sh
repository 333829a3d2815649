#!/usr/bin/env bash
# Command-line tests of the free-contig and readseq experiments (TAP).
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

# --- free-contig ---------------------------------------------------------------
"$MMLAB" run free-contig --scale tiny --json "$tmp/fc.json" >"$tmp/fc.txt" 2>/dev/null
ok $? "run free-contig --scale tiny exits 0"
grep -q '^#order *| *vanilla *| *batched *| *boost (%) *| *bulk' "$tmp/fc.txt"
ok $? "free-contig table has the variants"
python3 - "$tmp/fc.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["experiment"] == "free-contig" and d["seed"] == "001_f30f4b09299f9d59.txt"
assert d["checks"] == {"invariants": "passed", "data": "passed"}, d["checks"]
assert {r["variant"] for r in d["results"]} == {"vanilla", "batched", "bulk", "chunk-prepare"}
for r in d["results"]:
    assert r["metric"] == "usec" and r["higher_is_better"] is False
    assert r["point"] == {"order": 9}
    fpo = r["counters"]["free_pages_by_order"]
    assert isinstance(fpo, list) and len(fpo) == 11
for c in d["comparisons"]:
    # lower is better: a smaller time is a positive change
    assert (c["ratio"] < 1) == (c["change_pct"] > 0)
PY
ok $? "free-contig JSON: usec, point order, free_pages_by_order list of 11, signs"
"$MMLAB" run free-contig --scale tiny --mode frozen --frozen-pages 2048 --variant vanilla,bulk >/dev/null 2>&1
ok $? "free-contig --mode frozen runs"
usage_error "order above MAX_PAGE_ORDER" run free-contig --order 11
usage_error "negative order" run free-contig --order -1
usage_error "frozen range not a multiple of 1024" run free-contig --mode frozen --frozen-pages 1500
usage_error "frozen range larger than memory allows" run free-contig --mode frozen --frozen-pages 65536 --mem 64M
usage_error "unknown mode" run free-contig --mode melt

# --- readseq ---------------------------------------------------------------------
"$MMLAB" run readseq --scale tiny --threads 1,2 --json "$tmp/rs.json" >"$tmp/rs.txt" 2>/dev/null
ok $? "run readseq --scale tiny exits 0"
python3 - "$tmp/rs.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["experiment"] == "readseq" and d["seed"] == "002_f78720821c8dd90a.txt"
assert d["checks"] == {"invariants": "passed", "data": "passed"}, d["checks"]
metrics = {r["metric"] for r in d["results"]}
assert metrics == {"ops_per_sec", "lat_p50_us", "lat_p75_us", "lat_p99_us"}, metrics
for r in d["results"]:
    assert r["variant"] in ("vanilla", "batched")
    assert r["higher_is_better"] == (r["metric"] == "ops_per_sec")
    assert r["counters"]["bad_records"] == 0
    if r["metric"] == "ops_per_sec":
        assert r["median"] > 0
        assert r["counters"]["xa_lock_acquisitions"] > 0
van = {r["point"]["threads"]: r["counters"] for r in d["results"] if r["variant"] == "vanilla" and r["metric"] == "ops_per_sec"}
bat = {r["point"]["threads"]: r["counters"] for r in d["results"] if r["variant"] == "batched" and r["metric"] == "ops_per_sec"}
for t in van:
    # the same folios inserted, fewer lock holds when batched
    assert van[t]["folios_inserted"] == bat[t]["folios_inserted"]
    assert bat[t]["xa_lock_acquisitions"] < van[t]["xa_lock_acquisitions"]
    # at most one folio per hold: with shared files a racing reader's insertion can find
    # the folio already there (-EEXIST), a hold that inserts nothing
    assert van[t]["folios_per_lock_hold"] <= 1 + 1e-9
    assert t > 1 or abs(van[t]["folios_per_lock_hold"] - 1) < 1e-9
PY
ok $? "readseq JSON: ops_per_sec and lat_p50/p75/p99 metrics, xa_lock counters, batched holds fewer locks"

# Shared files (the default, db_bench --num_multi_db): every thread reads every file, so 2
# threads make 2 x 2 files' reads but insert each file's folios once; private: one file each.
"$MMLAB" run readseq --scale tiny --threads 2 --files private --json "$tmp/rp.json" >/dev/null 2>&1
python3 - "$tmp/rs.json" "$tmp/rp.json" <<'PY'
import json, sys
sh, pr = (json.load(open(p)) for p in sys.argv[1:3])
assert sh["params"]["files"] == "shared" and pr["params"]["files"] == "private", (sh["params"], pr["params"])
records = sh["params"]["file-size"] // sh["params"]["value-size"]
def at2(d):
    return [r["counters"] for r in d["results"] if r["point"]["threads"] == 2 and r["metric"] == "ops_per_sec"]
for c in at2(sh):
    assert c["ops"] == 2 * 2 * records, (c["ops"], records)
for c in at2(pr):
    assert c["ops"] == 2 * records, (c["ops"], records)
ins = lambda d: sorted(c["folios_inserted"] for c in at2(d) if "folios_inserted" in c)
assert ins(sh) == ins(pr), (ins(sh), ins(pr))
PY
ok $? "readseq --files: shared by default (each thread reads every file, each folio inserted once), private as an option"

# readahead(2) ahead of each window: the same folios inserted, the same bytes read, fewer lock
# holds when batched; RocksDB's iterator's readahead(2) by default.
"$MMLAB" run readseq --scale tiny --threads 2 --readahead syscall --json "$tmp/rsys.json" >/dev/null 2>&1
ok $? "run readseq --readahead syscall exits 0"
python3 - "$tmp/rs.json" "$tmp/rsys.json" <<'PY'
import json, sys
od, sc = (json.load(open(p)) for p in sys.argv[1:3])
assert od["params"]["readahead"] == "rocksdb" and sc["params"]["readahead"] == "syscall"
assert sc["checks"] == {"invariants": "passed", "data": "passed"}, sc["checks"]
c = {r["variant"]: r["counters"] for r in sc["results"] if r["metric"] == "ops_per_sec"}
assert c["vanilla"]["bad_records"] == 0 and c["batched"]["bad_records"] == 0
assert c["vanilla"]["folios_inserted"] == c["batched"]["folios_inserted"], c
assert c["batched"]["xa_lock_acquisitions"] < c["vanilla"]["xa_lock_acquisitions"], c
PY
ok $? "readseq --readahead: rocksdb by default; syscall reads every record right, batched holds fewer locks"
# RocksDB's iterator's readahead(2) (its windows: tests/lab_rocksdb_prefetch.c) against the
# kernel's window alone: every record right, every folio inserted once in both; batched holds
# fewer locks.
"$MMLAB" run readseq --scale tiny --threads 2 --readahead ondemand --json "$tmp/rod.json" >/dev/null 2>&1
ok $? "run readseq --readahead ondemand exits 0"
python3 - "$tmp/rod.json" "$tmp/rs.json" <<'PY'
import json, sys
od, rd = (json.load(open(p)) for p in sys.argv[1:3])
assert od["params"]["readahead"] == "ondemand" and od["checks"] == {"invariants": "passed", "data": "passed"}, od
assert rd["checks"] == {"invariants": "passed", "data": "passed"}, rd
at = lambda d: {r["variant"]: r["counters"] for r in d["results"]
      if r["metric"] == "ops_per_sec" and r["point"]["threads"] == 2}
c, o = at(rd), at(od)
assert c["vanilla"]["bad_records"] == 0 and c["batched"]["bad_records"] == 0, c
assert c["vanilla"]["folios_inserted"] == c["batched"]["folios_inserted"] == o["vanilla"]["folios_inserted"], (c, o)
assert c["batched"]["xa_lock_acquisitions"] < c["vanilla"]["xa_lock_acquisitions"], c
PY
ok $? "readseq --readahead rocksdb and ondemand: every record right, each folio inserted once, batched holds fewer locks"
usage_error "bad --readahead" run readseq --readahead fadvise
usage_error "bad --files" run readseq --files both
usage_error "files larger than the simulated memory" run readseq --file-size 1G --mem 256M
usage_error "file size not a multiple of the value size" run readseq --file-size 1000000
usage_error "value size below range" run readseq --value-size 8
usage_error "negative device latency" run readseq --device-latency -5
usage_error "device bandwidth above range" run readseq --device-mbps 1000001
usage_error "negative device bandwidth" run readseq --device-mbps -1
usage_error "device bandwidth with synchronous reads" run readseq --io sync --device-mbps 3200

done_testing
