#!/usr/bin/env bash
# Command-line tests of the virtual-time mode: mmlab machines, --machine (TAP).
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

"$MMLAB" machines >"$tmp/machines" 2>"$tmp/err"
ok $? "machines exits 0"
for m in host e5-2690v3-2s epyc-9654-2s icelake-32v; do
	grep -q "^$m " "$tmp/machines"
	ok $? "machines lists $m"
done
grep -q '^e5-2690v3-2s *24 ' "$tmp/machines"
ok $? "machines gives e5-2690v3-2s's 24 CPUs"
grep -q '^graviton3-64c *64 ' "$tmp/machines"
ok $? "machines gives graviton3-64c (seed 001's m7g.metal) its 64 CPUs"
# vmalloc sized for the whole m7g.metal: 64 CPUs is the preset's all, 65 one too many
"$MMLAB" run vmalloc --machine graviton3-64c --scale tiny --tests fix_size_alloc_test --pages 16 \
	--variant vanilla-v1base --cpus 64 >/dev/null 2>&1
ok $? "vmalloc --cpus 64 runs on graviton3-64c"
"$MMLAB" run vmalloc --machine graviton3-64c --scale tiny --tests fix_size_alloc_test --pages 16 \
	--variant vanilla-v1base --cpus 65 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "^mmlab: --cpus: 65 is more than graviton3-64c's 64 CPUs; valid: 1..64$" "$tmp/err"
ok $? "and --cpus 65 exits 2 naming the preset's 64 ($(head -1 "$tmp/err"))"

args=(run refcount-scale --machine e5-2690v3-2s --threads 1,2,14 --virtual-us 200)
"$MMLAB" "${args[@]}" --json "$tmp/a.json" >"$tmp/a.table" 2>/dev/null
ok $? "run refcount-scale --machine e5-2690v3-2s exits 0"
"$MMLAB" "${args[@]}" --json "$tmp/b.json" >"$tmp/b.table" 2>/dev/null
ok $? "and again"
python3 - "$tmp/a.json" "$tmp/b.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["machine"]["name"] == "e5-2690v3-2s" and a["machine"]["cpus"] == 24, a["machine"]
assert a["params"]["machine"] == "e5-2690v3-2s", a["params"]
# Five repetitions by default: five interleavings (the jitter's seed is seed + repetition).
assert a["params"]["repeat"] == 5, a["params"]
variants = {r["variant"] for r in a["results"]}
assert "host-pread" not in variants and "vanilla" in variants, variants
key = lambda r: (r["variant"], r["point"]["threads"])
ra, rb = ({key(r): r for r in d["results"]} for d in (a, b))
assert ra.keys() == rb.keys()
for k in ra:
    assert ra[k]["samples"] == rb[k]["samples"], (k, ra[k]["samples"], rb[k]["samples"])
    assert ra[k]["counters"] == rb[k]["counters"], k
    for c in ("line_transfers_per_op", "queued_ns_per_op", "cas_retries_per_op", "lock_handoffs_per_op"):
        assert c in ra[k]["counters"], (k, c)
    assert ra[k]["median"] > 0, k
    # Virtual time: the host's load is not measured, so nothing is flagged.
    hn = ra[k]["host_noise"]
    assert hn["flagged_samples"] == 0 and hn["steal_pct"] == 0 and hn["nivcsw"] == 0, (k, hn)
    assert len(ra[k]["samples"]) == 5, k
# Contended, the interleavings differ; the median is the middle one.
for v in ("vanilla", "frozen-bit"):
    s = ra[(v, 14)]["samples"]
    assert len(set(s)) > 1, (v, s)
    assert abs(ra[(v, 14)]["median"] - sorted(s)[2]) <= 1e-9 * sorted(s)[2], (v, s)
# A CAS loop retries under contention; fetch-add never does.
assert ra[("vanilla", 14)]["counters"]["cas_retries_per_op"] > 0
assert ra[("frozen-bit", 14)]["counters"]["cas_retries_per_op"] == 0
assert ra[("vanilla", 14)]["counters"]["remote_transfers_per_op"] > 0
assert ra[("vanilla", 2)]["counters"]["remote_transfers_per_op"] == 0
PY
ok $? "the same numbers twice, five interleavings a point, the machine named, the why counters present and sensible"
cmp -s "$tmp/a.table" "$tmp/b.table"
ok $? "the two tables are the same"
python3 - "$tmp/a.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["machine"]
sp = {s["variant"]: s for s in m["seed_points"]}
assert set(sp) == {"vanilla", "frozen-bit"}, sp.keys()
assert sp["vanilla"]["points"]["1"] == 1343381 and sp["frozen-bit"]["points"]["24"] == 4529737, sp
assert "seed 000" in sp["vanilla"]["source"], sp["vanilla"]
PY
ok $? "the JSON carries the seed's own points for this machine, with their source"

# readseq in virtual time, twice per I/O mode: the same numbers, every record checked, and
# the why counters; sync: the reader spends the device latency; async: the device is an agent
# of the run, the readers wait for it, its own time is not theirs.
for io in sync async; do
	rq=(run readseq --machine icelake-32v --threads 1,4 --file-size 256K --mem 64M --io $io
	    --device-latency 10)
	"$MMLAB" "${rq[@]}" --json "$tmp/rq-$io-a.json" >/dev/null 2>&1 &&
		"$MMLAB" "${rq[@]}" --json "$tmp/rq-$io-b.json" >/dev/null 2>&1
	ok $? "run readseq --machine icelake-32v --io $io exits 0, twice"
	python3 - "$io" "$tmp/rq-$io-a.json" "$tmp/rq-$io-b.json" <<'PY'
import json, sys
io = sys.argv[1]
a, b = (json.load(open(f)) for f in sys.argv[2:4])
assert a["machine"]["name"] == "icelake-32v", a["machine"]
key = lambda r: (r["variant"], r["point"]["threads"], r["metric"])
ra, rb = ({key(r): r for r in d["results"]} for d in (a, b))
assert ra.keys() == rb.keys() and len(ra) > 4
for k in ra:
    assert ra[k]["samples"] == rb[k]["samples"], (k, ra[k]["samples"], rb[k]["samples"])
for v in ("vanilla", "batched"):
    r = ra[(v, 4, "ops_per_sec")]
    c = r["counters"]
    assert r["median"] > 0 and c["bad_records"] == 0, r
    for n in ("virtual_ns", "line_transfers_per_op", "lock_handoffs_per_op", "share_device_pct"):
        assert n in c, (v, n)
    if io == "sync":
        assert c["share_device_pct"] > 0, c
    else:
        assert 0 < c["share_wait_pct"] < 100 and c["share_device_pct"] == 0, c
PY
	ok $? "$io: the same numbers twice, every record checked, where the readers' time went"
done
# --device-mbps: 4 files of 256 KiB cross a 100 MB/s channel once each, 10.5 ms at least, so
# the 512 records of 4 threads come at most about 49,000 a second; unlimited, far faster.
rb=(run readseq --machine icelake-32v --threads 4 --file-size 256K --mem 64M --io async
    --device-latency 10 --variant vanilla)
"$MMLAB" "${rb[@]}" --json "$tmp/rb-0.json" >/dev/null 2>&1 &&
	"$MMLAB" "${rb[@]}" --device-mbps 100 --json "$tmp/rb-100.json" >/dev/null 2>&1
ok $? "run readseq --machine icelake-32v --device-mbps 0 and 100 exit 0"
python3 - "$tmp/rb-0.json" "$tmp/rb-100.json" <<'PY'
import json, sys
ops = []
for f in sys.argv[1:3]:
    d = json.load(open(f))
    r = next(r for r in d["results"] if r["metric"] == "ops_per_sec")
    assert r["counters"]["bad_records"] == 0, r["counters"]
    ops.append(r["median"])
assert ops[1] <= 512 / 0.0104857, ops
assert ops[0] > 3 * ops[1], ops
PY
ok $? "a 100 MB/s device bounds the readers by its bytes; without a limit they run far faster"
usage_error "more page cache than the machine follows" run readseq --machine icelake-32v \
	--threads 32 --file-size 1G --mem 2G --io sync

# The single-threaded experiments in virtual time: one CPU, the same numbers on every run,
# every check, the why counters of the timed window only, and a difference between designs
# that is the same every time (a 2% regression shows).
st_args() {
	case $1 in
	free-contig) echo "--iterations 50" ;;
	vmalloc) echo "--tests fix_size_alloc_test --pages 1,16 --loops 20 --variant vanilla,batched" ;;
	reclaim-large) echo "--contpte on" ;;
	migrate-fork) echo "--children 4" ;;
	esac
}
for e in free-contig vmalloc reclaim-large migrate-fork; do
	# shellcheck disable=SC2046
	sa=(run "$e" --scale tiny --machine e5-2690v3-2s $(st_args "$e"))
	"$MMLAB" "${sa[@]}" --json "$tmp/st-$e-a.json" >"$tmp/st-$e-a.table" 2>"$tmp/err" &&
		"$MMLAB" "${sa[@]}" --json "$tmp/st-$e-b.json" >"$tmp/st-$e-b.table" 2>>"$tmp/err"
	ok $? "run $e --machine e5-2690v3-2s exits 0, twice"
	python3 - "$tmp/st-$e-a.json" "$tmp/st-$e-b.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["machine"]["name"] == "e5-2690v3-2s", a["machine"]
assert a["checks"]["invariants"] == "passed" and a["checks"]["data"] == "passed", a["checks"]
key = lambda r: (r["variant"], json.dumps(r["point"], sort_keys=True))
ra, rb = ({key(r): r for r in d["results"]} for d in (a, b))
assert ra.keys() == rb.keys() and len(ra) >= 2
for k, r in ra.items():
    assert r["samples"] == rb[k]["samples"] and r["counters"] == rb[k]["counters"], k
    c = r["counters"]
    assert r["median"] > 0 and c["blocks_per_op"] > 0 and c["events_per_op"] > 0, (k, c)
    assert 0 < c["share_code_pct"] < 100, (k, c)
    # One CPU: nothing to transfer to or queue behind.
    assert c["queued_ns_per_op"] == 0 and c["lock_handoffs_per_op"] == 0, (k, c)
