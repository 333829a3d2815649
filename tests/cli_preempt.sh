#!/usr/bin/env bash
# --preempt (the simulated kernel's preemption model) and the kernel's cond_resched() points
# it prices (TAP).  In virtual time each voluntary preemption point costs the same number of
# basic blocks more than under preempt=full, so the difference of blocks_per_op between the
# two runs counts the points a call passes:
#
#   vfree() before the series       one a page              p:4 -> 4 points, p:16 -> 16
#   vfree() with v1 (batched)       one a break in the run  contiguous areas: none; fix_align's
#                                                           5 pages: some, fewer than 5
#   migrate-fork, a folio           one an rmap VMA visited (unmap and restore walks)
#                                   + one each in migrate_pages_batch()'s unmap and move loops
#   reclaim-large, one process      one a folio in shrink_folio_list() (each gets one
#                                   folio_referenced() call) + one a VMA of each file rmap
#                                   walk: folio_referenced() and try_to_unmap() visit the one VMA
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

usage_error_says '^mmlab: --preempt: .*bogus.*valid: none, voluntary or full$' \
	"--preempt bogus" run vmalloc --scale tiny --preempt bogus
usage_error_says '^mmlab: --preempt: .*valid: none, voluntary or full$' \
	"--preempt with an empty value" run vmalloc --scale tiny --preempt=
usage_error_says '^mmlab: --preempt: .*Full.*valid: none, voluntary or full$' \
	"--preempt is case-sensitive" run vmalloc --scale tiny --preempt Full

vm=(run vmalloc --machine graviton3-64c --tests fix_size_alloc_test,fix_align_alloc_test --pages 4,16 --loops 200
    --arch arm64 --variant vanilla-v1base,batched --repeat 1)
for p in default none voluntary full; do
	if [ $p = default ]; then
		"$MMLAB" "${vm[@]}" --json "$tmp/vm-$p.json" >/dev/null 2>&1
	else
		"$MMLAB" "${vm[@]}" --preempt $p --json "$tmp/vm-$p.json" >/dev/null 2>&1
	fi
	ok $? "vmalloc in virtual time with --preempt $p exits 0"
done
mf=(run migrate-fork --machine qemu-2node --scale tiny --repeat 1 --variant vanilla,mgt-entry)
for p in voluntary full; do
	"$MMLAB" "${mf[@]}" --preempt $p --json "$tmp/mf-$p.json" >/dev/null 2>&1
	ok $? "migrate-fork in virtual time with --preempt $p exits 0"
done

rl=(run reclaim-large --machine xeon-8369b-2s --scale tiny --contpte off --processes 1 --variant vanilla,batched --repeat 1)
for p in voluntary full; do
	"$MMLAB" "${rl[@]}" --preempt $p --json "$tmp/rl-$p.json" >/dev/null 2>&1
	ok $? "reclaim-large in virtual time with --preempt $p exits 0"
done

python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
def load(name):
    d = json.load(open(f"{tmp}/{name}.json"))
    return d["params"]["preempt"], {
        (tuple(sorted(r["point"].items())), r["variant"]): r["counters"] for r in d["results"]}
fails = []
def check(cond, what):
    print(("# ok: " if cond else "# FAIL: ") + what)
    if not cond:
        fails.append(what)

p_def, vdef = load("vm-default")
p_none, vnone = load("vm-none")
p_vol, vvol = load("vm-voluntary")
p_full, vfull = load("vm-full")
check((p_def, p_none, p_vol, p_full) == ("voluntary", "none", "voluntary", "full"),
      f"params.preempt echoes the model, voluntary by default: {(p_def, p_none, p_vol, p_full)}")
blocks = lambda runs, key: runs[key]["blocks_per_op"]
check(all(blocks(vdef, k) == blocks(vvol, k) and blocks(vnone, k) == blocks(vvol, k) for k in vvol),
      "the default, none and voluntary run the same blocks")
pt = lambda pages, huge: (("huge", huge), ("pages", pages), ("test", "fix_size_alloc_test"))
d4 = blocks(vvol, (pt(4, 0), "vanilla-v1base")) - blocks(vfull, (pt(4, 0), "vanilla-v1base"))
k = d4 / 4
check(k >= 1 and k == int(k), f"vfree before the series: 4 points a call at p:4, {k} blocks each")
for pages, huge in ((16, 0), (16, 1)):
    d = blocks(vvol, (pt(pages, huge), "vanilla-v1base")) - blocks(vfull, (pt(pages, huge), "vanilla-v1base"))
    check(abs(d - k * pages) < 1e-6, f"vfree before the series at p:{pages} h:{huge}: {d} blocks = {pages} points")
    d = blocks(vvol, (pt(pages, huge), "batched")) - blocks(vfull, (pt(pages, huge), "batched"))
    check(d == 0, f"v1's vfree of one contiguous run at p:{pages} h:{huge}: no point ({d} blocks)")
d = blocks(vvol, (pt(4, 0), "batched")) - blocks(vfull, (pt(4, 0), "batched"))
check(d == 0, f"v1's vfree at p:4: no point ({d} blocks)")

fa = (("huge", 0), ("pages", 1), ("test", "fix_align_alloc_test"))
dv = blocks(vvol, (fa, "vanilla-v1base")) - blocks(vfull, (fa, "vanilla-v1base"))
check(abs(dv - 5 * k) < 1e-6, f"vfree before the series, fix_align (5 pages): {dv} blocks = 5 points")
db = blocks(vvol, (fa, "batched")) - blocks(vfull, (fa, "batched"))
check(0 < db < dv and abs(db / k - round(db / k)) < 1e-6,
      f"v1's vfree, fix_align: {db} blocks, a whole number of points, more than none and fewer than a page each")

_, mvol = load("mf-voluntary")
_, mfull = load("mf-full")
for key in mvol:
    c = mvol[key]
    points = (c["unmap_vmas_visited"] + c["restore_vmas_visited"] + 2 * c["folios_moved"]) / c["folios_moved"]
    d = c["blocks_per_op"] - mfull[key]["blocks_per_op"]
    check(c["folios_moved"] > 0 and abs(d - k * points) < 1e-6,
          f"migrate-fork {key}: {d} blocks a folio = {points} points (VMAs visited + 2)")

# reclaim-large: blocks_per_op is a reclaimed folio's share (reclaimed_pages / 32 at order 5)
rv = {r["variant"]: r for r in json.load(open(f"{tmp}/rl-voluntary.json"))["results"]}
rf = {r["variant"]: r for r in json.load(open(f"{tmp}/rl-full.json"))["results"]}
for v, r in rv.items():
    c = r["counters"]
    ops = c["reclaimed_pages"] / 32
    d = (c["blocks_per_op"] - rf[v]["counters"]["blocks_per_op"]) * ops
    points = 2 * c["referenced_calls"] + c["unmap_calls"]
    check(c["referenced_calls"] > 0 and c["unmap_calls"] > 0 and abs(d - k * points) < 1e-6 * d,
          f"reclaim-large {v}: {d:.0f} blocks = {points} points (a folio in shrink_folio_list, "
          f"a VMA of each of {c['referenced_calls']} folio_referenced() and {c['unmap_calls']} "
          f"try_to_unmap() walks)")
sys.exit(1 if fails else 0)
PY
ok $? "cond_resched() points priced once each, where the kernel has them"

done_testing
