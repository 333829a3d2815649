#!/usr/bin/env bash
# The virtual-time model of this host (mmlab calibrate) against this host, side by side:
# each single-threaded experiment at --scale default on the host (3 samples, the host
# alone), then on --machine host-model's file (virtual time), then a table of the medians
# and the model's error, and how many cells are within 25% and their mean absolute error
# (tools/host_model_table.py; docs/VALIDATION.md).  reclaim-large runs without TLB costs on both
# sides: on the host a TLBI is a busy loop of the lab's own, where virtual time lets it
# complete beside the code as a TLBI does (docs/design/virtual-time.md, "Work handed off").
#
#   tools/validate-host-model.sh [OUTDIR]       (default: results/validate-<date>)
#
# Environment:
#   THREADS=LIST  also refcount-scale (vanilla, frozen-bit) at these thread counts, and
#                 readseq at them (4 MiB files, 10 us device): the coherence model against
#                 the host's cores.  The rest of pread(2) (--syscall-ns) is the host's own
#                 figure (host-pread at 1 thread minus the model's read, measured on the host
#                 run) given to both sides alike, so the 1-thread point is a fit by design and
#                 the others are predictions.
#   JOBS=N        run the virtual-time side N commands at a time (default 1); virtual time
#                 does not depend on the host's load, only the wall time does.
set -euo pipefail
cd "$(dirname "$0")/.."
M=${MMLAB:-build/mmlab}
out=${1:-results/validate-$(date +%Y%m%d-%H%M%S)}
threads=${THREADS:-}
jobs=${JOBS:-1}
case $jobs in
''|*[!0-9]*|0)
	echo "validate-host-model: JOBS=$jobs: valid: an integer of at least 1" >&2
	exit 2;;
esac
case $threads in
*[!0-9,]*)
	echo "validate-host-model: THREADS=$threads: valid: comma-separated integers" >&2
	exit 2;;
esac
mkdir -p "$out"
"$M" calibrate >"$out/host-model.conf"
runs=("free-contig --variant vanilla,batched"
      "vmalloc --tests fix_size_alloc_test --pages 512 --variant vanilla,batched"
      "reclaim-large --tlb-flush-ns 0 --tlbi-ns 0"
      "migrate-fork --children 100 --variant vanilla,mgt-entry")
[ -n "$threads" ] &&
	runs+=("refcount-scale --threads $threads --variant vanilla,frozen-bit"
	       "readseq --threads $threads --file-size 4M --mem 1G --io async --device-latency 10")
for r in "${runs[@]}"; do
	name=${r%% *}
	echo "host: $name" >&2
	# shellcheck disable=SC2086
	"$M" run $r --repeat 3 --json "$out/$name-host.json" >"$out/$name-host.txt"
done
# refcount-scale's rest of pread(2): the host run's auto figure, the same on both sides
vt_extra=()
if [ -n "$threads" ]; then
	sys=$(python3 - "$out/refcount-scale-host.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(round(next(r["counters"]["syscall_ns"] for r in d["results"] if r["variant"] == "vanilla")))
PY
)
	vt_extra=(--syscall-ns "$sys")
	echo "refcount-scale: --syscall-ns $sys on the model's side (the host run's auto figure)" >&2
fi
pids=()
for r in "${runs[@]}"; do
	name=${r%% *}
	extra=()
	[ "$name" = refcount-scale ] && extra=("${vt_extra[@]}")
	echo "model: $name" >&2
	# shellcheck disable=SC2086
	"$M" run $r "${extra[@]}" --machine "$out/host-model.conf" --repeat 1 \
		--json "$out/$name-vt.json" >"$out/$name-vt.txt" &
	pids+=($!)
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
done
# each run's own status: a failed one stops the script here
for p in "${pids[@]}"; do wait "$p"; done
names=()
for r in "${runs[@]}"; do names+=("${r%% *}"); done
python3 tools/host_model_table.py "$out" "${names[@]}"
# what calibrate found, so that tables from different hosts can be read side by side
echo
echo "host-model ($out/host-model.conf):"
grep -E '^(cost\.(block|rmw|mem)|l2\.lat|l3\.(size|lat)|rmw\.(overlap|drain)|pf\.(degree|span|stride)|sched\.wake|core\.mispredict|mem\.(first_touch|backing)) ' \
	"$out/host-model.conf" | awk -F'|' '{ sub(/ +$/, "", $1); print "  " $1 }'

