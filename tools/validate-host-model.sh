#!/usr/bin/env bash
# The virtual-time model of this host (mmlab calibrate) against this host, side by side:
# each single-threaded experiment at --scale default on the host (3 samples, the host
# alone), then on --machine host-model's file (virtual time), then a table of the medians
# and the model's error (docs/VALIDATION.md).  reclaim-large runs without TLB costs on both
# sides: on the host a TLBI is a busy loop of the lab's own, where virtual time lets it
# complete beside the code as a TLBI does (docs/design/virtual-time.md, "Work handed off").
#
#   tools/validate-host-model.sh [OUTDIR]       (default: results/validate-<date>)
set -euo pipefail
cd "$(dirname "$0")/.."
M=${MMLAB:-build/mmlab}
out=${1:-results/validate-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
"$M" calibrate >"$out/host-model.conf"
runs=("free-contig --variant vanilla,batched"
      "vmalloc --tests fix_size_alloc_test --pages 512 --variant vanilla,batched"
      "reclaim-large --tlb-flush-ns 0 --tlbi-ns 0"
      "migrate-fork --children 100 --variant vanilla,mgt-entry")
for r in "${runs[@]}"; do
	name=${r%% *}
	# shellcheck disable=SC2086
	"$M" run $r --repeat 3 --json "$out/$name-host.json" >/dev/null
done
for r in "${runs[@]}"; do
	name=${r%% *}
	# shellcheck disable=SC2086
	"$M" run $r --machine "$out/host-model.conf" --repeat 1 --json "$out/$name-vt.json" >/dev/null
done
python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
print("| experiment, point, variant | host (us) | host-model (us) | error |")
print("|---|---|---|---|")
for name in ("free-contig", "vmalloc", "reclaim-large", "migrate-fork"):
    h, v = (json.load(open(os.path.join(out, f"{name}-{k}.json"))) for k in ("host", "vt"))
    key = lambda r: (r["variant"], json.dumps(r["point"], sort_keys=True), r["metric"])
    hv = {key(r): r["median"] for r in h["results"]}
    for r in v["results"]:
        k = key(r)
        if k in hv and r["metric"] == "usec":
            print(f"| {name} {k[1]} {k[0]} | {hv[k]:,.0f} | {r['median']:,.0f} | {100 * (r['median'] / hv[k] - 1):+.1f}% |")
PY