pts = {json.dumps(r["point"], sort_keys=True) for r in a["results"]}
for p in pts:
    vals = {r["variant"]: r["median"] for r in a["results"] if json.dumps(r["point"], sort_keys=True) == p}
    assert len(set(vals.values())) > 1 or len(vals) == 1, (p, vals)
PY
	ok $? "$e: the same numbers twice, checks passed, blocks and events counted, designs differ"
	cmp -s "$tmp/st-$e-a.table" "$tmp/st-$e-b.table"
	ok $? "$e: the two tables are the same"
done

cp machines/e5-2690v3-2s.conf "$tmp/mine.conf"
"$MMLAB" run refcount-scale --machine "$tmp/mine.conf" --threads 2 --variant vanilla --virtual-us 100 >/dev/null 2>&1
ok $? "--machine FILE takes a user's machine file"

usage_error "unknown machine" run refcount-scale --machine nosuch
grep -q 'valid: host, host-model, e5-2690v3-2s, epyc-9654-2s, graviton3-64c, icelake-32v' "$tmp/err"
ok $? "the unknown machine's error lists the valid ones"
sed 's/^lat.remote .*/lat.remote 130/' machines/e5-2690v3-2s.conf >"$tmp/nosource.conf"
usage_error "a latency without its source" run refcount-scale --machine "$tmp/nosource.conf"
sed 's/^sockets .*/sockets 0/' machines/e5-2690v3-2s.conf >"$tmp/bad.conf"
usage_error "a bad topology value" run refcount-scale --machine "$tmp/bad.conf"
sed 's/^seed.refcount-scale.vanilla .*/seed.refcount-scale.vanilla 1:1343381 2:x | seed 000/' \
	machines/e5-2690v3-2s.conf >"$tmp/badseed.conf"
usage_error "a seed point that is not THREADS:VALUE" run refcount-scale --machine "$tmp/badseed.conf"
sed 's/^\(seed.refcount-scale.vanilla .*\) |.*/\1/' machines/e5-2690v3-2s.conf >"$tmp/seednosrc.conf"
usage_error "a seed series without its source" run refcount-scale --machine "$tmp/seednosrc.conf"
usage_error "more threads than the machine's CPUs" run refcount-scale --machine e5-2690v3-2s --threads 25
# Seed series: POINT:VALUE or POINT:LO..HI of the metric, or of a counter (seed.EXP.VARIANT.COUNTER).
seedline() {	# seedline FILE LINE...: e5's machine file without its seed series, plus LINEs
	local f=$1; shift
	grep -v '^seed\.' machines/e5-2690v3-2s.conf >"$f"
	printf '%s\n' "$@" >>"$f"
}
seed_run() {	# seed_run NAME LINE...: a short run on e5 with LINEs as its seed series, JSON in $tmp/NAME.json
	local name=$1; shift
	seedline "$tmp/$name.conf" "$@"
	"$MMLAB" run refcount-scale --machine "$tmp/$name.conf" --threads 1 --repeat 1 --variant vanilla \
		--json "$tmp/$name.json" >/dev/null 2>&1
}
seed_run seedok "seed.refcount-scale.vanilla 1:100..200 2:300 | here" \
	"seed.refcount-scale.frozen-bit.ops 1:5 | there" &&
python3 - "$tmp/seedok.json" <<'PY'
import json, sys
sp = {s["variant"]: s for s in json.load(open(sys.argv[1]))["machine"]["seed_points"]}
assert sp["vanilla"]["points"] == {"1": [100, 200], "2": 300} and "counter" not in sp["vanilla"], sp
assert sp["frozen-bit"]["counter"] == "ops" and sp["frozen-bit"]["points"] == {"1": 5}, sp
PY
ok $? "seed series: a range is [lo, hi], a single value a number, a counter is named"
bad_seed() {	# bad_seed PATTERN DESCRIPTION LINE: a machine file with LINE is refused saying PATTERN
	seedline "$tmp/badseed-line.conf" "$3"
	usage_error_says "$1" "$2" run refcount-scale --machine "$tmp/badseed-line.conf"
}
bad_seed "LO <= HI" "a seed range whose low end is above its high end" "seed.refcount-scale.vanilla 1:200..100 | here"
bad_seed "POINT:LO..HI" "a seed range without its high end" "seed.refcount-scale.vanilla 1:100.. | here"
bad_seed "0 <= LO" "a negative seed value" "seed.refcount-scale.vanilla 1:-1 | here"
bad_seed "seed.EXPERIMENT.VARIANT.COUNTER" "a seed series whose counter is empty" "seed.refcount-scale.vanilla.ops. 1:1 | here"
bad_seed "seed.EXPERIMENT.VARIANT.COUNTER" "a seed series name of five parts" "seed.refcount-scale.vanilla.a.b 1:1 | here"
bad_seed "at most 47" "a seed point of 48 characters" "seed.refcount-scale.vanilla $(printf 'p%.0s' $(seq 48)):1 | here"
seed_run s7 "seed.refcount-scale.vanilla $(printf 'p%.0s' $(seq 47)):1 | here"
ok $? "a seed point of 47 characters is taken"
# A change series (change_pct, or change_pct_over_VARIANT) gives the seed's gain in per cent:
# signed, any finite value; a point of several axes is their values joined by '/'.
bad_seed "COUNTER at most 47" "a seed counter of 48 characters" \
	"seed.refcount-scale.vanilla.$(printf 'c%.0s' $(seq 48)) 1:1 | here"
seed_run s8 "seed.refcount-scale.vanilla.$(printf 'c%.0s' $(seq 47)) 1:1 | here"
ok $? "a seed counter of 47 characters is taken"
bad_seed "change_pct_over_VARIANT" "a change over no variant" "seed.refcount-scale.frozen-bit.change_pct_over_ 1:1 | here"
bad_seed "0 <= LO" "a negative value of a counter that is not a change" "seed.refcount-scale.vanilla.change 1:-1 | here"
bad_seed "a change in per cent" "a change range whose low end is above its high end" \
	"seed.refcount-scale.frozen-bit.change_pct 1:-1..-2 | here"
bad_seed "a change in per cent" "a change that is not a number" "seed.refcount-scale.frozen-bit.change_pct 1:x | here"
seed_run s9 "seed.refcount-scale.frozen-bit.change_pct 1:-1.2 2:-5..-1 a/b/c:0 | here" \
	"seed.refcount-scale.frozen-bit.change_pct_over_vanilla 1:50..100 | there" &&
python3 - "$tmp/s9.json" <<'PY'
import json, sys
sp = {s["counter"]: s for s in json.load(open(sys.argv[1]))["machine"]["seed_points"]}
assert sp["change_pct"]["points"] == {"1": -1.2, "2": [-5, -1], "a/b/c": 0}, sp
assert sp["change_pct_over_vanilla"]["points"] == {"1": [50, 100]}, sp
assert all(s["variant"] == "frozen-bit" for s in sp.values()), sp
PY
ok $? "change series: negative values and ranges, '/' in a point, over a named variant"
# Names and sources are never cut: a name is refused past 63 characters, a source is as long as its line.
long=$(printf 'x%.0s' $(seq 900))
sed "s/^lat.l3 .*/lat.l3 24 | $long/; s/^name .*/name $(printf 'n%.0s' $(seq 63))/" \
	machines/e5-2690v3-2s.conf >"$tmp/longsrc.conf"
"$MMLAB" run refcount-scale --machine "$tmp/longsrc.conf" --threads 1 --repeat 1 --variant vanilla \
	--json "$tmp/longsrc.json" >/dev/null 2>&1 && python3 - "$tmp/longsrc.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["machine"]
lines = m["machine_file"].splitlines()
src = [l.split("|", 1)[1].strip() for l in lines if l.startswith("lat.l3")]
assert src == ["x" * 900], [len(s) for s in src]
assert m["name"] == "n" * 63, m["name"]
PY
ok $? "a 900-character source and a 63-character name are kept whole"
sed "s/^name .*/name $(printf 'n%.0s' $(seq 64))/" machines/e5-2690v3-2s.conf >"$tmp/longname.conf"
usage_error_says "at most 63" "a machine name of 64 characters" run refcount-scale --machine "$tmp/longname.conf"
for e in free-contig vmalloc reclaim-large; do
	usage_error "$e sized for more CPUs than the machine has" run $e --machine e5-2690v3-2s --cpus 25
done
usage_error "a copy to user memory longer than the rest of pread" run refcount-scale --machine e5-2690v3-2s \
	--copy-ns 686

