#!/usr/bin/env bash
# `make run`'s script, tools/run-all.sh, with a stub mmlab (TAP): a results/<run-id>/
# directory appears only whole (the run is written under results/.<run-id>.partial/ and
# renamed), an interrupted run leaves no results/<run-id>/, and tools/report.py writes its
# files whole under the run id.
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

# The stub: two experiments; `run` writes its --json, the second after STUB_SLEEP seconds.
cat >"$tmp/mmlab" <<'SH'
#!/usr/bin/env bash
case $1 in
list)	printf 'one  -  first\ntwo  -  second\n' ;;
run)	json=
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

done_testing
