#!/usr/bin/env bash
# The files mmlab reads and writes (TAP).  An input (a result for compare, a shard for merge)
# must be a regular file of at most 64 MiB: a FIFO, a device, a directory or a larger file is
# refused with one line, without blocking or reading it.  An output (--json, merge's OUT) is
# checked before the run, and written whole: to a temporary name beside it, then renamed, so
# an interrupted run leaves the old file (or none), never a partial one.
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash

run=(run refcount-scale --scale tiny --threads 1,2 --variant vanilla,frozen-bit --repeat 1)
"$MMLAB" "${run[@]}" --json "$tmp/r.json" >/dev/null 2>&1 &&
	"$MMLAB" "${run[@]}" --shard 0/2 --json "$tmp/s0.json" >/dev/null 2>&1 &&
	"$MMLAB" "${run[@]}" --shard 1/2 --json "$tmp/s1.json" >/dev/null 2>&1
ok $? "a result and two shards to read"

# --- inputs -----------------------------------------------------------------------------
mkfifo "$tmp/fifo.json"
mkdir "$tmp/dir.json"
truncate -s 65M "$tmp/big.json"
usage_error_says "'/dev/zero'.*character device" "compare of /dev/zero" compare "$tmp/r.json" /dev/zero
usage_error_says "'/dev/zero'.*character device" "compare of /dev/zero as A" compare /dev/zero "$tmp/r.json"
usage_error_says "fifo.json'.*FIFO" "compare of a FIFO (not opened: it would block)" compare "$tmp/r.json" "$tmp/fifo.json"
usage_error_says "big.json'.*64 MiB" "compare of a file over the size bound" compare "$tmp/r.json" "$tmp/big.json"
usage_error_says "/dev/null'.*character device" "compare of /dev/null" compare "$tmp/r.json" /dev/null
usage_error_says "'/dev/zero'.*character device" "merge of /dev/zero" merge "$tmp/m.json" "$tmp/s0.json" /dev/zero
usage_error_says "fifo.json'.*FIFO" "merge of a FIFO" merge "$tmp/m.json" "$tmp/s0.json" "$tmp/fifo.json"
usage_error_says "big.json'.*64 MiB" "merge of a file over the size bound" merge "$tmp/m.json" "$tmp/big.json" "$tmp/s1.json"
usage_error_says "dir.json'.*directory" "merge of a directory" merge "$tmp/m.json" "$tmp/s0.json" "$tmp/dir.json"
[ ! -e "$tmp/m.json" ]
ok $? "a refused merge writes no OUT"
# results/<run-id>/ directories: a NAME.json that is not a regular file is refused, not skipped
mkdir -p "$tmp/ra" "$tmp/rb" "$tmp/rc"
cp "$tmp/r.json" "$tmp/ra/refcount-scale.json"
mkfifo "$tmp/rb/refcount-scale.json"
mkdir "$tmp/rc/refcount-scale.json"
usage_error_says "rb/refcount-scale.json'.*FIFO" "compare of directories, B's file a FIFO" compare "$tmp/ra" "$tmp/rb"
usage_error_says "rc/refcount-scale.json'.*directory" "compare of directories, B's file a directory" compare "$tmp/ra" "$tmp/rc"

# --- --json: checked before the run, written whole ----------------------------------------
usage_error_says "'/dev/full'.*character device" "--json /dev/full" "${run[@]}" --json /dev/full
[ ! -s "$tmp/out" ]
ok $? "--json /dev/full is refused before the run (no table printed)"
usage_error_says "'/proc/version'.*cannot create a file in '/proc': " "--json /proc/version" "${run[@]}" --json /proc/version
[ ! -s "$tmp/out" ]
ok $? "--json /proc/version is refused before the run, saying why"
usage_error_says "fifo.json'.*FIFO" "--json to a FIFO" "${run[@]}" --json "$tmp/fifo.json"
usage_error_says "dir.json'.*directory" "--json to a directory" "${run[@]}" --json "$tmp/dir.json"
usage_error_says "nodir/x.json'.*No such file or directory" "--json into a missing directory" "${run[@]}" --json "$tmp/nodir/x.json"
usage_error_says "empty" "--json ''" "${run[@]}" --json ''

# An interrupted run: the old file stays whole, a new one is not created, nothing is left over.
long=(run refcount-scale --scale tiny --threads 1 --variant vanilla --repeat 1000)
echo '{"old": true}' >"$tmp/keep.json"
for sig in INT TERM; do
	timeout -s $sig 2 "$MMLAB" "${long[@]}" --json "$tmp/keep.json" >/dev/null 2>&1
	rc=$?
	[ $rc -eq 124 ] && [ "$(cat "$tmp/keep.json")" = '{"old": true}' ]
	ok $? "SIG$sig during the run (exit $rc): the old --json file is left as it was"
done
timeout -s INT 2 "$MMLAB" "${long[@]}" --json "$tmp/new.json" >/dev/null 2>&1
[ ! -e "$tmp/new.json" ]
ok $? "SIGINT during the run: no --json file appears"
[ -z "$(find "$tmp" -maxdepth 1 -name '.*.json.*')" ]
ok $? "no temporary file is left behind"
# a completed run replaces the file, keeps its mode, and writes through a symbolic link
chmod 640 "$tmp/keep.json"
ln -s keep.json "$tmp/link.json"
"$MMLAB" "${run[@]}" --json "$tmp/link.json" >/dev/null 2>&1 &&
	[ -L "$tmp/link.json" ] && [ "$(stat -c %a "$tmp/keep.json")" = 640 ] &&
	python3 -c "import json,sys; sys.exit(json.load(open(sys.argv[1]))['experiment'] != 'refcount-scale')" "$tmp/keep.json"
ok $? "a finished run replaces the file through a symbolic link, keeping its mode"

# --- merge OUT: checked before anything is printed; never one of its inputs ---------------
usage_error_says "'/dev/full'.*character device" "merge to /dev/full" merge /dev/full "$tmp/s0.json" "$tmp/s1.json"
[ ! -s "$tmp/out" ]
ok $? "merge to /dev/full prints no table"
usage_error_says "nodir/m.json'.*No such file or directory" "merge to a missing directory" merge "$tmp/nodir/m.json" "$tmp/s0.json" "$tmp/s1.json"
[ ! -s "$tmp/out" ]
ok $? "merge to a missing directory prints no table"
usage_error_says "/proc/m.json'.*cannot create a file in '/proc'" "merge to /proc" merge /proc/m.json "$tmp/s0.json" "$tmp/s1.json"
cp "$tmp/s0.json" "$tmp/s0.orig"
usage_error_says "OUT .*s0.json' is also shard 1" "merge whose OUT is one of its shards" merge "$tmp/s0.json" "$tmp/s0.json" "$tmp/s1.json"
cmp -s "$tmp/s0.json" "$tmp/s0.orig"
ok $? "the shard given as OUT is left as it was"
ln -s s1.json "$tmp/s1link.json"
usage_error_says "OUT .*s1link.json' is also shard 2" "merge whose OUT is a link to one of its shards" merge "$tmp/s1link.json" "$tmp/s0.json" "$tmp/s1.json"
"$MMLAB" merge "$tmp/m.json" "$tmp/s0.json" "$tmp/s1.json" >/dev/null 2>&1 &&
	python3 -c "import json,sys; sys.exit(len(json.load(open(sys.argv[1]))['results']) != 4)" "$tmp/m.json"
ok $? "merge to a new file still works"

done_testing