# Two options that reshape the rest of pread(2) without changing its mean: --copy-ns moves
# part of it between the get and the put, --syscall-jitter varies it per read.  One reader's
# rate stays (to the sampling of the jitter), contending readers' changes.
# one_reader_stays OPTION VALUE COUNTER THREADS VIRTUAL_US TOLERANCE
one_reader_stays() {
	local steady=(--syscall-jitter 0)
	[ "$1" = --syscall-jitter ] && steady=()
	for v in 0 "$2"; do
		"$MMLAB" run refcount-scale --machine e5-2690v3-2s --threads "1,$4" --variant vanilla \
			--virtual-us "$5" "${steady[@]}" "$1" "$v" --json "$tmp/$3-$v.json" >/dev/null 2>&1
	done
	python3 - "$tmp/$3-0.json" "$tmp/$3-$2.json" "$3" "$2" "$4" "$6" <<'PY'
import json, sys
a, b = ({r["point"]["threads"]: r for r in json.load(open(f))["results"]} for f in sys.argv[1:3])
counter, value, n, tol = sys.argv[3], float(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
assert b[1]["counters"][counter] == value and a[1]["counters"][counter] == 0
assert abs(a[1]["median"] / b[1]["median"] - 1) < tol, (a[1]["median"], b[1]["median"])
assert a[n]["median"] != b[n]["median"], a[n]["median"]
PY
	ok $? "$1 $2 leaves one reader's rate alone and changes $4 contending readers'"
}
one_reader_stays --copy-ns 30 copy_ns 14 200 0.002
one_reader_stays --syscall-jitter 10 syscall_jitter_pct 5 1500 0.01
usage_error "a jitter beyond 50%" run refcount-scale --machine e5-2690v3-2s --syscall-jitter 51
sed 's/^cost.block /cost.gap /' machines/e5-2690v3-2s.conf >"$tmp/gap.conf"
usage_error "the old per-event cost.gap" run refcount-scale --machine "$tmp/gap.conf"
grep -q 'cost.block' "$tmp/err"
ok $? "... and the error names cost.block, its replacement"
# A machine-file setting: a bad value, and a good one without its source, exit 2 (the first
# naming what is valid); a good one runs refcount-scale at 14 threads into $tmp/KEY.json.
setting_checks() {
	local key=$1 bad=$2 valid=$3 good=$4 conf="$tmp/$1.conf"

	sed "s/^$key .*/$key $bad | a test/" machines/e5-2690v3-2s.conf >"$conf"
	usage_error "a bad $key ($bad)" run refcount-scale --machine "$conf"
	grep -q -- "$valid" "$tmp/err"
	ok $? "... and the error names what is valid ($valid)"
	sed "s/^$key .*/$key $good/" machines/e5-2690v3-2s.conf >"$conf"
	usage_error "a $key without its source" run refcount-scale --machine "$conf"
	sed "s/^$key .*/$key $good | a test/" machines/e5-2690v3-2s.conf >"$conf"
	"$MMLAB" run refcount-scale --machine "$conf" --threads 14 --variant vanilla --virtual-us 200 \
		--json "$tmp/$key.json" >/dev/null 2>&1
	ok $? "a machine file with $key $good runs"
}
# The order a contended line serves its queue changes the socket boundary, and is recorded.
setting_checks line.order lifo 'fifo, far-first, near-first' far-first
python3 - "$tmp/a.json" "$tmp/line.order.json" <<'PY'
import json, sys
a, f = (json.load(open(x)) for x in sys.argv[1:3])
assert a["machine"]["line_order"] == "fifo" and f["machine"]["line_order"] == "far-first"
va = {r["point"]["threads"]: r for r in a["results"] if r["variant"] == "vanilla"}[14]
vf = f["results"][0]
assert vf["median"] != va["median"], (vf["median"], va["median"])
rt = lambda r: r["counters"]["remote_transfers_per_op"] / r["counters"]["line_transfers_per_op"]
assert rt(vf) > rt(va), (rt(vf), rt(va))
PY
ok $? "... its JSON names the order, and more of its transfers cross the socket than fifo's at 14 threads"
# How long a holder keeps a contended line after the next transfer starts: fewer transfers a read.
setting_checks line.window 3 '0\.\.2' 1
python3 - "$tmp/a.json" "$tmp/line.window.json" <<'PY'
import json, sys
a, w = (json.load(open(x)) for x in sys.argv[1:3])
assert a["machine"]["line_window"] == 0.5 and w["machine"]["line_window"] == 1, (a["machine"], w["machine"])
va = {r["point"]["threads"]: r for r in a["results"] if r["variant"] == "vanilla"}[14]
vw = w["results"][0]
tr = lambda r: r["counters"]["line_transfers_per_op"]
assert tr(vw) < tr(va), (tr(vw), tr(va))
PY
ok $? "... its JSON names the window, and its readers move the line less often than at 0.5"
# A machine on which time cannot advance is refused when it is read: cost.block at, below
# and above its least value; every cost 0 too.
blk() { sed "s/^cost.block .*/cost.block $1 | a test/" machines/e5-2690v3-2s.conf >"$tmp/blk.conf"; }
blk 0
usage_error_says 'cost\.block 0: .*valid: 0\.001\.\.1000000' "cost.block 0" run refcount-scale --machine "$tmp/blk.conf" --threads 1
blk 0.0009
usage_error_says 'cost\.block 0\.0009' "cost.block just below 0.001" run refcount-scale --machine "$tmp/blk.conf" --threads 1
blk 0.001
timeout 60 "$MMLAB" run refcount-scale --machine "$tmp/blk.conf" --threads 1 --variant vanilla --virtual-us 100 >/dev/null 2>&1
ok $? "cost.block 0.001, its least value, runs and ends"
sed -E 's/^((lat|cost)\.[a-z]+ +)[0-9.]+ /\10 /' machines/e5-2690v3-2s.conf >"$tmp/zero.conf"
usage_error_says 'cost\.block 0:' "every latency and cost 0" run migrate-fork --machine "$tmp/zero.conf" --scale tiny

# What a machine file is read from, and what its lines may hold (issue 23, items 3 and 4).
mkdir -p "$tmp/adir"
usage_error_says 'is a directory' "a directory given as a machine file" run free-contig --machine "$tmp/adir"
mkfifo "$tmp/fifo"
usage_error_says 'not a regular file' "a FIFO given as a machine file" run free-contig --machine "$tmp/fifo"
usage_error_says 'not a regular file' "/dev/zero given as a machine file" run free-contig --machine /dev/zero
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' '#' >"$tmp/big.conf"
usage_error_says 'more than a machine file.s 1048576' "a machine file of 1 MiB and a byte" run free-contig --machine "$tmp/big.conf"
(cat machines/e5-2690v3-2s.conf; echo "lat.l3 50 | again") >"$tmp/dup.conf"
usage_error_says "'lat\.l3' given twice, on lines 11 and [0-9]+" "a key given twice" run free-contig --machine "$tmp/dup.conf"
(cat machines/e5-2690v3-2s.conf; echo "seed.refcount-scale.vanilla 1:1 | again") >"$tmp/dupseed.conf"
usage_error_says "given twice" "a seed series given twice" run free-contig --machine "$tmp/dupseed.conf"
(grep -v '^desc' machines/e5-2690v3-2s.conf; printf 'desc %01019d\n' 0) >"$tmp/long.conf"
usage_error_says 'longer than 1023 bytes' "a line of 1024 bytes" run free-contig --machine "$tmp/long.conf"
(grep -v '^desc' machines/e5-2690v3-2s.conf; printf 'desc %01018d\n' 0) >"$tmp/long1.conf"
"$MMLAB" run refcount-scale --machine "$tmp/long1.conf" --threads 1 --variant vanilla --virtual-us 100 >/dev/null 2>&1
ok $? "a line of 1023 bytes, the most, is read"
(printf '\xef\xbb\xbf'; cat machines/e5-2690v3-2s.conf) >"$tmp/bom.conf"
"$MMLAB" run refcount-scale --machine "$tmp/bom.conf" --threads 1 --variant vanilla --virtual-us 100 >/dev/null 2>&1
ok $? "a UTF-8 byte order mark before the first line is taken"
head -c 4096 "$MMLAB" >"$tmp/bin.conf"
usage_error_says 'byte 0x7f: not a text file' "a binary file" run free-contig --machine "$tmp/bin.conf"
grep -qP '[\x00-\x08\x7f]' "$tmp/err"
[ $? -ne 0 ]
ok $? "... and its bytes are not echoed"
(cat machines/e5-2690v3-2s.conf; printf 'lat\xc3\xa9 3 | s\n') >"$tmp/utf.conf"
usage_error_says "'lat\\\\xc3\\\\xa9': unknown key" "an unknown key with bytes beyond ASCII, escaped" run free-contig --machine "$tmp/utf.conf"

# The memory hierarchy's settings: all or none, each in its range, whole sets.
grep -v '^l3\.lat' machines/e5-2690v3-2s.conf >"$tmp/h-miss.conf"
usage_error_says "no 'l3\.lat N \| SOURCE'.*all together" "a hierarchy without l3.lat" run free-contig --machine "$tmp/h-miss.conf"
hset() { sed "s/^$1 .*/$1 $2 | a test/" machines/e5-2690v3-2s.conf >"$tmp/h.conf"; }
hset l1d.ways 65
usage_error_says 'l1d\.ways.*integer in 1\.\.64' "l1d.ways 65, one above its range" run free-contig --machine "$tmp/h.conf"
hset l1d.ways 0
usage_error_says 'l1d\.ways.*integer in 1\.\.64' "l1d.ways 0, one below its range" run free-contig --machine "$tmp/h.conf"
hset l1d.ways 2.5
usage_error_says 'l1d\.ways.*integer' "l1d.ways 2.5, not an integer" run free-contig --machine "$tmp/h.conf"
hset pf.degree 257
usage_error_says 'pf\.degree.*integer in 0\.\.256' "pf.degree 257, one above its range" run free-contig --machine "$tmp/h.conf"
hset pf.degree 256
"$MMLAB" run free-contig --machine "$tmp/h.conf" --iterations 2 --variant vanilla >/dev/null 2>&1
ok $? "pf.degree 256, the most (lines in flight a stream may keep), is taken"
hset pf.degree -1
usage_error_says 'pf\.degree.*integer in 0\.\.256' "pf.degree -1, one below its range" run free-contig --machine "$tmp/h.conf"
hset pf.degree abc
usage_error_says 'pf\.degree.*integer in 0\.\.256' "pf.degree abc, not a number: the key's own range" run free-contig --machine "$tmp/h.conf"
hset l3.size 1048577
usage_error_says 'l3\.size.*integer in 64\.\.1048576' "l3.size 1048577, one above its range (past other settings' 1000000)" run free-contig --machine "$tmp/h.conf"
hset smt.share 1.01
usage_error_says 'smt\.share.*0\.05\.\.1' "smt.share above 1" run free-contig --machine "$tmp/h.conf"
hset l2.ways 7
usage_error_says 'l2\.size 256 KiB with l2\.ways 7 is not a whole number' "an L2 of 256 KiB in 7 ways" run free-contig --machine "$tmp/h.conf"
hset l2.ways 64
"$MMLAB" run refcount-scale --machine "$tmp/h.conf" --threads 1 --variant vanilla --virtual-us 100 --json "$tmp/h.json" >/dev/null 2>&1 &&
python3 - "$tmp/h.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["machine"]
assert m["hierarchy"] is True and "l2.ways         64 | a test" in m["machine_file"], m
c = d["results"][0]["counters"]
for k in ("l1_misses_per_op", "l2_misses_per_op", "l3_misses_per_op", "mem_local_per_op", "share_mem_pct"):
    assert k in c, (k, c)
PY
ok $? "an L2 of 256 KiB in 64 ways runs; the JSON has the hierarchy, the machine file and the miss counters"
# Where the time went adds up: a single-threaded run (nothing overlaps another CPU's) on a
# preset with the hierarchy, and the coherence model alone.
for m in e5-2690v3-2s "$tmp/h-none.conf"; do
	[ "$m" = e5-2690v3-2s ] || grep -v -E '^(l1d|l2|l3|mem|core|pf|smt)\.' machines/e5-2690v3-2s.conf >"$m"
	"$MMLAB" run migrate-fork --machine "$m" --children 10 --variant vanilla --json "$tmp/sh.json" >/dev/null 2>&1 &&
	python3 - "$tmp/sh.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["results"][0]["counters"]
shares = {k: v for k, v in c.items() if k.startswith("share_")}
assert shares["share_rmw_pct"] > 0 and abs(sum(shares.values()) - 100) < 0.5, shares
PY
	ok $? "migrate-fork's shares of time add up to 100% on $(basename "$m")"
done
grep -v -E '^(l1d|l2|l3|mem|core|pf|smt)\.' machines/e5-2690v3-2s.conf >"$tmp/h-none.conf"
"$MMLAB" run refcount-scale --machine "$tmp/h-none.conf" --threads 1 --variant vanilla --virtual-us 100 --json "$tmp/hn.json" >/dev/null 2>&1 &&
python3 - "$tmp/hn.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["machine"]["hierarchy"] is False
assert "l1_misses_per_op" not in d["results"][0]["counters"]
PY
ok $? "a machine file without the hierarchy runs the coherence model alone, and says so"

usage_error "a host-only variant asked for by name" run refcount-scale --machine e5-2690v3-2s --variant host-pread
usage_error "machines takes no argument" machines extra
usage_error "calibrate takes no argument" calibrate extra

if [ "$(nproc)" -ge 2 ]; then
	"$MMLAB" calibrate >"$tmp/host.conf" 2>"$tmp/err"
	ok $? "calibrate exits 0 ($(grep '^lat.l3' "$tmp/host.conf" | head -c 60))"
	"$MMLAB" run refcount-scale --machine "$tmp/host.conf" --threads 1,2 --variant vanilla --virtual-us 100 >/dev/null 2>&1
	ok $? "calibrate's output is a machine file --machine reads back"
	grep -qE '^mem.first_touch [0-9]+ \| measured now: the first write to each of 9 2 MiB ranges' "$tmp/host.conf" &&
		grep -qE '^mem.backing +(4K \| measured now: a write 4 KiB into each range faulted again|2M \| measured now: a write 4 KiB into each range faulted no more)' "$tmp/host.conf"
	ok $? "calibrate measures this host's first touch and the page it backs ($(grep '^mem.first_touch\|^mem.backing' "$tmp/host.conf" | cut -c1-20 | tr '\n' ' '))"
	# THP off: the host backs 4 KiB pages; on (always or madvise, the probe madvises): 2 MiB ones
	thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
	if [ -n "$thp" ]; then
		want=2M; [ "$thp" = never ] && want=4K
		grep -qE "^mem.backing +$want " "$tmp/host.conf"
		ok $? "calibrate's mem.backing is $want with transparent huge pages '$thp'"
	fi
	if grep -q '^l1d.size' "$tmp/host.conf"; then
		grep -q '^l1d.lat .*| measured now: dependent loads in random order over .* (half the L1)' "$tmp/host.conf"
		ok $? "calibrate measures the L1's load-to-use with the hierarchy ($(grep '^l1d.lat' "$tmp/host.conf" | head -c 40))"
		grep -q '^core.sb *56 | not measured: ' "$tmp/host.conf"
		ok $? "calibrate gives the store buffer as not measured, as it does core.rob"
		grep -q '^core.mispredict [0-9.]* | measured now: one branch over 262144 bytes' "$tmp/host.conf"
		ok $? "calibrate measures a mispredicted branch's refill ($(grep '^core.mispredict' "$tmp/host.conf" | head -c 40))"
		# x86-64 has the probe; the width it gives is between 1 and 16 instructions a cycle
		python3 - "$tmp/host.conf" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r'^core\.insn +([0-9.]+) \| measured now: a straight run of two independent register adds.* \(([0-9.]+) a cycle\)', t, re.M)
