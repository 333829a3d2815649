#!/usr/bin/env bash
# tools/gen-workload-abi.sh: the header of a workload's params and results, copied from its
# file, or one line naming what it cannot copy and exit 1, never a wrong header (TAP).
set -u
cd "$(dirname "$0")/.."
. tests/cli_lib.bash
GEN=tools/gen-workload-abi.sh

# gen_fails DESCRIPTION PATTERN FILE-TEXT: exit 1, one line on stderr matching PATTERN, no header.
gen_fails() {
	printf '%b' "$3" >"$tmp/w.c"
	$GEN "$tmp/w.c" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qE -- "$2" "$tmp/err" && [ ! -s "$tmp/out" ]
	ok $? "$1: exit 1, one line (exit $rc: $(head -c 200 "$tmp/err" | tr -d '\n'))"
}

# Every workload of the tree, and alloc-free's header as the build has it.
for w in src/workloads/*.c; do
	$GEN "$w" >"$tmp/$(basename "$w" .c).h" 2>"$tmp/err" || break
done
ok $? "every src/workloads/*.c gives a header ($(head -c 160 "$tmp/err" | tr -d '\n'))"
grep -qx 'struct af_params {' "$tmp/alloc_free.h" && grep -qx 'struct af_result {' "$tmp/alloc_free.h" &&
	grep -qx '#line 14 "src/workloads/alloc_free.c"' "$tmp/alloc_free.h"
ok $? "alloc_free.h has both structs, each after a #line naming where it is in the workload"
! grep -q 'struct' "$tmp/free_contig.h" && grep -q '^#ifndef MMLAB_GEN_WORKLOAD_FREE_CONTIG_H$' "$tmp/free_contig.h"
ok $? "free_contig.h (its structs in include/mmlab/workloads/) has an include guard and no struct"

# A workload of every legal shape: copied verbatim, in order, the rest left out.
cat >"$tmp/shapes.c" <<'C'
#include <linux/gfp.h>
/*
 * struct zz_params { in a comment is not a definition
 */
struct sh_params {
	unsigned int order;		/* a comment stays */
	union {
		int32_t a;
		uint64_t b;
	};
	struct {
		bool on;
	} inner;
};

static int helper(void) { return 0; }

struct sh_result { double usec; size_t bytes; };
static struct sh_result copy(const struct sh_result *r) { return *r; }
C
$GEN "$tmp/shapes.c" >"$tmp/shapes.h" 2>"$tmp/err"
ok $? "a workload with nested unions, structs and a one-line result gives a header"
want=$(sed -n '5,14p;18p' "$tmp/shapes.c")
got=$(grep -v -e '^#' -e '^/\*' -e '^$' "$tmp/shapes.h")
[ "$want" = "$got" ]
ok $? "the header holds the two definitions verbatim and nothing else of the workload"
printf '#include "%s"\n#include "%s"\nint main(void) { struct sh_params p = { 0 }; struct sh_result r = { 0 }; return (int)p.order + (int)r.usec; }\n' \
	"$tmp/shapes.h" "$tmp/shapes.h" >"$tmp/use.c"
gcc -std=gnu11 -Wall -Werror -o "$tmp/use" "$tmp/use.c"
ok $? "an experiment including it twice compiles (include guard, stdbool/stdint/stddef)"

printf 'static int f(void) { return 0; }\n' >"$tmp/none.c"
$GEN "$tmp/none.c" >"$tmp/none.h" && ! grep -q struct "$tmp/none.h" && grep -q '^#endif$' "$tmp/none.h"
ok $? "a workload without params or result gives a header with none"

# What it cannot copy, or copy right.
gen_fails "a typedef'd params struct" 'w\.c:1: not a top-level "struct NAME \{" definition' \
	'typedef struct w_params {\n\tint a;\n} wp;\n'
gen_fails "a result struct with its brace on the next line" 'w\.c:1: not a top-level' \
	'struct w_result\n{\n\tint a;\n};\n'
gen_fails "a params struct defined inside a function" 'w\.c:3: not a top-level' \
	'int f(void)\n{\n\tstruct w_params {\n\t\tint a;\n\t};\n\treturn 0;\n}\n'
gen_fails "a nested union closed at column 0" 'w\.c:1: its braces do not balance by the "\};" of line 4' \
	'struct w_result {\n\tunion {\n\t\tint a;\n};\n\tint b;\n};\n'
gen_fails "a params struct never closed" 'w\.c:1: no "\};" ends this struct' \
	'struct w_params {\n\tint a;\n'
gen_fails "a field of a type the workload's headers define" \
	'do not compile alone .*w\.c:2:[0-9]+: error: .*incomplete type' \
	'struct w_params {\n\tenum fc_mode mode;\n};\n'
gen_fails "an array sized by a macro of the workload" \
	'do not compile alone .*w\.c:3:[0-9]+: error: .N. undeclared' \
	'#define N 4\nstruct w_result {\n\tint a[N];\n};\n'

$GEN >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q '^usage: ' "$tmp/err"
ok $? "no file: exit 2 with its usage"

done_testing
