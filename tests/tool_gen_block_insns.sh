#!/usr/bin/env bash
# tools/gen-block-insns.py: each vt block's instructions (core.insn), on drawn layouts, and
# build/mmlab's table against the blocks a run enters (TAP).
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash
MMLAB=${MMLAB:-build/mmlab}

# blocks LAYOUT: the generator's table for a drawn disassembly and symbol table of one
# design (three kernel objects: run, ev, vt), printed as "FIRST SLOTS i:OPS/FALL ..." for
# each slot i that holds anything (FALL: how many slots on the block it falls into lies).
blocks() {
	python3 - "$1" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location('g', 'tools/gen-block-insns.py')
g = importlib.util.module_from_spec(spec)
spec.loader.exec_module(g)
dis, syms = open(sys.argv[1]).read().split('=== symbols\n')
hook, blocks = g.blocks_of(dis, syms, 1)
lo, table = g.table_of(hook, blocks)
slots = len(table) // 2
print(lo, slots, *['%d:%d/%d' % (i, table[2 * i], table[2 * i + 1]) for i in range(slots)
                   if table[2 * i] or table[2 * i + 1]])
PY
}

# The symbols: each object's sources start with percpu_counter.c; walk lives in the run
# object at 0x1000 and in the vt object at 0x3000; only_vt has no run twin.
symtab() {
	cat <<EOF
=== symbols
     1: 0000000000000000     0 FILE    LOCAL  DEFAULT  ABS main.c
     2: 0000000000000000     0 FILE    LOCAL  DEFAULT  ABS percpu_counter.c
     3: 0000000000001000    $1 FUNC    LOCAL  DEFAULT   15 walk
     4: 0000000000000000     0 FILE    LOCAL  DEFAULT  ABS percpu_counter.c
     5: 0000000000002000    16 FUNC    LOCAL  DEFAULT   15 walk
     6: 0000000000000000     0 FILE    LOCAL  DEFAULT  ABS percpu_counter.c
     7: 0000000000003000    64 FUNC    LOCAL  DEFAULT   15 walk
     8: 0000000000003100    64 FUNC    LOCAL  DEFAULT   15 only_vt
     9: 0000000000000000     0 FILE    LOCAL  DEFAULT  ABS vt_sched.c
    10: 0000000000009000     1 FUNC    LOCAL  DEFAULT   15 __sanitizer_cov_trace_pc
EOF
}

# walk in the vt object, as the vt flavour compiles it (return addresses 0x3005, 0x3027):
#
#   block A (0x3005)                      counted
#     lea 0x8(%rbx),%rdi                  no: the next call's argument
#     call __tsan_read8                   no: instrumentation
#     mov 0x8(%rbx),%rax                  1
#     nopl                                no: alignment
#     call helper                         2: a call of the kernel's
#     test %rax,%rax                      3
#     je 3040                             -  fused with the test: one op; the branch ends A
#     xor %eax,%eax                       -  (after the branch: not A's, nor any block's)
#   block B (0x3027)
#     mov %rax,%rdx                       1
#     call vt_spin_lock                   no: a shim (the model charges the lock)
#     ret                                 2
#
# and only_vt: one block (0x3105) of four ops: a move, an add, and a compare of memory with
# an immediate and its jump, which no core fuses.
vt_walk() {
	cat <<'EOF'
0000000000001000 <walk>:
    1000:	mov    0x8(%rbx),%rax
    1004:	call   5000 <helper>
    1009:	test   %rax,%rax
    100c:	je     1020 <walk+0x20>
    100e:	xor    %eax,%eax
    1010:	mov    %rax,%rdx
    1013:	ret
    1014:	nopw   0x0(%rax,%rax,1)
0000000000002000 <walk>:
    2000:	ret
0000000000003000 <walk>:
    3000:	call   9000 <__sanitizer_cov_trace_pc>
    3005:	lea    0x8(%rbx),%rdi
    3009:	call   9100 <__tsan_read8>
    300e:	mov    0x8(%rbx),%rax
    3012:	nopl   0x0(%rax)
    3016:	call   5000 <helper>
    301b:	test   %rax,%rax
    301e:	je     3040 <walk+0x40>
    3020:	xor    %eax,%eax
    3022:	call   9000 <__sanitizer_cov_trace_pc>
    3027:	mov    %rax,%rdx
    302a:	call   9200 <vt_spin_lock>
    302f:	ret
    3030:	xchg   %ax,%ax
0000000000003100 <only_vt>:
    3100:	call   9000 <__sanitizer_cov_trace_pc>
    3105:	mov    %rdi,%rax
    3108:	add    $0x1,%rax
    310c:	cmpq   $0x0,0x8(%rdi)
    3111:	jne    3000 <walk>
0000000000009000 <__sanitizer_cov_trace_pc>:
    9000:	ret
EOF
}

# walk's run twin holds 6 ops, as the vt build does less the instrumentation: no scaling.
# Slots from 0x3005 - 0x9000 = -24571: A at 0, B at 8, only_vt's at 64.
{ vt_walk; symtab 20; } >"$tmp/l1"
got=$(blocks "$tmp/l1")
want="-24571 65 0:3/8 8:2/0 64:4/0"
[ "$got" = "$want" ]
ok $? "a drawn walk: block A 3 ops, falling into B 8 slots on; B 2, only_vt 4, neither falling (got '$got')"