hit = float(re.search(r'^cost\.hit +([0-9.]+)', t, re.M).group(1))
sys.exit(not (m and 1 <= hit / float(m.group(1)) <= 16))
PY
		ok $? "calibrate measures the core's width ($(grep '^core.insn' "$tmp/host.conf" | head -c 30))"
		grep -qE '^pf.span +(4|2048) \| measured now: a chase through every line of ' "$tmp/host.conf"
		ok $? "calibrate measures whether the prefetchers run on into the next page ($(grep '^pf.span' "$tmp/host.conf" | head -c 20))"
		grep -qE '^(pf.stride +(256|512|1024|2048|4096|8192) \| measured now: a dependent chase through|# pf.stride not given: measured now: )' "$tmp/host.conf"
		ok $? "calibrate measures which strides the prefetchers follow ($(grep 'pf.stride' "$tmp/host.conf" | head -c 30))"
	fi
	# pf.degree and core.l2mshr from a stream by Little's law: the lines in flight it
	# prints are GB/s x memory's ns / 64, pf.degree their rounding, core.l2mshr at least them and 32
	awk '$1 == "pf.degree" { deg = $2; if (match($0, /measured now: one load a line through [0-9]+ KiB in address order, [0-9.]+ GB\/s, times memory.s [0-9.]+ ns over 64 bytes: [0-9.]+ lines in flight/)) {
		split(substr($0, RSTART, RLENGTH), w, " "); gbs = w[13]; mem = w[17]; n = w[22] } }
	$1 == "core.l2mshr" { q = $2 }
	END {
		if (n == "") exit 1
		if ((gbs * mem / 64 - n) > 0.07 || (n - gbs * mem / 64) > 0.07) exit 1
		# n is printed to a tenth: the rounding may go either way at a half
		if ((deg < int(n - 0.05 + 0.5) || deg > int(n + 0.05 + 0.5)) && !(n > 256 && deg == 256)) exit 1
		exit !(q >= 32 && q >= n - 0.05 && q <= 256)
	}' "$tmp/host.conf"
	ok $? "calibrate measures the lines a stream keeps in flight: pf.degree and core.l2mshr by Little's law ($(grep -E '^(pf.degree|core.l2mshr)' "$tmp/host.conf" | cut -c1-200 | tr '\n' ' '))"
	grep -qE '^sched.wake +[0-9][0-9.e+]* \| measured now: a thread asleep in FUTEX_WAIT on host CPU 1' "$tmp/host.conf" &&
		awk '$1 == "sched.wake" { exit !($2 > 0 && $2 <= 1000000) }' "$tmp/host.conf"
	ok $? "calibrate measures a wake-up's latency, above 0 and within the key's range ($(grep '^sched.wake' "$tmp/host.conf" | head -c 24))"
	grep -qE '^cost.hit +[0-9.]+ \| measured now: one cycle \(a chain of dependent register adds\)' "$tmp/host.conf"
	ok $? "calibrate times its cycle with register adds ($(grep '^cost.hit' "$tmp/host.conf" | head -c 22))"
	# cost.block: the median of the three shapes' ns a block it prints beside it, and with
	# core.insn (x86-64 has its probe) what core.fall yes would take, a taken jump's
	# cycles within 0.25..4
	awk -v insn="$(grep -c '^core.insn ' "$tmp/host.conf")" '$1 == "cost.block" {
		seen = 1
		if (insn > 0) {
			if (!match($0, /with core.fall yes, cost.block would be a chain of 64 jumps each taken to the next: [0-9.e-]+ ns \([0-9.]+ cycles\) a jump, best of 200$/)) exit 1
			split(substr($0, RSTART, RLENGTH), w, "("); c = w[2] + 0
			if (c < 0.25 || c > 4) exit 1
		}
		if ($0 !~ /measured now: the median of three loops of mm-shaped code/) exit 1
		k = 0; s = $0
		while (match(s, /[0-9.]+ ns \([0-9.]+ cycles\) a block/)) {
			split(substr(s, RSTART, RLENGTH), w, " "); v[++k] = w[1] + 0; s = substr(s, RSTART + RLENGTH)
		}
		if (k != 3) exit 1
		if (v[1] > v[2]) { t = v[1]; v[1] = v[2]; v[2] = t }
		if (v[2] > v[3]) { t = v[2]; v[2] = v[3]; v[3] = t }
		if (v[1] > v[2]) { t = v[1]; v[1] = v[2]; v[2] = t }
		d = $2 - v[2]; if (d < 0) d = -d
		exit !(d <= 0.0006 && $2 > 0)
	}
	END { if (!seen) exit 1 }' "$tmp/host.conf"
	ok $? "calibrate measures cost.block, the median shape's ns a block, and a taken jump's for core.fall ($(grep '^cost.block' "$tmp/host.conf" | cut -c1-220))"
	# rmw.overlap as the share of the checks under the decrement: (alone + chained - locked) / alone, within 0..1
	awk '$1 == "rmw.overlap" {
		seen = 1
		if (!match($0, /measured now: a locked decrement before 4 rounds of free_pages_prepare\(\)'"'"'s checks took [0-9.]+ ns a line, the checks alone [0-9.]+, chained decrements [0-9.]+ /)) exit 1
		n = split(substr($0, RSTART, RLENGTH), w, " ")
		l = w[13]; a = w[20]; c = w[n] + 0
		sub(/,$/, "", a)
		h = (a + c - l) / a; if (h < 0) h = 0; if (h > 1) h = 1
		d = $2 - h; if (d < 0) d = -d
		exit !($2 >= 0 && $2 <= 1 && d < 0.01)
	}
	END { if (!seen) exit 1 }' "$tmp/host.conf"
	ok $? "calibrate measures the share of the code after a locked RMW that runs under it ($(grep '^rmw.overlap' "$tmp/host.conf" | cut -c1-260))"
	# ... and, apart, whether misses run on across locked RMWs: rmw.drain no carries a
	# locked-add load time under half the chase's, yes one at or above it (unless it had no memory)
	awk '$1 == "rmw.drain" {
		seen = 1
		if (!match($0, /locked add [0-9.]+ ns each, alone [0-9.]+, a dependent chase over them [0-9.]+ /)) exit 1
		split(substr($0, RSTART, RLENGTH), w, " ")
		locked = w[3]; chase = w[13]
		exit !(($2 == "no" && locked < chase / 2) || ($2 == "yes" && !(locked < chase / 2)))
	}
	END { if (!seen) exit 1 }' "$tmp/host.conf"
	ok $? "calibrate measures whether misses run on across locked RMWs (rmw.drain), apart from rmw.overlap"
	"$MMLAB" run refcount-scale --machine host-model --threads 2 --variant vanilla --virtual-us 100 >/dev/null 2>&1
	ok $? "--machine host-model measures this host and runs"
