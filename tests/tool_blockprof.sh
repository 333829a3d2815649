#!/usr/bin/env bash
# tools/blockprof.sh (MMLAB_VT_BLOCKPROF, src/machine/vt_blockprof.c) on free-contig in virtual
# time, and on vmalloc's arm64 huge mappings (TAP): the blocks by function, the design's own
# functions where it has them, the timed windows' total the run's own count, the locked RMWs,
# L1 misses and memory stalls by site, and the errors.
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

run=(run free-contig --machine m2-vm --scale tiny --repeat 1)
bash tools/blockprof.sh -n 40 -o "$tmp/b.raw" -- "$MMLAB" "${run[@]}" --variant batched >"$tmp/b.txt" 2>&1
ok $? "blockprof of free-contig batched exits 0 ($(tail -n 1 "$tmp/b.txt"))"
"$MMLAB" "${run[@]}" --variant batched --json "$tmp/b.json" >/dev/null 2>&1
bash tools/blockprof.sh -n 40 -- "$MMLAB" "${run[@]}" --variant vanilla >"$tmp/v.txt" 2>&1
ok $? "blockprof of free-contig vanilla exits 0"
python3 - "$tmp/b.txt" "$tmp/v.txt" "$tmp/b.json" "$tmp/b.raw" <<'PY'
import json, sys
def load(p):
    rows, total = {}, None
    for l in open(p):
        f = l.split()
        if len(f) >= 3 and f[1].endswith("%") and f[0].isdigit():
            if f[2] == "all":
                total = int(f[0])
            else:
                rows[f[2]] = int(f[0])
    return rows, total
b, bt = load(sys.argv[1])
v, vt = load(sys.argv[2])
# v1's page loop (contig_run_next, contig_page_prepare) in batched only; both free through
# free_pages_prepare(), one block a page at least: 500 iterations of 512 pages.
assert "contig_run_next" in b and "contig_page_prepare" in b, sorted(b)[:20]
assert "contig_run_next" not in v and "free_frozen_page_commit" in v, sorted(v)[:20]
# Page poisoning and the free-time page checks are the kernel's static keys, off: no block.
for key in ("is_check_pages_enabled", "page_poisoning_enabled"):
    assert key not in b and key not in v, (key, b, v)
assert b["free_pages_prepare"] >= 500 * 512 and v["free_pages_prepare"] >= 500 * 512, (b, v)
assert sum(b.values()) <= bt and sum(v.values()) <= vt
# free-contig times windows: the profile is their blocks, each counted once, the run's own
# blocks_per_op x iterations exactly.
d = json.load(open(sys.argv[3]))
r = d["results"][0]
timed = r["counters"]["blocks_per_op"] * d["params"]["iterations"]
assert bt == round(timed), (timed, bt)
# The raw file: OFFSET COUNT WINDOWED, most counted first, the windowed ones summing to the
# total, the whole run's more (set-up and checks).
raw = [l.split() for l in open(sys.argv[4]) if not l.startswith("#")]
counts = [int(c) for _, c, _ in raw]
inside = [int(w) for _, _, w in raw]
assert counts == sorted(counts, reverse=True) and sum(inside) == bt < sum(counts) < 1.5 * bt, (counts[:5], bt)
assert all(w <= c for c, w in zip(counts, inside)) and all(o.startswith("0x") for o, _, _ in raw)
PY
ok $? "batched's page loop is its own, no block for an off static key, the windows' blocks each counted once, the raw counts sorted"

# vmalloc_huge(64 KiB) on arm64 (graviton3-64c, h:1): contiguous blocks (their entries are
# tests/test_vmalloc.c's), and the test's write reaches its page as the MMU does, without the
# kernel's software fold of a block (contpte_ptep_get()).
bash tools/blockprof.sh -n 400 -- "$MMLAB" run vmalloc --machine graviton3-64c --tests fix_size_alloc_test \
	--pages 16 --loops 50 --repeat 1 --variant batched --shard 1/2 >"$tmp/vm.txt" 2>&1
ok $? "blockprof of vmalloc p:16 h:1 exits 0"
grep -q " arch_vmap_pte_range_map_size$" "$tmp/vm.txt" && grep -q " vmalloc_mmu_page$" "$tmp/vm.txt" &&
	! grep -q " contpte_ptep_get$" "$tmp/vm.txt"
ok $? "p:16 h:1: contiguous blocks mapped, the MMU's walk without contpte_ptep_get()"

