#!/usr/bin/env bash
# `make run`: every experiment at --scale default, all variants, then
# refcount-scale on seed 000's two machines in virtual time, into
# results/<run-id>/ (run id: UTC time, YYYYmmdd-HHMMSS):
#   NAME.json   mmlab run --json (NAME@MACHINE.json: on a simulated machine)
#   NAME.txt    the table printed on stdout
#   report.md   and NAME.png, by tools/report.py
# and ends with the `mmlab compare` command against the previous run, if any.
# Every experiment runs even if one fails; the exit status is non-zero if
# any experiment or the report failed.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2

MMLAB=${MMLAB:-build/mmlab}
PYTHON=${PYTHON:-build/venv/bin/python}

id=$(date -u +%Y%m%d-%H%M%S)
dir=results/$id
# two runs in the same second: wait for the next one rather than mix them
while ! mkdir -p results || ! mkdir "$dir" 2>/dev/null; do
	sleep 1
	id=$(date -u +%Y%m%d-%H%M%S)
	dir=results/$id
done

if ! names=$("$MMLAB" list | awk '{ print $1 }') || [ -z "$names" ]; then
	echo "run-all: '$MMLAB list' gave no experiments" >&2
	exit 1
fi

failed=()
for name in $names; do
	echo "=== $name ==="
	"$MMLAB" run "$name" --scale default --json "$dir/$name.json" | tee "$dir/$name.txt"
	status=${PIPESTATUS[0]}
	[ "$status" -eq 0 ] || failed+=("$name (exit $status)")
	echo
done

# Seed 000's two machines in virtual time, at the seed's thread counts (seconds, not
# minutes): the model's predictions beside the seed's own table (docs/DESIGN.md).
vt_runs=("e5-2690v3-2s 1,2,5,10,12,14,16,18,20,24"
	 "epyc-9654-2s 1,5,10,20,49,97,105,136,168,193,289,353")
for vt in "${vt_runs[@]}"; do
	read -r machine threads <<<"$vt"
	echo "=== refcount-scale on $machine (virtual time) ==="
	"$MMLAB" run refcount-scale --machine "$machine" --threads "$threads" \
		--json "$dir/refcount-scale@$machine.json" | tee "$dir/refcount-scale@$machine.txt"
	status=${PIPESTATUS[0]}
	[ "$status" -eq 0 ] || failed+=("refcount-scale --machine $machine (exit $status)")
	echo
done

if ! "$PYTHON" tools/report.py "$dir"; then
	failed+=("tools/report.py")
fi

echo "results: $dir/ (report: $dir/report.md)"
# the newest earlier run (run ids sort by time) with a result of its own
prev=
for d in results/*/; do
	d=${d%/}
	[ "$d" \< "$dir" ] && compgen -G "$d/*.json" >/dev/null && prev=$d
done
if [ -n "$prev" ]; then
	echo "compare with the previous run: $MMLAB compare $prev $dir"
else
	echo "no earlier run under results/ to compare with"
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "run-all: failed: ${failed[*]}" >&2
	exit 1
fi
