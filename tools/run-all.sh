#!/usr/bin/env bash
# `make run`: every experiment at --scale default, all variants, then
# refcount-scale on seed 000's two machines, vmalloc and reclaim-large on seeds 001 and
# 004's in virtual time, into
# results/<run-id>/ (run id: UTC time, YYYYmmdd-HHMMSS):
#   NAME.json   mmlab run --json (NAME@MACHINE.json: on a simulated machine)
#   NAME.txt    the table printed on stdout
#   report.md   and NAME.png, by tools/report.py
# and ends with the `mmlab compare` command against the previous run, if any.
# Every experiment runs even if one fails; the exit status is non-zero if
# any experiment or the report failed.
#
# The run is written under results/.<run-id>.partial/ and renamed to
# results/<run-id>/ when it is complete, so a results/<run-id>/ directory is
# always a whole run; an interrupted one stays in its .partial directory,
# which `mmlab compare` suggestions and reports do not pick up.
# A run that names its variants (--variant LIST below) runs those of LIST that
# this mmlab has built (`mmlab variants NAME`), so that a build of some designs
# only (make DESIGNS=vanilla,foo) runs what it has; it says what it left out.
# Environment: MMLAB, PYTHON (the binary and interpreter), MMLAB_RESULTS (the
# results directory, default results).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2

MMLAB=${MMLAB:-build/mmlab}
PYTHON=${PYTHON:-build/venv/bin/python}
RESULTS=${MMLAB_RESULTS:-results}

id=$(date -u +%Y%m%d-%H%M%S)
# two runs in the same second: wait for the next one rather than mix them
while ! mkdir -p "$RESULTS" || [ -e "$RESULTS/$id" ] || ! mkdir "$RESULTS/.$id.partial" 2>/dev/null; do
	sleep 1
	id=$(date -u +%Y%m%d-%H%M%S)
done
final=$RESULTS/$id
dir=$RESULTS/.$id.partial
trap 'echo "run-all: interrupted; the partial run is in $dir/" >&2; exit 130' INT TERM HUP

if ! names=$("$MMLAB" list | awk '{ print $1 }') || [ -z "$names" ]; then
	echo "run-all: '$MMLAB list' gave no experiments" >&2
	exit 1
fi

# The variants of experiment $1 that $MMLAB has built, out of the comma-separated
# list $2, comma-separated in $2's order (empty if none); fails if mmlab cannot say.
built_variants() {
	local have v out=()
	have=$("$MMLAB" variants "$1") || return 1
	IFS=, read -ra want <<<"$2"
	for v in "${want[@]}"; do
		grep -qxF -- "$v" <<<"$have" && out+=("$v")
	done
	(IFS=,; echo "${out[*]}")
}

failed=()
for name in $names; do
	echo "=== $name ==="
	"$MMLAB" run "$name" --scale default --json "$dir/$name.json" | tee "$dir/$name.txt"
	status=${PIPESTATUS[0]}
	[ "$status" -eq 0 ] || failed+=("$name (exit $status)")
	echo
done

# Seed 000's two machines in virtual time, at the seed's thread counts (seconds, not
# minutes): the model's predictions beside the seed's own table (docs/design/seed-000-refcount.md).
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

# Seeds 001-004 on the machines their series ran on, in virtual time: the memory
# hierarchy's predictions (docs/design/memory-hierarchy.md), each beside the seed's own
# numbers where the preset carries them (seed.* lines).  free-contig and vmalloc are sized
# for their machines' CPUs (--cpus: the pcp lists, vmstat thresholds, lazy_max_pages).
# free-contig runs a tenth of the seed's 100000 iterations (its time a page is steady well
# before) on the M2 VM's 8 vCPUs (assumed in the preset); vmalloc runs the
# fix_size_alloc_test column of the seed's vfree table on the machine that table came from
# (an m7g.metal: graviton3-64c, its 64 CPUs sizing the pcp lists and the lazy purge), v1
# against its base as the seed compares them; migrate-fork's curve
# ends at the RFC's 1000 children, which takes minutes: 1000 COW copies of 5 MiB go
# through the simulated caches.  Yitian 710's Neoverse N2 cores implement Armv9.0, which has
# range TLBIs (FEAT_TLBIRANGE, mandatory from Armv8.4: QEMU commit 84940ed82552, "target/arm:
# Add support for FEAT_TLBIRANGE"; arm64 uses them when the CPU has them).  readseq's device
# is a datasheet's: Intel's DC P4500 NVMe, 10 us sequential read latency and 3.2 GB/s
# sequential read (machines/SOURCES.md, "The readseq device"); seed 002 names no device.
# Its readers ask for readahead as db_bench's RocksDB iterator does (--readahead rocksdb,
# the default: readahead(2) from the third sequential record, the window doubling to 256 KiB).
st_runs=("free-contig m2-vm --iterations 10000 --cpus 8"
	 "vmalloc graviton3-64c --tests fix_size_alloc_test --arch arm64 --cpus 64 --variant vanilla-v1base,batched"
	 "readseq icelake-32v --threads 32 --file-size 4M --mem 1G --io async --device-latency 10 --device-mbps 3200"
	 "migrate-fork qemu-2node --children 1,10,100,1000 --variant vanilla,mgt-entry"
	 "reclaim-large yitian710-32c --contpte on --tlbi-range on"
	 "reclaim-large xeon-8369b-2s --contpte off")
for st in "${st_runs[@]}"; do
	read -r name machine args <<<"$st"
	echo "=== $name on $machine (virtual time) ==="
	read -ra argv <<<"$args"
	for i in "${!argv[@]}"; do
		[ "${argv[$i]}" = --variant ] || continue
		want=${argv[$((i + 1))]}
		if ! got=$(built_variants "$name" "$want"); then
			failed+=("$name --machine $machine ('$MMLAB variants $name' failed)")
			continue 2
		fi
		if [ -z "$got" ]; then
			echo "run-all: none of $want is built into $MMLAB; $name on $machine skipped"
			echo
			continue 2
		fi
		[ "$got" = "$want" ] ||
			echo "run-all: $name on $machine runs $got of $want (the rest are not built into $MMLAB)"
		argv[i + 1]=$got
	done
	"$MMLAB" run "$name" --machine "$machine" "${argv[@]}" \
		--json "$dir/$name@$machine.json" | tee "$dir/$name@$machine.txt"
	status=${PIPESTATUS[0]}
	[ "$status" -eq 0 ] || failed+=("$name --machine $machine (exit $status)")
	echo
done

if ! "$PYTHON" tools/report.py "$dir"; then
	failed+=("tools/report.py")
fi

trap - INT TERM HUP
if ! mv -T "$dir" "$final"; then
	echo "run-all: cannot rename $dir to $final; the run is in $dir/" >&2
	exit 1
fi
dir=$final
echo "results: $dir/ (report: $dir/report.md)"
# the newest earlier run (run ids sort by time) with a result of its own
prev=
for d in "$RESULTS"/*/; do
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