# -e rmw: the locked RMWs by site.  free-contig's batched free makes one a page, the
# refcount's decrement (put_page_testzero()): 500 iterations of 512 pages, nearly all of them.
bash tools/blockprof.sh -e rmw -n 5 -- "$MMLAB" "${run[@]}" --variant batched >"$tmp/r.txt" 2>&1
ok $? "blockprof -e rmw of free-contig batched exits 0 ($(tail -n 1 "$tmp/r.txt"))"
python3 - "$tmp/r.txt" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0] == "# locked RMWs inside the run's timed windows", lines[0]
assert lines[1].split()[:2] == ["locked", "RMWs"], lines[1]
top = lines[2].split(None, 2)
total = [l for l in lines if " all " in l][0].split()
assert int(top[0]) == 500 * 512 and "atomic_sub_return" in top[2] and "page_ref" in top[2], top
assert 500 * 512 <= int(total[0]) < 1.1 * 500 * 512, total
PY
ok $? "-e rmw: one refcount decrement a page, named with the functions it is inlined into"
# ... and reclaim-large's unmaps: folio_remove_rmap_ptes() subtracts from _large_mapcount at
# every PTE of a large folio, and from _nr_pages_mapped only when the page's last mapping
# goes (the kernel's "if (last)").  One process: both at every PTE, two a PTE cleared (less
# the few order-0 folios').  Two processes mapping the file: the first unmap of each page
# leaves the other mapping, so 1.5 a PTE.
for procs in 1 2; do
	bash tools/blockprof.sh -e rmw -n 60 -o "$tmp/rl$procs.raw" -- "$MMLAB" run reclaim-large \
		--machine xeon-8369b-2s --scale tiny --contpte off --processes $procs --variant vanilla \
		--repeat 1 >"$tmp/rl$procs.txt" 2>&1
done
python3 - "$tmp/rl1.txt" "$tmp/rl2.txt" "$tmp/rl1.raw" "$tmp/rl2.raw" "$MMLAB" <<'PY'
import subprocess, sys
def per_pte(path):
    sub = clear = 0
    for l in open(path):
        f = l.split(None, 2)
        if len(f) == 3 and f[0].isdigit():
            if f[2].startswith("atomic_sub < folio_remove_rmap_ptes"):
                sub += int(f[0])
            elif f[2].startswith("__ptep_get_and_clear < ptep_get_and_clear"):
                clear += int(f[0])
    assert sub and clear, (path, sub, clear)
    return sub / clear
