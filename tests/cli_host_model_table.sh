#!/usr/bin/env bash
# tools/host_model_table.py, the table of tools/validate-host-model.sh (TAP), on runs made up
# here: host medians of 100 us, the model's around them.
#   cell      host  model  error    within 25%
#   v1        100   125    +25.0%   yes (at the bound)
#   v2        100   125.1  +25.1%   no  (above)
#   v3        100   124.9  +24.9%   yes (below)
#   v4        100   75     -25.0%   yes
#   v5        100   74.9   -25.1%   no
#   v6        100   110    +10.0%   yes
#   only-vt   -     50     -        (the host has no such cell: left out)
#   p99 of v1 100   500    -        (not a metric compared: left out)
# within 25%: 4 of 6; mean absolute error (25 + 25.1 + 24.9 + 25 + 25.1 + 10) / 6 = 22.5%
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
def res(v, m, metric="usec"):
    return {"variant": v, "point": {"order": 9}, "metric": metric, "unit": "usec", "median": m}
model = {"v1": 125, "v2": 125.1, "v3": 124.9, "v4": 75, "v5": 74.9, "v6": 110}
host = [res(v, 100) for v in model] + [res("v1", 100, "lat_p99_us")]
vt = [res(v, m) for v, m in model.items()] + [res("only-vt", 50), res("v1", 500, "lat_p99_us")]
json.dump({"results": host}, open(f"{t}/fc-host.json", "w"))
json.dump({"results": vt}, open(f"{t}/fc-vt.json", "w"))
json.dump({"results": [res("v1", 100, "lat_p99_us")]}, open(f"{t}/none-host.json", "w"))
json.dump({"results": [res("v1", 90, "lat_p99_us")]}, open(f"{t}/none-vt.json", "w"))
PY
ok $? "made-up runs written"

python3 tools/host_model_table.py "$tmp" fc >"$tmp/out" 2>"$tmp/err"
ok $? "the table exits 0"
[ "$(grep -c '^| fc ' "$tmp/out")" -eq 6 ]
ok $? "six rows: the cell only the model has and the P99s are left out ($(grep -c '^| fc ' "$tmp/out") rows)"
for want in 'v1 | 100 us | 125 | +25.0%' 'v2 | 100 us | 125 | +25.1%' 'v3 | 100 us | 125 | +24.9%' \
	    'v4 | 100 us | 75.00 | -25.0%' 'v5 | 100 us | 74.90 | -25.1%' 'v6 | 100 us | 110 | +10.0%'; do
	grep -qF "$want" "$tmp/out"
	ok $? "row '$want'"
done
grep -qx 'within 25% either way: 4 of 6 cells; mean absolute error 22.5%' "$tmp/out"
ok $? "25.0% and 24.9% are within, 25.1% is not: $(tail -n 1 "$tmp/out")"

python3 tools/host_model_table.py "$tmp" none >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'no cell both runs have' "$tmp/err"
ok $? "no comparable cell: exit 2 saying so ($(head -c 100 "$tmp/err"))"
python3 tools/host_model_table.py "$tmp" missing >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'missing-host.json' "$tmp/err"
ok $? "a missing run: exit 2 with one line naming it ($(head -c 120 "$tmp/err"))"
# Inputs are bounded as the runner's are: a regular file (not a directory or a FIFO) of at
# most 64 MiB. The same runs
# padded with blanks (valid JSON) to 64 MiB exactly are read; one byte more is refused.
python3 - "$tmp" <<'PY'
import shutil, sys
t = sys.argv[1]
for name, size in (("at", 64 << 20), ("over", (64 << 20) + 1)):
    shutil.copy(f"{t}/fc-host.json", f"{t}/{name}-host.json")
    with open(f"{t}/fc-vt.json", "rb") as f:
        data = f.read()
    with open(f"{t}/{name}-vt.json", "wb") as f:
        f.write(data + b" " * (size - len(data)))
PY
python3 tools/host_model_table.py "$tmp" at >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && grep -q '4 of 6 cells' "$tmp/out"
ok $? "a run of exactly 64 MiB is read"
python3 tools/host_model_table.py "$tmp" over >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'over-vt.json: larger than 64 MiB' "$tmp/err"
ok $? "a run of 64 MiB and one byte: exit 2 with one line ($(head -c 120 "$tmp/err"))"
mkdir "$tmp/dir-host.json"
python3 tools/host_model_table.py "$tmp" dir >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'dir-host.json: not a regular file' "$tmp/err"
ok $? "a directory for a run: exit 2 with one line naming it ($(head -c 120 "$tmp/err"))"
mkfifo "$tmp/fifo-host.json"
timeout 10 python3 tools/host_model_table.py "$tmp" fifo >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'fifo-host.json: not a regular file' "$tmp/err"
ok $? "a FIFO for a run: exit 2 at once, not a wait for a writer ($(head -c 120 "$tmp/err"))"
python3 tools/host_model_table.py "$tmp" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q '^usage' "$tmp/err"
ok $? "no run named: exit 2 with the usage"
done_testing
