#!/usr/bin/env bash
# `make run`'s script, tools/run-all.sh, with a stub mmlab (TAP): a results/<run-id>/
# directory appears only whole (the run is written under results/.<run-id>.partial/ and
# renamed), an interrupted run leaves no results/<run-id>/, tools/report.py writes its
# files whole under the run id, and a run that names its variants runs only those the
# mmlab has built (`mmlab variants NAME`: make DESIGNS=... builds some designs only).
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

# The stub: two experiments; `run` logs its arguments to STUB_LOG (if set) and writes its
# --json, the second after STUB_SLEEP seconds; `variants` prints STUB_VARIANTS (words),
# by default the variants every run of run-all.sh names.
cat >"$tmp/mmlab" <<'SH'
#!/usr/bin/env bash
case $1 in
list)	printf 'one  -  first\ntwo  -  second\n' ;;
variants)
	[ $# -eq 2 ] || exit 2
	printf '%s\n' ${STUB_VARIANTS:-vanilla vanilla-v1base batched bulk mgt-entry} ;;
run)	[ -n "${STUB_LOG:-}" ] && echo "$*" >>"$STUB_LOG"
	json=
	while [ $# -gt 0 ]; do [ "$1" = --json ] && json=$2; shift; done
	[[ $json == */two.json ]] && sleep "${STUB_SLEEP:-0}"
	echo '{"experiment": "stub"}' >"$json"
	echo "table" ;;
*)	exit 2 ;;
esac
SH
chmod +x "$tmp/mmlab"
export MMLAB=$tmp/mmlab PYTHON=true MMLAB_RESULTS=$tmp/results

tools/run-all.sh >"$tmp/run1.out" 2>&1
ok $? "a run with the stub exits 0"
runs=("$tmp"/results/*/)
[ ${#runs[@]} -eq 1 ] && [ -s "${runs[0]}one.json" ] && [ -s "${runs[0]}two.json" ] &&
	[ -z "$(find "$tmp/results" -maxdepth 1 -name '.*')" ]
ok $? "one results/<run-id>/ with every result, no .partial directory left"
grep -q "^results: ${runs[0]%/}/ " "$tmp/run1.out"
ok $? "it names the renamed directory ($(grep '^results:' "$tmp/run1.out"))"

# interrupted during the second experiment: no results/<run-id>/ for it
STUB_SLEEP=4 timeout -s TERM 2 tools/run-all.sh >"$tmp/run2.out" 2>&1
rc=$?
runs=("$tmp"/results/*/)
partial=$(find "$tmp/results" -maxdepth 1 -name '.*.partial')
[ $rc -ne 0 ] && [ ${#runs[@]} -eq 1 ] && [ -n "$partial" ] && [ -s "$partial/one.json" ]
ok $? "an interrupted run (exit $rc) leaves only its .partial directory, no results/<run-id>/"
grep -q "interrupted; the partial run is in .*\.partial/" "$tmp/run2.out"
ok $? "and says where the partial run is"

tools/run-all.sh >"$tmp/run3.out" 2>&1
runs=("$tmp"/results/*/)
[ ${#runs[@]} -eq 2 ] &&
	grep -q "^compare with the previous run: $MMLAB compare ${runs[0]%/} ${runs[1]%/}$" "$tmp/run3.out"
ok $? "the next run is compared with the last whole one, not the partial one"

# tools/report.py (with a stand-in matplotlib when it is not installed): report.md whole, under
# the run id, also when written in the .partial directory
mkdir -p "$tmp/py/matplotlib"
echo 'def use(*a, **k): pass' >"$tmp/py/matplotlib/__init__.py"
: >"$tmp/py/matplotlib/pyplot.py"
printf 'EngFormatter = MaxNLocator = None\n' >"$tmp/py/matplotlib/ticker.py"
py=python3
python3 -c 'import matplotlib' 2>/dev/null || py="env PYTHONPATH=$tmp/py python3"
mkdir "$tmp/results/.20990101-000000.partial"
echo 'old' >"$tmp/results/.20990101-000000.partial/report.md"
$py tools/report.py "$tmp/results/.20990101-000000.partial" >/dev/null 2>&1 &&
	[ "$(head -1 "$tmp/results/.20990101-000000.partial/report.md")" = "# mmlab results: 20990101-000000" ] &&
	[ "$(ls -A "$tmp/results/.20990101-000000.partial")" = report.md ]
ok $? "report.py replaces report.md whole, titled with the run id, no temporary left"

# Variant lists: every variant built, the lists go through unchanged
STUB_LOG=$tmp/all.log tools/run-all.sh >"$tmp/run4.out" 2>&1
ok $? "with every variant built the run exits 0"
grep -q -- "^run vmalloc --machine graviton3-64c .*--variant vanilla-v1base,batched " "$tmp/all.log" &&
	grep -q -- "^run migrate-fork --machine qemu-2node .*--variant vanilla,mgt-entry " "$tmp/all.log" &&
	! grep -q "not built into" "$tmp/run4.out"
ok $? "and vmalloc and migrate-fork run their whole lists"

# make DESIGNS=vanilla,vanilla-v1base,contig-bulk: only those three are built
STUB_VARIANTS="vanilla vanilla-v1base bulk" STUB_LOG=$tmp/some.log tools/run-all.sh >"$tmp/run5.out" 2>&1
ok $? "with some designs built the run exits 0 ($(tail -1 "$tmp/run5.out"))"
grep -q -- "^run vmalloc --machine graviton3-64c .*--variant vanilla-v1base " "$tmp/some.log" &&
	grep -q -- "^run migrate-fork --machine qemu-2node .*--variant vanilla " "$tmp/some.log"
ok $? "vmalloc runs vanilla-v1base and migrate-fork vanilla, the built ones of their lists"
grep -q "^run-all: vmalloc on graviton3-64c runs vanilla-v1base of vanilla-v1base,batched (the rest are not built into " "$tmp/run5.out"
ok $? "and says what it left out"
[ "$(grep -c '^run ' "$tmp/some.log")" -eq "$(grep -c '^run ' "$tmp/all.log")" ]
ok $? "every run still runs ($(grep -c '^run ' "$tmp/some.log") of them)"

# none of a list built: that run is skipped, the others go on
STUB_VARIANTS="bulk" STUB_LOG=$tmp/none.log tools/run-all.sh >"$tmp/run6.out" 2>&1
ok $? "a run none of whose variants is built is skipped, exit 0"
! grep -q -- "^run migrate-fork " "$tmp/none.log" &&
	grep -q "^run-all: none of vanilla,mgt-entry is built into .*; migrate-fork on qemu-2node skipped" "$tmp/run6.out"
ok $? "and it says so"

# an mmlab that cannot list its variants: that run counts as failed
sed -i 's/^variants)$/variants) exit 2 ;;\nnever)/' "$tmp/mmlab"
tools/run-all.sh >"$tmp/run7.out" 2>&1
[ $? -ne 0 ] && grep -q "failed: .*vmalloc --machine graviton3-64c ('.* variants vmalloc' failed)" "$tmp/run7.out"
ok $? "when '$MMLAB variants' fails the run fails and names it"

done_testing