def per_map(raw):
    # the faults before the window: __folio_add_rmap()'s atomic_add()s (_nr_pages_mapped,
    # only when a page became mapped, and _large_mapcount) against its per-page increments
    rows = [l.split() for l in open(raw) if not l.startswith("#")]
    out = subprocess.run(["addr2line", "-a", "-f", "-i", "-e", sys.argv[5]] + [r[0] for r in rows],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    chains = []
    for l in out:
        if l.startswith("0x"):
            chains.append([])
        else:
            chains[-1].append(l)
    add = inc = 0
    for (_, count, _), c in zip(rows, chains):
        names = c[0::2]
        if "__folio_add_rmap" in names:
            if names[0] == "atomic_add":
                add += int(count)
            elif "atomic_inc_and_test" in names:
                inc += int(count)
    assert add and inc, (raw, add, inc)
    return add / inc
one, two = per_pte(sys.argv[1]), per_pte(sys.argv[2])
print(f"# mapcount subtractions a PTE cleared: {one:.3f} with one process, {two:.3f} with two")
assert 1.98 <= one <= 2.0 and 1.4 <= two <= 1.6, (one, two)
# A fault maps a whole large folio at once: two atomic_add()s a folio and one increment a
# page; with the second process's mappings only _large_mapcount's, so three quarters as many.
one, two = per_map(sys.argv[3]), per_map(sys.argv[4])
print(f"# mapcount additions a page mapped: {one:.4f} with one process, {two:.4f} with two ({two / one:.3f} as many)")
assert 0.70 <= two / one <= 0.80, (one, two)
PY
ok $? "-e rmw: _nr_pages_mapped changes only when a page's first mapping comes or its last goes (one process about 2 RMWs a PTE, two 1.5)"
# -e miss and -e stall: each access's L1 misses and memory stalls by its site, each counted
# once, so the timed windows' totals are the run's own counters: free-contig batched (one CPU),
# and reclaim-large (the mapping process on a second CPU: plain accesses the coherence model
# serves, a miss counted once, at the kernel model's access).
bash tools/blockprof.sh -e miss -n 3 -- "$MMLAB" "${run[@]}" --variant batched >"$tmp/m.txt" 2>&1
ok $? "blockprof -e miss of free-contig batched exits 0 ($(tail -n 1 "$tmp/m.txt"))"
bash tools/blockprof.sh -e stall -n 3 -- "$MMLAB" "${run[@]}" --variant batched >"$tmp/s.txt" 2>&1
ok $? "blockprof -e stall of free-contig batched exits 0 ($(tail -n 1 "$tmp/s.txt"))"
rl=(run reclaim-large --machine xeon-8369b-2s --scale tiny --contpte off --variant vanilla --repeat 1)
bash tools/blockprof.sh -e miss -n 3 -- "$MMLAB" "${rl[@]}" >"$tmp/rm.txt" 2>&1 &&
	bash tools/blockprof.sh -n 3 -- "$MMLAB" "${rl[@]}" >"$tmp/rb.txt" 2>&1 &&
	"$MMLAB" "${rl[@]}" --json "$tmp/rl.json" >/dev/null 2>&1
ok $? "blockprof -e miss and of blocks, and the run, of reclaim-large exit 0"
python3 - "$tmp/m.txt" "$tmp/s.txt" "$tmp/b.json" "$tmp/rm.txt" "$tmp/rb.txt" "$tmp/rl.json" <<'PY'
import json, sys
def load(p):
    lines = open(p).read().splitlines()
    total = [l for l in lines if " all " in l][0].split()
    return lines, int(total[0]), int(total[3])
m, mt, _ = load(sys.argv[1])
s, st, sfn = load(sys.argv[2])
assert m[0] == "# L1 misses inside the run's timed windows" and m[1].split()[:2] == ["L1", "misses"], m[:2]
assert s[0] == "# ns stalled inside the run's timed windows" and s[1].split()[:2] == ["ns", "stalled"], s[:2]
d = json.load(open(sys.argv[3]))
c, it = d["results"][0]["counters"], d["params"]["iterations"]
# batched's refcount decrement misses on the pages the last loop left behind, one a page
assert "page_ref_sub_and_test" in m[2] and int(m[2].split()[0]) >= 512, m[2]
assert mt == round(c["l1_misses_per_op"] * it) > 0, (mt, c["l1_misses_per_op"] * it)
# ps summed by function, then floored to ns: under one ns short a function
want = c["mem_stall_ns_per_op"] * it
assert want - sfn - 1 <= st <= want and st > 0, (st, want, sfn)
_, rmt, _ = load(sys.argv[4])
_, rbt, _ = load(sys.argv[5])
r = json.load(open(sys.argv[6]))["results"][0]["counters"]
ops = rbt / r["blocks_per_op"]
assert abs(ops - round(ops)) < 1e-6 and abs(rmt - r["l1_misses_per_op"] * ops) < 0.5, (rmt, r["l1_misses_per_op"] * ops)
print(f"# free-contig: {mt} misses, {st} ns stalled; reclaim-large: {rmt} misses in {round(ops)} ops")
PY
ok $? "-e miss and -e stall: the windows' totals are the run's l1_misses_per_op and mem_stall_ns_per_op"
# Four readers of one page (refcount-scale): their plain loads of lines other CPUs hold are
# served by the coherence model, and each miss is named by the kernel model's access, never
# by the machine's own functions (only its spinlock, the kernel model's lock).
bash tools/blockprof.sh -e miss -n 200 -- "$MMLAB" run refcount-scale --machine e5-2690v3-2s --threads 4 \
	--variant vanilla --virtual-us 200 --repeat 1 >"$tmp/rc.txt" 2>&1
ok $? "blockprof -e miss of refcount-scale at 4 threads exits 0 ($(tail -n 1 "$tmp/rc.txt"))"
awk '$2 ~ /%$/ && $3 != "all" { print $3 }' "$tmp/rc.txt" >"$tmp/rc.names"
[ -s "$tmp/rc.names" ] && ! grep -v '^vt_spin_' "$tmp/rc.names" | grep -q '^vt_'
ok $? "-e miss at 4 threads: every miss at a kernel-model site ($(grep -c . "$tmp/rc.names") functions)"

bash tools/blockprof.sh -e bogus -- "$MMLAB" "${run[@]}" >"$tmp/e.txt" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "blocks, rmw, miss or stall" "$tmp/e.txt"
ok $? "-e bogus: exit 2 naming the valid values (exit $rc)"
MMLAB_VT_BLOCKPROF="$tmp/x.raw" MMLAB_VT_BLOCKPROF_EVENTS=bogus "$MMLAB" "${run[@]}" >/dev/null 2>"$tmp/e.txt"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e.txt")" -eq 1 ] && grep -q "valid: blocks, rmw, miss, stall$" "$tmp/e.txt"
ok $? "MMLAB_VT_BLOCKPROF_EVENTS=bogus: exit 2 with one line naming the valid values (exit $rc)"
bash tools/blockprof.sh -n 3 -- "$MMLAB" run free-contig --scale tiny --variant vanilla --repeat 1 >"$tmp/h.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "no block was counted" "$tmp/h.txt"
ok $? "a host run counts no block: exit 1 saying so (exit $rc)"
bash tools/blockprof.sh -n 0 -- "$MMLAB" "${run[@]}" >"$tmp/e.txt" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "1 or more" "$tmp/e.txt"
ok $? "-n 0: exit 2 naming the valid range (exit $rc)"
bash tools/blockprof.sh -n 3 >"$tmp/e.txt" 2>&1
[ $? -eq 2 ] && grep -q "usage" "$tmp/e.txt"
ok $? "no command: exit 2 with the usage"
bash tools/blockprof.sh -- "$MMLAB" run free-contig --machine m2-vm --iterations 0 >"$tmp/e.txt" 2>&1
[ $? -eq 2 ] && grep -q "iterations" "$tmp/e.txt"
ok $? "the command's own error comes through with its exit status"

done_testing