fi

# A setting whose source begins "fit:" was taken from a seed's result: every table run on the
# machine names it; "fit" without its colon, or a source that only mentions a fit, is not a mark.
fitted_line() { "$MMLAB" run free-contig --machine "$1" --iterations 2 --variant vanilla 2>/dev/null | grep '^fitted, not predicted'; }
fl=$(fitted_line e5-2690v3-2s)
[[ $fl == "fitted, not predicted: e5-2690v3-2s's syscall 682 (seed 000 1-thread point: "* ]]
ok $? "a preset's fitted syscall is named under the table: ${fl:0:70}"
sed 's/^lat.remote *\([0-9.]*\) *|/lat.remote \1 | fit: a test says so;/' machines/e5-2690v3-2s.conf >"$tmp/fit2.conf"
fl=$(fitted_line "$tmp/fit2.conf")
[[ $fl == *"lat.remote "*"(a test says so;"*"; syscall 682 ("* ]]
ok $? "two fitted settings are both named, each with its value and source"
sed 's/| fit: seed 000/| fit seed 000/' machines/e5-2690v3-2s.conf >"$tmp/fit0.conf"
[ -z "$(fitted_line "$tmp/fit0.conf")" ]
ok $? "a source \"fit seed 000\" (no colon) marks nothing"
[ -z "$(fitted_line m2-vm)" ]
ok $? "a preset with no fitted setting prints no such line"

# l1d.lat (optional, with the hierarchy): 0.01..100 ns, at and beyond each bound.
l1lat() { sed "s/^l1d.lat .*/l1d.lat $1 | a test/" machines/e5-2690v3-2s.conf >"$tmp/l1.conf"; }
l1lat 0.01; "$MMLAB" run free-contig --machine "$tmp/l1.conf" --iterations 2 --variant vanilla >/dev/null 2>&1
ok $? "l1d.lat 0.01 (the least) is taken"
l1lat 100; "$MMLAB" run free-contig --machine "$tmp/l1.conf" --iterations 2 --variant vanilla >/dev/null 2>&1
ok $? "l1d.lat 100 (the most) is taken"
l1lat 0.009; usage_error_says '0.01..100' "l1d.lat below 0.01" run free-contig --machine "$tmp/l1.conf"
l1lat 100.5; usage_error_says '0.01..100' "l1d.lat above 100" run free-contig --machine "$tmp/l1.conf"
# noh_with LINE...: e5-2690v3-2s without the hierarchy's settings, then each LINE, in $tmp/noh.conf.
noh_with() {
	grep -v '^\(l1d\.\|l2\.\|l3\.\|mem\.remote\|core\.\|pf\.\|smt\.share\)' machines/e5-2690v3-2s.conf >"$tmp/noh.conf"
	printf '%s\n' "$@" >>"$tmp/noh.conf"
}
# needs_hier LINE: a hierarchy key in a file without the hierarchy is refused.
needs_hier() {
	noh_with "$1"
	usage_error_says 'needs the memory hierarchy' "${1%% *} without the hierarchy" run free-contig --machine "$tmp/noh.conf"
}
# sourced_key SETFN CONF KEY VALUE SHOWN: KEY VALUE without a source is refused, and with
# a fit for a source is named under the tables as "KEY SHOWN". SETFN LINE writes CONF.
sourced_key() {
	local set=$1 conf=$2 key=$3 val=$4 shown=$5
	$set "$key $val"
	usage_error_says 'source' "$key without a source" run free-contig --machine "$conf"
	$set "$key $val | fit: a test"
	"$MMLAB" run free-contig --machine "$conf" --iterations 2 --variant vanilla 2>&1 |
		grep -q "fitted, not predicted:.*$key $shown"
	ok $? "a fitted $key is named under the tables"
}
needs_hier "l1d.lat 1.2 | a test"

# tlb.flush (0..1000000 ns) and tlb.tlbi (0..100000 ns), optional, at and beyond each bound.
# preset_with OUT PRESET KEY LINE...: PRESET's machine file without its KEY.* lines, then each LINE, in OUT.
preset_with() {
	local out=$1 preset=$2 key=$3
	shift 3
	grep -v "^$key\\." "machines/$preset.conf" >"$out"
	printf '%s\n' "$@" >>"$out"
}
tlbkey() { preset_with "$tmp/tlb.conf" yitian710-32c tlb "$@"; }
tlbkey "tlb.flush 0 | a test" "tlb.tlbi 100000 | a test"
"$MMLAB" run free-contig --machine "$tmp/tlb.conf" --iterations 2 --variant vanilla >/dev/null 2>&1
ok $? "tlb.flush 0 and tlb.tlbi 100000 (the least, the most) are taken"
tlbkey "tlb.flush 1000000 | a test" "tlb.tlbi 0 | a test"
"$MMLAB" run free-contig --machine "$tmp/tlb.conf" --iterations 2 --variant vanilla >/dev/null 2>&1
ok $? "tlb.flush 1000000 and tlb.tlbi 0 are taken"
tlbkey "tlb.flush -0.5 | a test"; usage_error_says '0..1000000' "tlb.flush below 0" run free-contig --machine "$tmp/tlb.conf"
tlbkey "tlb.flush 1000000.5 | a test"; usage_error_says '0..1000000' "tlb.flush above 1000000" run free-contig --machine "$tmp/tlb.conf"
tlbkey "tlb.tlbi 100000.5 | a test"; usage_error_says '0..100000' "tlb.tlbi above 100000" run free-contig --machine "$tmp/tlb.conf"
tlbkey "tlb.flush 300"; usage_error_says 'source' "tlb.flush without a source" run free-contig --machine "$tmp/tlb.conf"

# sched.wake (0..1000000 ns), optional, at and beyond each bound; the fitted-number line names it
# when its source begins "fit:".
wakekey() { preset_with "$tmp/wake.conf" e5-2690v3-2s sched "$@"; }
wakekey "sched.wake 0 | a test"
"$MMLAB" run free-contig --machine "$tmp/wake.conf" --iterations 2 --variant vanilla >/dev/null 2>&1
ok $? "sched.wake 0 (the least) is taken"
wakekey "sched.wake 1000000 | a test"
"$MMLAB" run free-contig --machine "$tmp/wake.conf" --iterations 2 --variant vanilla >/dev/null 2>&1
ok $? "sched.wake 1000000 (the most) is taken"
wakekey "sched.wake -0.5 | a test"; usage_error_says '0..1000000' "sched.wake below 0" run free-contig --machine "$tmp/wake.conf"
wakekey "sched.wake 1000000.5 | a test"; usage_error_says '0..1000000' "sched.wake above 1000000" run free-contig --machine "$tmp/wake.conf"
sourced_key wakekey "$tmp/wake.conf" sched.wake 2500 2500

