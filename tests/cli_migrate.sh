#!/usr/bin/env bash
# Command-line tests of `mmlab run migrate-fork` against ../shared/CONTRACT.md (TAP).
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

"$MMLAB" list >"$tmp/list"
grep -q '^migrate-fork .*003_2593601936e87257.txt' "$tmp/list"
ok $? "list names migrate-fork and its seed"

"$MMLAB" run migrate-fork --help >"$tmp/help" 2>&1
ok $? "run migrate-fork --help exits 0"
for opt in size children cow folio-order nodes move-all events variant scale repeat seed json mem; do
	grep -q -- "--$opt" "$tmp/help"
	ok $? "--help lists --$opt"
done
for v in vanilla mgt-entry mgt-counter; do
	grep -q "^  $v " "$tmp/help"
	ok $? "--help lists variant $v"
done

usage_error "one node" run migrate-fork --nodes 1
grep -q -- '--nodes.*2.*8' "$tmp/err"
ok $? "the --nodes error names the valid range 2..8"
usage_error "nine nodes" run migrate-fork --nodes 9
usage_error "nodes not a number" run migrate-fork --nodes two
usage_error "cow above 1" run migrate-fork --cow 1.5
usage_error "negative children" run migrate-fork --children -1
usage_error "folio order above 9" run migrate-fork --folio-order 10
usage_error "size not whole folios" run migrate-fork --size 1M --folio-order 9 --children 1 --mem 64M
usage_error "children beyond the simulated memory" run migrate-fork --children 1000 --mem 256M
grep -q -- '--children 1000.*--mem 256M' "$tmp/err"
ok $? "the memory error names --children and --mem"
usage_error "unknown move-all word" run migrate-fork --move-all maybe

"$MMLAB" run migrate-fork --scale tiny --children 0,4 --cow 0.5 --move-all on --folio-order 2 \
	--repeat 2 --json "$tmp/mf.json" >"$tmp/mf.txt" 2>"$tmp/mf.err"
ok $? "run migrate-fork --scale tiny exits 0 ($(tail -n 1 "$tmp/mf.err" | head -c 200))"
grep -q '^#children *| *vanilla *| *mgt-entry *| *boost (%) *| *mgt-counter *| *boost (%)' "$tmp/mf.txt"
ok $? "the table has a column per variant with its boost"
python3 - "$tmp/mf.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["experiment"] == "migrate-fork" and d["seed"] == "003_2593601936e87257.txt"
assert d["checks"] == {"invariants": "passed", "data": "passed"}, d["checks"]
p = d["params"]
assert p["nodes"] == 2 and p["cow"] == 0.5 and p["children"] == [0, 4] and p["move-all"] == "on", p
cells = {(r["variant"], r["point"]["children"]): r for r in d["results"]}
variants = ("vanilla", "mgt-entry", "mgt-counter")
assert set(cells) == {(v, c) for v in variants for c in (0, 4)}, cells.keys()
names = ("unmap_vmas_visited", "restore_vmas_visited", "ptl_taken", "pt_walks",
         "migration_entries_made", "migration_entries_removed", "folios_moved", "folios_failed",
         "restore_usec", "move_usec")
pages = (1 << 20) // 4096
for (v, c), r in cells.items():
    k = r["counters"]
    for name in names:
        assert name in k, (v, name)
    assert k["folios_moved"] == pages // 4 and k["folios_failed"] == 0, (v, c, k)
    # every entry made is restored, whoever shares the page
    assert k["migration_entries_made"] == k["migration_entries_removed"] > 0, (v, c, k)
# half the buffer is shared with the 4 children: 5 entries per shared page, 1 per copied page
assert cells[("vanilla", 4)]["counters"]["migration_entries_made"] == pages // 2 * 5 + pages // 2
van, cnt = cells[("vanilla", 4)]["counters"], cells[("mgt-counter", 4)]["counters"]
# vanilla visits all 5 VMAs per folio; the counter stops early on the copied half
assert van["restore_vmas_visited"] == 5 * (pages // 4), van
assert cnt["restore_vmas_visited"] < van["restore_vmas_visited"], (cnt, van)
# mgt-entry counts small folios only: at order 2 it walks like vanilla
assert cells[("mgt-entry", 4)]["counters"]["restore_vmas_visited"] == van["restore_vmas_visited"]
PY
ok $? "JSON: params, every counter, entries made = removed, walks per design"

"$MMLAB" run migrate-fork --scale tiny --children 20 --repeat 1 --json "$tmp/mf2.json" >"$tmp/mf2.txt" 2>"$tmp/mf2.err"
ok $? "run migrate-fork --scale tiny --children 20 (full COW, order 0) exits 0"
python3 - "$tmp/mf2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = {r["variant"]: r["counters"] for r in d["results"]}
pages = (1 << 20) // 4096
assert c["vanilla"]["restore_vmas_visited"] == 21 * pages, c["vanilla"]
for v in ("mgt-entry", "mgt-counter"):
    assert c[v]["restore_vmas_visited"] == pages, (v, c[v])
for v in c:
    assert c[v]["unmap_vmas_visited"] == pages and c[v]["folios_moved"] == pages, (v, c[v])
PY
ok $? "full COW: vanilla restores through all 21 VMAs per folio, both designs through 1"

done_testing
