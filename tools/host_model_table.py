#!/usr/bin/env python3
"""host-model against the host: the table of tools/validate-host-model.sh.

    tools/host_model_table.py OUTDIR NAME...

For each NAME, OUTDIR/NAME-host.json (the host's run) and OUTDIR/NAME-vt.json
(the same command on --machine host-model): one row per cell both have, of
the time (usec), the throughput (ops_per_sec) or the median latency
(lat_p50_us), with the model's error against the host's median.  Then one
line: how many cells are within 25% either way (an error of exactly 25% is
within) and their mean absolute error.  Exit 2 when a file is missing, is
not a regular file of at most 64 MiB (the runner's own bound on its inputs,
LAB_MAX_INPUT), or holds no comparable cell.
"""
import json
import os
import stat
import sys

WITHIN = 25.0
MAX_INPUT = 64 << 20
METRICS = ("usec", "ops_per_sec", "lat_p50_us")


def cells(out, name):
    """(row label, host median, model median, unit) for each cell both runs have."""
    runs = []
    for kind in ("host", "vt"):
        path = os.path.join(out, f"{name}-{kind}.json")
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):   # a FIFO would block open()
                raise ValueError("not a regular file")
            with open(path, "rb") as f:
                data = f.read(MAX_INPUT + 1)
            if len(data) > MAX_INPUT:
                raise ValueError("larger than 64 MiB; valid: at most 64 MiB")
            runs.append(json.loads(data))
        except (OSError, ValueError) as e:
            raise SystemExit(f"host_model_table: {path}: {e}") from None
    host, vt = runs

    def key(r):
        return (r["variant"], json.dumps(r["point"], sort_keys=True), r["metric"])

    medians = {key(r): r["median"] for r in host["results"]}
    for r in vt["results"]:
        k = key(r)
        if k in medians and r["metric"] in METRICS and medians[k]:
            unit = "us" if r["metric"] == "usec" else f"{r['unit']} ({r['metric']})"
            yield f"{name} {k[1]} {k[0]}", medians[k], r["median"], unit


def fmt(x):
    return f"{x:,.2f}" if x < 100 else f"{x:,.0f}"


def main(argv):
    if len(argv) < 3:
        print("usage: host_model_table.py OUTDIR NAME...", file=sys.stderr)
        return 2
    out, names = argv[1], argv[2:]
    errors = []
    print("| experiment, point, variant | host (median) | host-model | error |")
    print("|---|---|---|---|")
    for name in names:
        for label, host, model, unit in cells(out, name):
            err = 100 * (model / host - 1)
            errors.append(err)
            print(f"| {label} | {fmt(host)} {unit} | {fmt(model)} | {err:+.1f}% |")
    if not errors:
        print("host_model_table: no cell both runs have", file=sys.stderr)
        return 2
    within = sum(abs(e) <= WITHIN for e in errors)
    mae = sum(abs(e) for e in errors) / len(errors)
    print(f"\nwithin {WITHIN:g}% either way: {within} of {len(errors)} cells; "
          f"mean absolute error {mae:.1f}%")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            sys.exit(2)
        raise