# A run twin of 4 ops (its test gone, so its jump is one of its own) against the vt build's
# 6: walk's blocks scaled by 2/3 (A 2, B 1.3 -> 1); only_vt, without a twin, by its design's
# ratio, the same 2/3 (2.7 -> 3).
sed 's/^    1009:.*$//; s/^    100e:.*$//; s/^    1010:.*$//' "$tmp/l1" | grep -v '^$' >"$tmp/l2"
got=$(blocks "$tmp/l2")
want="-24571 65 0:2/8 8:1/0 64:3/0"
[ "$got" = "$want" ]
ok $? "a run twin of 4 instructions scales walk's blocks and only_vt's by 2/3 (got '$got')"

# A run twin larger than the vt build (15 ops): no scaling up.
awk '/^    1013:/ { for (i = 0; i < 9; i++) printf "    10%02x:\tadd    $0x1,%%rcx\n", 0x20 + i } { print }' "$tmp/l1" >"$tmp/l3"
got=$(blocks "$tmp/l3")
want="-24571 65 0:3/8 8:2/0 64:4/0"
[ "$got" = "$want" ]
ok $? "a run twin of 15 ops leaves the counts as they are (got '$got')"

# A block of 300 instructions is 255, the most a slot holds.
awk '/^    3111:/ { for (i = 0; i < 297; i++) printf "    %x:\tadd    $0x1,%%rcx\n", 0x4000 + 4 * i } { print }' "$tmp/l1" >"$tmp/l4"
got=$(blocks "$tmp/l4" | awk '{ print $NF }')
[ "$got" = 64:255/0 ]
ok $? "a block of 300 instructions holds 255 (got '$got')"

# A block that ends in no branch falls into the next; one whose jump is followed by code
# that can branch before the next hook does not; nor does one whose next block lies more
# than 255 slots on.
sed 's/^    3020:\txor    %eax,%eax$/    3020:\tjmp    3000 <walk>/' "$tmp/l1" >"$tmp/l6"
got=$(blocks "$tmp/l6")
[ "$got" = "-24571 65 0:3/0 8:2/0 64:4/0" ]
ok $? "a jump between A's branch and B's hook: A falls into nothing (got '$got')"
sed 's/^    301e:\tje     3040 <walk+0x40>$/    301e:\tadd    $0x1,%rcx/' "$tmp/l1" >"$tmp/l7"
got=$(blocks "$tmp/l7")
[ "$got" = "-24571 65 0:4/8 8:2/0 64:3/0" ]
ok $? "A without its branch runs on to B's hook and falls into it (5 ops, scaled by its twin's 6 over 7: 4; got '$got')"

# Two objects short of three a design: refused.
grep -v ' 6: ' "$tmp/l1" >"$tmp/l5"
blocks "$tmp/l5" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q '2 kernel objects, expected 3' "$tmp/err"
ok $? "two kernel objects where a design has three: exit 1 naming both ($(head -c 120 "$tmp/err"))"
# One object: refused the same way, not a traceback.
grep -v ' [46]: ' "$tmp/l1" >"$tmp/l8"
blocks "$tmp/l8" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '1 kernel objects, expected 3' "$tmp/err"
ok $? "one kernel object: exit 1, one line naming it ($(head -c 120 "$tmp/err"))"

# build/mmlab's table against a run: the instructions the run's counter says its timed
# window ran are the blocks it entered there (tools/blockprof.sh's raw counts), each by its
# slot of the table the link put in the binary.
grep -v '^core\.insn ' machines/m2-vm.conf >"$tmp/m2.conf"
echo 'core.insn 0.036 | a test' >>"$tmp/m2.conf"
MMLAB_VT_BLOCKPROF=$tmp/prof "$MMLAB" run free-contig --machine "$tmp/m2.conf" --iterations 5 --repeat 1 \
	--variant vanilla --json "$tmp/fc.json" >/dev/null 2>&1
python3 - "$MMLAB" "$tmp/prof" "$tmp/fc.json" build/gen/block_insns.S build/gen/block_insns.bin <<'PY'
import json, re, subprocess, sys
mmlab, prof, js, asm, table = sys.argv[1:]
hook = next(int(l.split()[0], 16) for l in subprocess.run(['nm', mmlab], capture_output=True, text=True).stdout.splitlines()
            if l.endswith(' __sanitizer_cov_trace_pc'))
first = int(re.search(r'\.quad (-?\d+)', open(asm).read()).group(1))
slots = open(table, 'rb').read()
ran = 0
for l in open(prof):
    if l.startswith('#'):
        continue
    off, n, windowed = l.split()
    i = (int(off, 16) - hook - first) >> 2
    if 0 <= i < len(slots) // 2:
        ran += slots[2 * i] * int(windowed)
r = json.load(open(js))['results'][0]
said = r['counters']['insns_per_op'] * 5
print(ran, said)
sys.exit(not (ran > 0 and abs(ran - said) <= 1))
PY
ok $? "free-contig's timed window: insns_per_op x 5 iterations is the table's count of the blocks it ran"
done_testing
