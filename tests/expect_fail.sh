#!/usr/bin/env bash
# `make expect-fail DESIGN=...` (tools/expect-fail.sh): a design's tests,
# expecting the design, against vanilla's kernel (TAP).  It needs vanilla's
# dbg and chk libraries only, so it runs with any DESIGNS.
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

# (every design: under `make check DESIGNS=...` the environment has DESIGNS)
mk() { env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u DESIGNS make --no-print-directory -s "$@"; }

mk expect-fail DESIGN=contig-bulk >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && grep -qE '^FAIL \(expected\) dbg/test_contig +[0-9]+ of [0-9]+ points fail' "$tmp/out" &&
	grep -q '^same  *dbg/test_page_alloc' "$tmp/out" &&
	grep -qE '^contig-bulk on vanilla: [1-9][0-9]* fail as expected' "$tmp/out"
ok $? "contig-bulk: test_contig fails against vanilla, test_page_alloc is vanilla's own, exit 0 (exit $rc)"

# A design that lives in a header cannot be linked with vanilla's library.
# (The script exits 1 when no test fails; make turns any failed recipe into 2.)
mk expect-fail DESIGN=refcount-frozen-bit >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -ne 0 ] && grep -q '^not comparable  *dbg/test_page_ref .*include/linux/page_ref.h differs' "$tmp/out" &&
	grep -q '^refcount-frozen-bit on vanilla: 0 fail as expected' "$tmp/out"
ok $? "refcount-frozen-bit: page_ref.h differs, nothing comparable, make fails (exit $rc)"

# The broken variant: the design's expectations dropped (its KCFG not
# passed), nothing can fail, and it says so with exit 1.
CC=gcc CFLAGS="-std=gnu11 -pthread -Iinclude" LIBS="-lurcu-memb -lurcu-common -lm -pthread" \
	FL_dbg="-O1 -DCONFIG_DEBUG_VM" KCFG_DESIGN="" KCFG_VANILLA="" \
	tools/expect-fail.sh contig-bulk dbg/test_contig >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q '^same  *dbg/test_contig' "$tmp/out" &&
	grep -q '0 fail as expected' "$tmp/out"
ok $? "without the design's KCFG no test fails: exit 1 (exit $rc)"

# Bad input: one line, exit 2.
for d in nope vanilla "contig-bulk ra-batched" ""; do
	mk expect-fail DESIGN="$d" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "DESIGN='$d': name one design" "$tmp/err"
	ok $? "DESIGN='$d': exit 2 with one line (exit $rc: $(head -c 120 "$tmp/err"))"
done

done_testing