# rmw.overlap (yes|no | SOURCE), optional: each word taken and what it does to free-contig's
# batched free (one locked decrement a page, a hit: it shortens the loop); anything else, or
# no source, refused; a fitted one named under the tables.
ovkey() { preset_with "$tmp/ov.conf" m2-vm rmw "$@"; }
fc_batched() { "$MMLAB" run free-contig --machine "$tmp/ov.conf" --iterations 20 --repeat 1 --variant batched \
	--json "$tmp/ov.json" >/dev/null 2>&1 && python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$tmp/ov.json"; }
ovkey
ov_none=$(fc_batched)
ok $? "a machine file without rmw.overlap runs ($ov_none us)"
ovkey "rmw.overlap no | a test"
ov_no=$(fc_batched)
[ -n "$ov_no" ] && [ "$ov_no" = "$ov_none" ]
ok $? "rmw.overlap no is the default ($ov_no us, as without the key)"
ovkey "rmw.overlap yes | a test"
ov_yes=$(fc_batched)
[ -n "$ov_yes" ] && python3 -c 'import sys; sys.exit(not float(sys.argv[1]) < 0.9 * float(sys.argv[2]))' "$ov_yes" "$ov_no"
ok $? "rmw.overlap yes shortens batched's free, a locked decrement a page ($ov_yes against $ov_no us)"
ovkey "rmw.overlap maybe | a test"; usage_error_says "valid: yes, no" "rmw.overlap maybe" run free-contig --machine "$tmp/ov.conf"
ovkey "rmw.overlap yes |"; usage_error_says 'source' "rmw.overlap with an empty source" run free-contig --machine "$tmp/ov.conf"
sourced_key ovkey "$tmp/ov.conf" rmw.overlap yes 1
# ... or the share of the code after it that runs under it, 0..1: 0 is no; 1 hides the
# code up to the next event, less than yes (what comes after waits for the RMW, where yes
# lets marked accesses go on); a half in between; beyond either end, or not a number,
# refused with the range.
ovkey "rmw.overlap 0 | a test"; ov_0=$(fc_batched)
[ -n "$ov_0" ] && [ "$ov_0" = "$ov_no" ]
ok $? "rmw.overlap 0 is no ($ov_0 us)"
ovkey "rmw.overlap 1 | a test"; ov_1=$(fc_batched)
[ -n "$ov_1" ] && python3 -c 'import sys; y, o, n = map(float, sys.argv[1:]); sys.exit(not y < o < n)' "$ov_yes" "$ov_1" "$ov_no"
ok $? "rmw.overlap 1 lies between yes and no ($ov_yes < $ov_1 < $ov_no us)"
ovkey "rmw.overlap 0.5 | a test"; ov_h=$(fc_batched)
[ -n "$ov_h" ] && python3 -c 'import sys; o, h, n = map(float, sys.argv[1:]); sys.exit(not o < h < n)' "$ov_1" "$ov_h" "$ov_no"
ok $? "rmw.overlap 0.5 lies between 1 and no ($ov_1 < $ov_h < $ov_no us)"
for bad in -0.01 1.01 0.5x; do
	ovkey "rmw.overlap $bad | a test"
	usage_error_says "line [0-9]+: 'rmw\\.overlap': valid: yes, no, or the share of the code after it that runs under it, 0\\.\\.1" "rmw.overlap $bad" run free-contig --machine "$tmp/ov.conf"
done
sourced_key ovkey "$tmp/ov.conf" rmw.overlap 0.25 0.25

# rmw.drain (yes|no | SOURCE), optional, default the opposite of rmw.overlap: whether a locked
# RMW waits for the misses in flight.  migrate-fork's vanilla rmap walk takes a PTE lock a VMA
# between its misses, so it is slower when the lock drains them, whatever rmw.overlap says.
drkey() { preset_with "$tmp/dr.conf" qemu-2node rmw "$@"; }
mf_vanilla() { "$MMLAB" run migrate-fork --machine "$tmp/dr.conf" --scale tiny --children 20 --repeat 1 \
	--variant vanilla --json "$tmp/dr.json" >/dev/null 2>&1 &&
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$tmp/dr.json"; }
# Each rmw.overlap: without rmw.drain as with its opposite; with rmw.drain the other way,
# slower (yes: drained) or faster (no: the misses run on) by at least 2% (deterministic: at
# 20 children 523 -> 476 us with rmw.overlap no, 451 -> 467 with yes).
for ov in no yes; do
	dflt=yes; other=no; [ $ov = yes ] && dflt=no && other=yes
	drkey "rmw.overlap $ov | a test"; base=$(mf_vanilla)
	drkey "rmw.overlap $ov | a test" "rmw.drain $dflt | a test"; same=$(mf_vanilla)
	[ -n "$base" ] && [ "$base" = "$same" ]
	ok $? "without rmw.drain, rmw.overlap $ov: as rmw.drain $dflt ($base us)"
	drkey "rmw.overlap $ov | a test" "rmw.drain $other | a test"; moved=$(mf_vanilla)
	[ -n "$moved" ] && python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2])
sys.exit(not (a < 0.98 * b if sys.argv[3] == "no" else a > 1.02 * b))' "$moved" "$base" "$other"
	ok $? "rmw.overlap $ov with rmw.drain $other: the walk's misses $([ $other = no ] && echo run on across its PTE locks || echo are drained at them) ($moved against $base us)"
done
# A share: without rmw.drain, over a half is yes's default (the misses run on), a half or
# less no's (drained).
for sh in 0.5 0.51; do
	dflt=yes; [ $sh = 0.51 ] && dflt=no
	drkey "rmw.overlap $sh | a test"; base=$(mf_vanilla)
	drkey "rmw.overlap $sh | a test" "rmw.drain $dflt | a test"; same=$(mf_vanilla)
	[ -n "$base" ] && [ "$base" = "$same" ]
	ok $? "without rmw.drain, rmw.overlap $sh: as rmw.drain $dflt ($base us)"
done
drkey "rmw.drain maybe | a test"; usage_error_says "valid: yes, no" "rmw.drain maybe" run free-contig --machine "$tmp/dr.conf"
drkey "rmw.drain no |"; usage_error_says 'source' "rmw.drain with an empty source" run free-contig --machine "$tmp/dr.conf"
sourced_key drkey "$tmp/dr.conf" rmw.drain no 0

# core.sb N | SOURCE (optional, with the hierarchy): an integer in 1..1024, at and beyond
# each bound; what it does to migrate-fork, whose page copies store to cold lines.
# one_key OUT PRESET KEY LINE...: PRESET's machine file without its KEY line, then each LINE, in OUT.
one_key() {
	local out=$1 preset=$2 key=$3
	shift 3
	grep -v "^${key//./\\.} " "machines/$preset.conf" >"$out"
	[ $# -eq 0 ] || printf '%s\n' "$@" >>"$out"
}
# mf_tiny_usec CONF JSON: migrate-fork's vanilla with one child at --scale tiny on CONF, in us.
mf_tiny_usec() {
	"$MMLAB" run migrate-fork --machine "$1" --scale tiny --children 1 --repeat 1 --variant vanilla \
		--json "$2" >/dev/null 2>&1 &&
		python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$2"
}
sbkey() { one_key "$tmp/sb.conf" qemu-2node core.sb "$@"; }
mf_usec() { mf_tiny_usec "$tmp/sb.conf" "$tmp/sb.json"; }
sbkey
sb_none=$(mf_usec)
ok $? "a machine file without core.sb runs ($sb_none us)"
sbkey "core.sb 72 | a test"
sb_72=$(mf_usec)
[ -n "$sb_72" ] && [ -n "$sb_none" ] && python3 -c 'import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))' "$sb_72" "$sb_none"
ok $? "core.sb 72 shortens migrate-fork, whose copies store to cold lines ($sb_72 against $sb_none us)"
grep -q 'core.sb *72 | a test' "$tmp/sb.json"
ok $? "the run's JSON carries core.sb"
# key_bounds SETFN CONF KEY RANGE LEAST MOST BAD...: KEY at LEAST and at MOST taken, KEY at
# each BAD refused with one line naming RANGE.  SETFN LINE writes CONF.
key_bounds() {
	local set=$1 conf=$2 key=$3 range=$4 least=$5 most=$6 v
	shift 6
	$set "$key $least | a test"; "$MMLAB" run free-contig --machine "$conf" --iterations 2 --variant vanilla >/dev/null 2>&1
	ok $? "$key $least (the least) is taken"
	$set "$key $most | a test"; "$MMLAB" run free-contig --machine "$conf" --iterations 2 --variant vanilla >/dev/null 2>&1
	ok $? "$key $most (the most) is taken"
	for v in "$@"; do
		$set "$key $v | a test"; usage_error_says "$range" "$key $v" run free-contig --machine "$conf"
	done
}
key_bounds sbkey "$tmp/sb.conf" core.sb '1..1024' 1 1024 0 1025 2.5
sourced_key sbkey "$tmp/sb.conf" core.sb 64 64
needs_hier "core.sb 42 | a test"

# core.mispredict NS | SOURCE (optional, hierarchy or not): 0.01..100 ns, at and beyond each
# bound; what it does to free-contig's vanilla, whose buddy merges branch on the data: a
# dearer refill, a slower free, and the JSON's mispredicts_per_op and share_branch_pct.
bpkey() { one_key "$tmp/bp.conf" m2-vm core.mispredict "$@"; }
fc_vanilla() { "$MMLAB" run free-contig --machine "$tmp/bp.conf" --iterations 20 --repeat 1 --variant vanilla \
	--json "$tmp/bp.json" >/dev/null 2>&1 && python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["results"][0]
print(r["median"], r["counters"].get("mispredicts_per_op", "none"), r["counters"].get("share_branch_pct", "none"))' "$tmp/bp.json"; }
bpkey; read -r bp_none bp_none_n bp_none_share <<<"$(fc_vanilla)"
[ -n "$bp_none" ] && [ "$bp_none_n" = none ] && [ "$bp_none_share" = none ]
ok $? "without core.mispredict: no branch predicted, no counters of it ($bp_none us)"
bpkey "core.mispredict 4 | a test"; read -r bp_4 bp_4_n bp_4_share <<<"$(fc_vanilla)"
bpkey "core.mispredict 8 | a test"; read -r bp_8 bp_8_n bp_8_share <<<"$(fc_vanilla)"
python3 -c 'import sys; n4, n8, s4, s8 = map(float, sys.argv[1:5]); t0, t4, t8 = map(float, sys.argv[5:])
sys.exit(not (n4 > 0 and n4 == n8 and 0 < s4 < s8 and t0 < t4 < t8))' "$bp_4_n" "$bp_8_n" "$bp_4_share" "$bp_8_share" "$bp_none" "$bp_4" "$bp_8"
ok $? "core.mispredict 4 and 8: the same mispredictions ($bp_4_n an op), their share and the time grow ($bp_none < $bp_4 < $bp_8 us)"
grep -q 'core.mispredict 8 | a test' "$tmp/bp.json"
ok $? "the run's JSON carries core.mispredict"
key_bounds bpkey "$tmp/bp.conf" core.mispredict '0.01..100' 0.01 100 0.009 100.1 x
sourced_key bpkey "$tmp/bp.conf" core.mispredict 4.6 4.6

# core.insn NS | SOURCE (optional, hierarchy or not): 0.001..10 ns, at and beyond each bound.
# A block costs the larger of cost.block and its ops times core.insn (the table
# tools/gen-block-insns.py links into build/mmlab); with core.fall yes, a block fallen into
# from the one before costs its ops alone.  On e5-2690v3-2s without the hierarchy
# (cost.block 0.38 ns, nothing else in the time that depends on when), free-contig's
# vanilla at 20 iterations:
#   no key              no insns_per_op or taken_per_op counter
#   0.001 (1 ps an op)  no block reaches cost.block (255 ps at most): the time of no key
#   0.001, core.fall    a block taken to costs 0.38 ns as without the key; one fallen into
#                       n ps: 0.38 ns less each, n ps more
#   0.38 (= cost.block) every block of n >= 1 ops costs n x 0.38 ns
#   0.76                ... n x 0.76 ns: 0.38 ns more an op than at 0.38, exactly
# and the ops and blocks taken to are the same at every width.
inkey() { noh_with "$@"; }
fc_insn() { "$MMLAB" run free-contig --machine "$tmp/noh.conf" --iterations 20 --repeat 1 --variant vanilla \
	--json "$tmp/in.json" >/dev/null 2>&1 && python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["results"][0]
c = r["counters"]
print(r["median"], c.get("insns_per_op", "none"), c["blocks_per_op"], c.get("taken_per_op", "none"))' "$tmp/in.json"; }
inkey ""; read -r in_none in_none_n in_none_b in_none_t <<<"$(fc_insn)"
[ -n "$in_none" ] && [ "$in_none_n" = none ] && [ "$in_none_t" = none ]
ok $? "without core.insn: no insns_per_op or taken_per_op ($in_none us)"
inkey "core.insn 0.001 | a test"; read -r in_1 in_1_n in_1_b in_1_t <<<"$(fc_insn)"
[ -n "$in_1" ] && [ "$in_1" = "$in_none" ] && [ "$in_1_b" = "$in_none_b" ]
ok $? "core.insn 0.001: no block costs more than cost.block, the time is the time without it ($in_1 us)"
inkey "core.insn 0.001 | a test" "core.fall yes | a test"; read -r in_f in_f_n in_f_b in_f_t <<<"$(fc_insn)"
grep -q 'core.fall *yes | a test' "$tmp/in.json"
ok $? "the run's JSON carries core.fall"
python3 -c 'import sys; t0, t1, b, n, k, n1, k1 = map(float, sys.argv[1:])
fell = (b - k) * 20                     # blocks fallen into, in the 20 iterations
lo = t0 * 1000 - 0.38 * fell            # each 0.38 ns less ...
sys.exit(not (0 < k < b and n == n1 and k == k1 and lo <= t1 * 1000 <= lo + 0.001 * n * 20 + 0.5))' \
	"$in_none" "$in_f" "$in_f_b" "$in_f_n" "$in_f_t" "$in_1_n" "$in_1_t"
ok $? "core.insn 0.001 and core.fall yes: $in_f_t of $in_f_b blocks an op taken to cost cost.block, the rest 0.38 ns less ($in_none -> $in_f us)"
inkey "core.insn 0.38 | a test"; read -r in_38 in_38_n in_38_b in_38_t <<<"$(fc_insn)"
inkey "core.insn 0.76 | a test"; read -r in_76 in_76_n in_76_b in_76_t <<<"$(fc_insn)"
python3 -c 'import sys; n1, n38, n76, b1, b38, b76, k1, k38, k76 = map(float, sys.argv[1:10]); t38, t76 = map(float, sys.argv[10:])
sys.exit(not (n1 > b1 > 0 and n1 == n38 == n76 and b1 == b38 == b76 and k1 == k38 == k76 and t38 < t76
              and abs((t76 - t38) * 1000 - 0.38 * n1 * 20) <= 0.001 * (t76 - t38) * 1000))' \
	"$in_1_n" "$in_38_n" "$in_76_n" "$in_1_b" "$in_38_b" "$in_76_b" "$in_1_t" "$in_38_t" "$in_76_t" "$in_38" "$in_76"
ok $? "core.insn 0.38 and 0.76: the same $in_1_n ops and $in_1_t blocks taken to an op; 0.38 ns more an op ($in_38 -> $in_76 us)"
grep -q 'core.insn *0.76 | a test' "$tmp/in.json"
ok $? "the run's JSON carries core.insn"
inkey "core.fall yes | a test"
usage_error_says 'core.fall needs core.insn' "core.fall without core.insn" run free-contig --machine "$tmp/noh.conf"
inkey "core.insn 0.05 | a test" "core.fall maybe | a test"
usage_error_says 'valid: yes, no' "core.fall maybe" run free-contig --machine "$tmp/noh.conf"
inkey "core.insn 0.05 | a test" "core.fall yes"
usage_error_says 'source' "core.fall without a source" run free-contig --machine "$tmp/noh.conf"
key_bounds inkey "$tmp/noh.conf" core.insn '0.001..10' 0.001 10 0.0009 10.1 x
sourced_key inkey "$tmp/noh.conf" core.insn 0.05 0.05

# mem.first_touch NS | SOURCE and mem.backing 4K|2M | SOURCE (optional, together): the
# first write to RAM nothing beneath the machine has backed, and the page it backs.  On
# qemu-2node's hierarchy, migrate-fork's cold targets (1 MiB at --scale tiny, 256 frames):
#   no keys          RAM backed from the start: no host fault
#   0 ns,    4K      256 host faults, each a 4 KiB zeroing through the hierarchy (which
#                    brings the target's lines in: the copy after it may be faster)
#   2000 ns, 4K      the same 256, and 2 us each more: 512 us
#   2000 ns, 2M      one or two 2 MiB host pages
# ftconf LINE...: qemu-2node without either key, then each LINE, in $tmp/ft.conf.
ftconf() {
	grep -vE '^mem\.(first_touch|backing) ' machines/qemu-2node.conf >"$tmp/ft.conf"
	[ $# -eq 0 ] || printf '%s\n' "$@" >>"$tmp/ft.conf"
}
# ft_run NAME: mgt-entry at 10 children on $tmp/ft.conf: "usec host_faults" in $tmp/ft-NAME
ft_run() {
	"$MMLAB" run migrate-fork --machine "$tmp/ft.conf" --scale tiny --children 10 --variant mgt-entry \
		--repeat 1 --lru-disable-ns 0 --memcg-ns 0 --json "$tmp/ft-$1.json" >/dev/null 2>&1 &&
		python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["results"][0]
print(r["median"], int(r["counters"]["host_faults"]))' "$tmp/ft-$1.json" >"$tmp/ft-$1"
}
ftconf; ft_run none
ftconf "mem.first_touch 0 | a test" "mem.backing 4K | a test"; ft_run 0-4k
ftconf "mem.first_touch 2000 | a test" "mem.backing 4K | a test"; ft_run 2000-4k
ftconf "mem.first_touch 2000 | a test" "mem.backing 2M | a test"; ft_run 2000-2m
python3 - "$tmp" <<'PY'
import sys
t = sys.argv[1]
u, f = {}, {}
for n in ("none", "0-4k", "2000-4k", "2000-2m"):
    a, b = open(f"{t}/ft-{n}").read().split()
    u[n], f[n] = float(a), int(b)
assert f == {"none": 0, "0-4k": 256, "2000-4k": 256, "2000-2m": f["2000-2m"]} and 1 <= f["2000-2m"] <= 2, f
assert 511 < u["2000-4k"] - u["0-4k"] < 513, u               # 2 us more for each of 256
assert u["2000-2m"] < u["2000-4k"], u                        # 2 faults, not 256
PY
ok $? "mem.first_touch and mem.backing: none, 256 and 1-2 host faults, 2 us each ($(cd "$tmp" && cat ft-none ft-0-4k ft-2000-4k ft-2000-2m | tr '\n' ' '))"
grep -q 'mem.first_touch 2000 | a test' "$tmp/ft-2000-2m.json" && grep -q 'mem.backing *2M | a test' "$tmp/ft-2000-2m.json"
ok $? "the run's JSON carries mem.first_touch and mem.backing"
ftset() { ftconf "mem.backing 2M | a test" "$@"; }
key_bounds ftset "$tmp/ft.conf" mem.first_touch '0..10000000' 0 10000000 -1 10000001 x
bkset() { ftconf "mem.first_touch 2000 | a test" "$@"; }
bkset "mem.backing 4K | a test"; "$MMLAB" run free-contig --machine "$tmp/ft.conf" --iterations 2 --variant vanilla >/dev/null 2>&1
ok $? "mem.backing 4K is taken"
for w in 1G 4k 2048; do
	bkset "mem.backing $w | a test"; usage_error_says 'valid: 4K, 2M' "mem.backing $w" run free-contig --machine "$tmp/ft.conf"
done
bkset "mem.backing 2M"; usage_error_says 'source' "mem.backing without a source" run free-contig --machine "$tmp/ft.conf"
ftconf "mem.first_touch 2000 | a test"
usage_error_says 'mem.first_touch without mem.backing' "mem.first_touch alone" run free-contig --machine "$tmp/ft.conf"
ftconf "mem.backing 2M | a test"
usage_error_says 'mem.backing without mem.first_touch' "mem.backing alone" run free-contig --machine "$tmp/ft.conf"
sourced_key ftset "$tmp/ft.conf" mem.first_touch 1500 1500

# pf.span KIB | SOURCE (optional, with the hierarchy): a power of two in 4..4096, at and
# beyond each bound; what it does to migrate-fork, whose copies and set-up run through
# consecutive pages.
spkey() { one_key "$tmp/sp.conf" xeon-8369b-2s pf.span "$@"; }
spkey
sp_none=$(mf_tiny_usec "$tmp/sp.conf" "$tmp/sp.json")
spkey "pf.span 4 | a test"
sp_4=$(mf_tiny_usec "$tmp/sp.conf" "$tmp/sp.json")
[ -n "$sp_4" ] && [ "$sp_4" = "$sp_none" ]
ok $? "pf.span 4 is the default ($sp_4 us, as without the key)"
spkey "pf.span 4096 | a test"
sp_big=$(mf_tiny_usec "$tmp/sp.conf" "$tmp/sp.json")
[ -n "$sp_big" ] && [ -n "$sp_4" ] && python3 -c 'import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))' "$sp_big" "$sp_4"
ok $? "pf.span 4096 (the most) shortens migrate-fork, whose copies run through consecutive pages ($sp_big against $sp_4 us)"
grep -q 'pf.span *4096 | a test' "$tmp/sp.json"
ok $? "the run's JSON carries pf.span"
spkey "pf.span 2 | a test"; usage_error_says '4..4096' "pf.span 2" run free-contig --machine "$tmp/sp.conf"
spkey "pf.span 8192 | a test"; usage_error_says '4..4096' "pf.span 8192" run free-contig --machine "$tmp/sp.conf"
spkey "pf.span 12 | a test"; usage_error_says 'power of two' "pf.span 12" run free-contig --machine "$tmp/sp.conf"
sourced_key spkey "$tmp/sp.conf" pf.span 64 64
needs_hier "pf.span 8 | a test"

# pf.stride BYTES | SOURCE (optional, with the hierarchy: 128..8192) and pf.ahead N | SOURCE
# (optional, with pf.stride: 1..64), at and beyond each bound; what they do to reclaim-large,
# whose LRU walk steps 2 KiB at a time through the struct pages of its order-5 folios.
stkey() { preset_with "$tmp/st.conf" xeon-8369b-2s pf "pf.degree 20 | a test" "$@"; }
# rl_tiny_l2: reclaim-large's batched at --scale tiny on st.conf: its L2 misses a folio.
rl_tiny_l2() {
	"$MMLAB" run reclaim-large --machine "$tmp/st.conf" --scale tiny --contpte off --repeat 1 --variant batched \
		--json "$tmp/st.json" >/dev/null 2>&1 &&
		python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["counters"]["l2_misses_per_op"])' "$tmp/st.json"
}
stkey
st_none=$(rl_tiny_l2)
python3 -c 'import json,sys; mf=json.load(open(sys.argv[1]))["machine"]["machine_file"]; sys.exit("pf.stride" in mf or "pf.ahead" in mf)' "$tmp/st.json"
ok $? "a machine file without pf.stride names neither key in the run's JSON, not even as a comment"
stkey "pf.stride 2048 | a test" "pf.ahead 4 | a test"
st_on=$(rl_tiny_l2)
[ -n "$st_on" ] && [ -n "$st_none" ] && python3 -c 'import sys; sys.exit(not float(sys.argv[1]) < 0.75 * float(sys.argv[2]))' "$st_on" "$st_none"
ok $? "pf.stride 2048 with pf.ahead 4 takes a quarter or more off reclaim-large's L2 misses a folio ($st_on against $st_none)"
grep -q 'pf.stride *2048 | a test' "$tmp/st.json" && grep -q 'pf.ahead *4 | a test' "$tmp/st.json"
ok $? "the run's JSON carries pf.stride and pf.ahead"
stkey "pf.stride 128 | a test" "pf.ahead 1 | a test"
"$MMLAB" run free-contig --machine "$tmp/st.conf" --iterations 2 --variant vanilla >/dev/null 2>&1
ok $? "pf.stride 128 and pf.ahead 1, the least of each, are taken"
stkey "pf.stride 8192 | a test" "pf.ahead 64 | a test"
"$MMLAB" run free-contig --machine "$tmp/st.conf" --iterations 2 --variant vanilla >/dev/null 2>&1
ok $? "pf.stride 8192 and pf.ahead 64, the most of each, are taken"
stkey "pf.stride 127 | a test"; usage_error_says '128..8192' "pf.stride 127" run free-contig --machine "$tmp/st.conf"
stkey "pf.stride 8193 | a test"; usage_error_says '128..8192' "pf.stride 8193" run free-contig --machine "$tmp/st.conf"
stkey "pf.stride 2048 | a test" "pf.ahead 0 | a test"; usage_error_says '1..64' "pf.ahead 0" run free-contig --machine "$tmp/st.conf"
stkey "pf.stride 2048 | a test" "pf.ahead 65 | a test"; usage_error_says '1..64' "pf.ahead 65" run free-contig --machine "$tmp/st.conf"
stkey "pf.ahead 4 | a test"; usage_error_says 'needs pf.stride' "pf.ahead without pf.stride" run free-contig --machine "$tmp/st.conf"
sourced_key stkey "$tmp/st.conf" pf.stride 1024 1024
needs_hier "pf.stride 2048 | a test"

# A page-table entry's load is a load (VT_ENTRY: pgtable_entry_load()), and the frame it
# names waits for it (mem_init() tells the machine where frames are). vanilla's restore
# walks every child's tables, mgt-entry stops after the parent's: on qemu-2node at 4
# children each extra walk fetches 0.008 lines through the coherence model (it was 0.15
# when entries were fetched there in sequence) and stalls 14.0 ns on memory; with no
# frames announced (vt_frames() given 0 of them, tried by hand) it stalls 8.8 ns.  (26.5
# and 20.5 ns before a hit that follows a pointer held up only its chain.)
"$MMLAB" run migrate-fork --machine qemu-2node --scale tiny --children 4 --repeat 1 \
	--variant vanilla,mgt-entry --json "$tmp/walk.json" >/dev/null 2>&1
python3 -c 'import json, sys
r = {x["variant"]: x["counters"] for x in json.load(open(sys.argv[1]))["results"]}
v, m = r["vanilla"], r["mgt-entry"]
folios = 256
walks = (v["restore_vmas_visited"] - m["restore_vmas_visited"]) / folios
per_walk = (v["line_transfers_per_op"] - m["line_transfers_per_op"]) / walks
stall = (v["mem_stall_ns_per_op"] - m["mem_stall_ns_per_op"]) / walks
print(round(per_walk, 3), "lines in sequence,", round(stall, 1), "ns of memory stall")
sys.exit(not (walks == 4 and per_walk < 0.05 and stall > 11.4))' "$tmp/walk.json" >"$tmp/walk.out" 2>&1
ok $? "each extra restore walk loads its page-table entries as loads, each level waiting for the last: $(cat "$tmp/walk.out") a walk"

# reclaim-large's --tlb-flush-ns/--tlbi-ns auto take the machine's figures;
# without them, 1000 and 50 ns.
rl_usec() { "$MMLAB" run reclaim-large --machine "$1" --scale tiny --repeat 1 --variant vanilla --contpte on "${@:2}" 2>/dev/null |
	    awk '/^on \(arm64\)/ && $4 ~ /^[0-9.]+$/ { print $4; exit }'; }
tlbkey "tlb.flush 0 | a test" "tlb.tlbi 0 | a test"
zero_auto=$(rl_usec "$tmp/tlb.conf")
zero_opt=$(rl_usec machines/yitian710-32c.conf --tlb-flush-ns 0 --tlbi-ns 0)
[ -n "$zero_auto" ] && [ "$zero_auto" = "$zero_opt" ] && [ "$zero_auto" != "$(rl_usec machines/yitian710-32c.conf)" ]
ok $? "tlb.flush 0 and tlb.tlbi 0 give what --tlb-flush-ns 0 --tlbi-ns 0 gives, not the preset's ($zero_auto, $zero_opt us)"
tlbkey "tlb.flush 0 | a test" "tlb.tlbi 400 | a test"
split_auto=$(rl_usec "$tmp/tlb.conf")
split_opt=$(rl_usec machines/yitian710-32c.conf --tlb-flush-ns 0 --tlbi-ns 400)
[ -n "$split_auto" ] && [ "$split_auto" = "$split_opt" ] && [ "$split_auto" != "$zero_auto" ]
ok $? "tlb.tlbi 400 is --tlbi-ns's and tlb.flush 0 --tlb-flush-ns's ($split_auto, $split_opt us)"
tlbkey "tlb.flush 0 | a test" "tlb.tlbi 0 | a test"
over=$(rl_usec "$tmp/tlb.conf" --tlb-flush-ns 2000)
awk -v a="$over" -v b="$zero_auto" 'BEGIN { exit !(a > b) }'
ok $? "an explicit --tlb-flush-ns 2000 wins over the machine's 0 ($over > $zero_auto us)"
tlbkey
none=$(rl_usec "$tmp/tlb.conf")
dflt=$(rl_usec "$tmp/tlb.conf" --tlb-flush-ns 1000 --tlbi-ns 50)
[ -n "$none" ] && [ "$none" = "$dflt" ]
ok $? "a machine without tlb.* keys takes 1000 and 50 ns ($none, $dflt us)"
"$MMLAB" run reclaim-large --machine yitian710-32c --json "$tmp/rl.json" --scale tiny --repeat 1 --variant vanilla --contpte on >/dev/null 2>&1
grep -q 'tlb.flush *1460 |' "$tmp/rl.json"
ok $? "the run's JSON carries the machine's tlb.flush"

# arm64's TLBIs issued without waiting complete beside the code, one at a
# time (__flush_tlb_range_nosync() hands them off): batched's N TLBIs (range
# ops, one per tlb_flushes) add less than half of N x 100 ns at 100 ns each,
# which the unmap work around each one hides, and more than half of
# N x 2000 ns at 2000 ns each, which it cannot.
rl_tlbi() {
	"$MMLAB" run reclaim-large --machine yitian710-32c --scale tiny --repeat 1 --variant batched \
		--contpte on --tlbi-range on --tlb-flush-ns 0 --tlbi-ns "$1" --json "$tmp/rlt.json" >/dev/null 2>&1 &&
		python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(r["median"] * 1000, r["counters"]["tlb_flushes"])' "$tmp/rlt.json"
}
read -r t0 n0 <<<"$(rl_tlbi 0)"
read -r t100 n100 <<<"$(rl_tlbi 100)"
read -r t2000 n2000 <<<"$(rl_tlbi 2000)"
python3 -c 'import sys; t0, n, t100 = map(float, sys.argv[1:4]); sys.exit(not (n > 0 and t100 - t0 < 0.5 * n * 100))' \
	"${t0:-0}" "${n100:-0}" "${t100:-1e18}"
ok $? "$n100 TLBIs of 100 ns hide under the unmap work: +$(python3 -c "print(round(${t100:-0} - ${t0:-0}))") ns"
python3 -c 'import sys; t0, n, t2000 = map(float, sys.argv[1:4]); sys.exit(not (n > 0 and t2000 - t0 > 0.5 * n * 2000))' \
	"${t0:-0}" "${n2000:-0}" "${t2000:-0}"
ok $? "$n2000 TLBIs of 2000 ns do not: +$(python3 -c "print(round(${t2000:-0} - ${t0:-0}))") ns"

done_testing
