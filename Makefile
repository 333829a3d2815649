# mmlab: a userspace laboratory for Linux mm fast paths.
#
#   make          build build/mmlab and every test program
#   make run      build, run every experiment at --scale default, write results/<run-id>/
#   make check    build, run every test (unit, interleaving checker, stress, stress under TSan)
#   make validate print tools/vt_chase's latency curves for the held-out machines of
#                 machines/validation/ (docs/VALIDATION.md)
#   make mutation apply each one-line mutant of tools/mutants.txt to a scratch copy and
#                 report which the tests catch (slow; not part of make check)
#   make DESIGNS=vanilla,contig-bulk
#                 only those designs: build/mmlab and their tests (vanilla's
#                 always); mmlab refuses the variants of the others
#   make expect-fail DESIGN=contig-bulk
#                 the design's tests, expecting the design, against vanilla's
#                 kernel: shows which of them fail there
#   make V=1      show full compiler command lines
#
# Layers, each a library of its own:
#   kernel model  src/mm, src/lib, src/workloads, src/kernel.c   build/k/<design>/<flavour>/
#   machine       src/machine (CPUs, clock, delays, the checker)  build/machine/<flavour>/
#   runner        src/lab, src/experiments                       build/lab/<flavour>/
# The kernel model sees only the machine (tools/check-layers.sh enforces it).
#
# The kernel model is built once per design under study, like building a kernel
# per .config.  Each build is linked into one relocatable object whose symbols
# are made local, except its descriptor `mm_kernel_<design>_<flavour>`, so all
# designs live in the one mmlab binary and the runner picks one outside any
# measured loop.  Tests link one design's objects and the machine directly.

.DEFAULT_GOAL := all

# The compiler named is the one used: make's built-in default `cc` becomes gcc
# (the one whose ThreadSanitizer runtime tools/install-deps.sh installs).
ifeq ($(origin CC),default)
CC      := gcc
endif
ifeq ($(origin AR),default)
AR      := ar
endif
LD      ?= ld
OBJCOPY ?= objcopy

# Parallel by default; an explicit -jN on the command line wins.  Sub-makes
# (make run, make check) share the top-level make's job slots.
NPROC   := $(shell nproc 2>/dev/null || echo 1)
MAKEFLAGS += --no-print-directory
ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(NPROC)
endif

ifeq ($(V),1)
Q       :=
msg     = @true
else
Q       := @
msg     = @printf '  %-7s %s\n' '$(1)' '$(2)'
endif

BUILD   := build
WARN    := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
BASE_CFLAGS := -std=gnu11 -g -pthread -fno-strict-aliasing -fno-strict-overflow -Iinclude $(WARN) \
	       -MMD -MP $(EXTRA_CFLAGS)
LIBS    := -lurcu-memb -lurcu-common -lm -pthread

# --- designs (kernel configs), named <series>-<design> ---------------------------
#  seed 000  refcount-*     seed 001  contig-*     seed 002  ra-*     seed 003  mgt-*
#  seed 004  rmap-*
KERNELS := vanilla refcount-frozen-bit refcount-cmpxchg-guess refcount-seqcount-read \
	   contig-batched contig-bulk contig-chunk-prepare ra-batched mgt-entry mgt-counter \
	   rmap-batched-referenced rmap-batched pcp-drain-batch

KCFG_vanilla                 :=
KCFG_refcount-frozen-bit     := -DCONFIG_REFCOUNT_FROZEN_BIT
KCFG_refcount-cmpxchg-guess  := -DCONFIG_REFCOUNT_CMPXCHG_GUESS
KCFG_refcount-seqcount-read  := -DCONFIG_REFCOUNT_SEQCOUNT_READ
KCFG_contig-batched          := -DCONFIG_CONTIG_BATCHED -DCONFIG_VMALLOC_ATOMIC_NR_PAGES
KCFG_contig-bulk             := -DCONFIG_CONTIG_BULK
KCFG_contig-chunk-prepare    := -DCONFIG_CONTIG_BULK -DCONFIG_CONTIG_CHUNK_PREPARE
KCFG_ra-batched              := -DCONFIG_RA_BATCHED
KCFG_mgt-entry               := -DCONFIG_MGT_ENTRY
KCFG_mgt-counter             := -DCONFIG_MGT_COUNTER
KCFG_rmap-batched-referenced         := -DCONFIG_RMAP_BATCHED_REFERENCED
KCFG_rmap-batched            := -DCONFIG_RMAP_BATCHED_REFERENCED -DCONFIG_RMAP_BATCHED
KCFG_pcp-drain-batch         := -DCONFIG_PCP_DRAIN_BATCH

# Vanilla at an older base, the baseline of a design applied there (its
# variant's .base), built for mmlab and for the tests (flavour/test) of what differs.
BASES := vanilla-v1base
KCFG_vanilla-v1base          := -DCONFIG_VMALLOC_ATOMIC_NR_PAGES
BTESTS_vanilla-v1base        := dbg/test_vmalloc

# Deliberately broken designs, each built only for the tests that must catch it.
MUTANTS := refcount-frozen-bit-nocas filemap-no-recheck page-alloc-merge-pageblock contig-misaligned contig-free-referenced \
	   ra-skip-slot ra-bad-ref ra-eexist-ends rmap-past-pmd rmap-past-folio rmap-notify-nr \
	   anon-no-wrprotect anon-reuse-active anon-fork-keep-write migrate-stop-restore \
	   mgt-entry-fork-uncounted mgt-counter-fork-uncounted mgt-counter-zap-uncounted \
	   migrate-stop-exclusive folio-lock-late-waiters

KCFG_refcount-frozen-bit-nocas := $(KCFG_refcount-frozen-bit) -DCONFIG_PAGEREF_MUTANT_NO_FROZEN_CAS
KCFG_filemap-no-recheck      := -DCONFIG_FILEMAP_MUTANT_NO_RECHECK
KCFG_page-alloc-merge-pageblock := -DCONFIG_PAGE_ALLOC_MUTANT_MERGE_PAGEBLOCK
KCFG_contig-misaligned       := $(KCFG_contig-bulk) -DCONFIG_FREE_CONTIG_MUTANT_IGNORE_ALIGN
KCFG_contig-free-referenced  := $(KCFG_contig-bulk) -DCONFIG_FREE_CONTIG_MUTANT_FREE_REFERENCED
KCFG_ra-skip-slot            := $(KCFG_ra-batched) -DCONFIG_READAHEAD_MUTANT_SKIP_SLOT
KCFG_ra-bad-ref              := $(KCFG_ra-batched) -DCONFIG_READAHEAD_MUTANT_BAD_REF
KCFG_ra-eexist-ends          := $(KCFG_ra-batched) -DCONFIG_READAHEAD_MUTANT_EEXIST_ENDS
KCFG_rmap-past-pmd           := $(KCFG_rmap-batched) -DCONFIG_RMAP_MUTANT_PAST_PMD
KCFG_rmap-past-folio         := $(KCFG_rmap-batched) -DCONFIG_RMAP_MUTANT_PAST_FOLIO
KCFG_rmap-notify-nr          := $(KCFG_rmap-batched) -DCONFIG_RMAP_MUTANT_NOTIFY_NR
KCFG_anon-no-wrprotect       := -DCONFIG_ANON_MUTANT_NO_WRPROTECT
KCFG_anon-reuse-active       := -DCONFIG_ANON_MUTANT_REUSE_ACTIVE
KCFG_anon-fork-keep-write    := -DCONFIG_ANON_MUTANT_FORK_KEEP_WRITE
KCFG_migrate-stop-restore    := -DCONFIG_MIGRATE_MUTANT_STOP_RESTORE
KCFG_mgt-entry-fork-uncounted := $(KCFG_mgt-entry) -DCONFIG_MIGRATE_MUTANT_FORK_UNCOUNTED
KCFG_mgt-counter-fork-uncounted := $(KCFG_mgt-counter) -DCONFIG_MIGRATE_MUTANT_FORK_UNCOUNTED
KCFG_mgt-counter-zap-uncounted := $(KCFG_mgt-counter) -DCONFIG_MIGRATE_MUTANT_ZAP_UNCOUNTED
KCFG_migrate-stop-exclusive  := -DCONFIG_MIGRATE_MUTANT_STOP_EXCLUSIVE
KCFG_folio-lock-late-waiters := -DCONFIG_FILEMAP_MUTANT_LATE_WAITERS

# The tests that must catch each mutant (flavour/test).
MTESTS_refcount-frozen-bit-nocas := dbg/test_page_ref chk/check_page_ref chk/check_filemap
MTESTS_filemap-no-recheck    := chk/check_filemap
MTESTS_page-alloc-merge-pageblock := dbg/test_page_alloc
MTESTS_contig-misaligned     := dbg/test_contig dbg/test_alloc_differential dbg/test_vmalloc
MTESTS_contig-free-referenced := $(MTESTS_contig-misaligned)
MTESTS_ra-skip-slot          := dbg/test_readahead
MTESTS_ra-bad-ref            := dbg/test_readahead
MTESTS_ra-eexist-ends        := dbg/test_readahead
MTESTS_rmap-past-pmd         := dbg/test_rmap dbg/test_vmscan
MTESTS_rmap-past-folio       := dbg/test_rmap dbg/test_vmscan
MTESTS_rmap-notify-nr        := dbg/test_rmap dbg/test_vmscan
MTESTS_anon-no-wrprotect     := dbg/test_anon
MTESTS_anon-reuse-active     := dbg/test_anon
MTESTS_anon-fork-keep-write  := dbg/test_anon
MTESTS_migrate-stop-restore  := dbg/test_migrate
MTESTS_mgt-entry-fork-uncounted := dbg/test_migrate
MTESTS_mgt-counter-fork-uncounted := dbg/test_migrate chk/check_migrate
MTESTS_mgt-counter-zap-uncounted := dbg/test_migrate chk/check_migrate
MTESTS_migrate-stop-exclusive := dbg/test_migrate
MTESTS_folio-lock-late-waiters := chk/check_folio_lock

# --- make DESIGNS=vanilla,foo: only those designs -------------------------------
# build/mmlab and the tests of the designs named (vanilla among them), no
# mutants.  mmlab gets a stand-in for every design left out
# (src/lab/designs.c, listed in build/gen/designs.h): the runner refuses its
# variants with one line naming the designs that are built.
ALL_DESIGNS := $(KERNELS) $(BASES)
ifneq ($(strip $(DESIGNS)),)
comma := ,
DESIGNS_GIVEN := $(subst $(comma), ,$(DESIGNS))
ifneq ($(filter-out $(ALL_DESIGNS),$(DESIGNS_GIVEN)),)
$(error DESIGNS: unknown design '$(firstword $(filter-out $(ALL_DESIGNS),$(DESIGNS_GIVEN)))'; valid: $(ALL_DESIGNS))
endif
ifeq ($(filter vanilla,$(DESIGNS_GIVEN)),)
$(error DESIGNS=$(DESIGNS): vanilla must be one of them, every design is compared with it)
endif
KERNELS := $(filter $(DESIGNS_GIVEN),$(KERNELS))
BASES   := $(filter $(DESIGNS_GIVEN),$(BASES))
MUTANTS :=
endif

# --- flavours of a build -----------------------------------------------------
#  run   timed builds linked into mmlab (frame pointers, for perf record -g)
#  ev    the same with the model's vm event items (CONFIG_DEBUG_VM_EVENTS; never timed)
#  dbg   CONFIG_DEBUG_VM, for unit and stress tests
#  tsan  CONFIG_DEBUG_VM under ThreadSanitizer
#  chk   every atomic is a scheduling point of the interleaving checker
#  vt    virtual time: every shim event is charged by the simulated machine
#        (src/machine/vt_*.c), every basic block of plain code counted by it
#        (trace-pc), every plain load, store and copy by its memory hierarchy
#        (src/machine/vt_cache.c, through GCC's TSan instrumentation);
#        built for VT_KERNELS only, linked into mmlab
FRAMEPTR := -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
FL_run  := -O2 $(FRAMEPTR)
FL_ev   := -O2 $(FRAMEPTR) -DCONFIG_DEBUG_VM_EVENTS
FL_dbg  := -O1 -DCONFIG_DEBUG_VM -DCONFIG_DEBUG_VM_EVENTS -DCONFIG_FAIL_PAGE_ALLOC
FL_tsan := -O1 -DCONFIG_DEBUG_VM -DCONFIG_DEBUG_VM_EVENTS -fsanitize=thread -Wno-tsan
FL_chk  := -O1 -DCONFIG_DEBUG_VM -DMMLAB_CHECKER
FL_vt   := -O2 -DMMLAB_VT -fsanitize-coverage=trace-pc -fsanitize=thread -Wno-tsan -U__SANITIZE_THREAD__ \
	   --param=tsan-instrument-func-entry-exit=0 -fno-builtin-memcpy -fno-builtin-memmove \
	   -fno-builtin-memset -fno-merge-constants
# The vt objects' every load and store calls src/machine/vt_cache.c (its own
# __tsan_* entry points, not the TSan runtime), and so do their copies:
OCFL_vt := --redefine-sym memcpy=vt_memcpy --redefine-sym memmove=vt_memmove \
	   --redefine-sym memset=vt_memset
# and their heap is laid out by the calls a boot makes, not by the process's past:
OCFL_vt += --redefine-sym malloc=vt_malloc --redefine-sym calloc=vt_calloc \
	   --redefine-sym realloc=vt_realloc --redefine-sym free=vt_free \
	   --redefine-sym posix_memalign=vt_posix_memalign --redefine-sym aligned_alloc=vt_aligned_alloc
# and each vt build's data (its strings too: -fno-merge-constants keeps them
# out of the link's shared pool) lies on pages of its own, wherever the link
# puts it.
KPOST_vt := tools/vt-page-align.sh
LDFL_tsan := -fsanitize=thread

# Every design is built in the vt flavour too: every experiment takes --machine.
VT_KERNELS := $(KERNELS) $(BASES)

KSRCS   := $(sort $(wildcard src/mm/*.c src/lib/*.c src/workloads/*.c)) src/kernel.c
WORKLOADS := $(basename $(notdir $(sort $(wildcard src/workloads/*.c))))
MACHSRCS := src/machine/host.c src/machine/delay.c src/machine/vt_sched.c src/machine/vt_coherence.c src/machine/vt_sync.c src/machine/vt_run.c src/machine/vt_cache.c src/machine/vt_span.c src/machine/vt_alloc.c src/machine/vt_machine.c src/machine/vt_calibrate.c src/machine/vt_iface.c \
	    src/machine/vt_calibrate_mem.c src/machine/arena.c src/machine/vt_blockprof.c \
	    src/machine/vt_calibrate_code.c src/machine/vt_probe_code.c src/machine/vt_bpred.c
CHKSRCS := src/machine/checker.c
LABSRCS := $(sort $(wildcard src/lab/*.c src/experiments/*.c))
LABLIB_SRCS := $(filter-out src/lab/main.c src/lab/designs.c,$(LABSRCS))

sym = $(subst -,_,$(1))
kobjs = $(patsubst %.c,$(BUILD)/k/$(1)/$(2)/%.o,$(KSRCS))

# kernel objects: build/k/<design>/<flavour>/<path>.o; a file whose preprocessed
# text a design does not change is compiled once per flavour (tools/kcc)
define KERNEL_BUILD
$(BUILD)/k/$(1)/$(2)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(call msg,CC,$(1)/$(2) $$<)
	$$(Q)tools/kcc $(BUILD)/kcache/$(2) $$< $$@ $$(CC) $$(BASE_CFLAGS) $$(FL_$(2)) $$(KCFG_$(1)) \
		-I$(BUILD)/gen -fvisibility=hidden -DMM_KERNEL_SYM=mm_kernel_$(call sym,$(1))_$(2) -DMM_KERNEL_NAME='"$(1)"' 
$(BUILD)/k/$(1)/$(2)/src/kernel.o: $(BUILD)/gen/mm_workloads.h
$(BUILD)/k/$(1)/$(2)/libmm.a: $(call kobjs,$(1),$(2))
	$$(call msg,AR,$$@)
	@rm -f $$@
	$$(Q)$$(AR) rcs $$@ $$^
$(BUILD)/k/$(1)/$(2)/kernel.o: $(call kobjs,$(1),$(2))
	$$(call msg,LD,$$@)
	$$(Q)$$(LD) -r -o $$@.tmp $$^
	$$(Q)$$(OBJCOPY) --localize-hidden $$(OCFL_$(2)) $$@.tmp $$@
	$$(if $$(KPOST_$(2)),$$(Q)$$(KPOST_$(2)) $$@)
	@rm -f $$@.tmp
DEPFILES += $(patsubst %.o,%.d,$(call kobjs,$(1),$(2)))
endef

# machine and runner objects: build/<layer>/<flavour>/<path>.o
define LIB_BUILD
# $(1) layer, $(2) flavour, $(3) sources
$(BUILD)/$(1)/$(2)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(call msg,CC,$(1)/$(2) $$<)
	$$(Q)$$(CC) $$(BASE_CFLAGS) $$(FL_$(2)) -c $$< -o $$@
$(BUILD)/$(1)/$(2)/lib$(1).a: $(patsubst %.c,$(BUILD)/$(1)/$(2)/%.o,$(3)) $(4)
	$$(call msg,AR,$$@)
	@rm -f $$@
	$$(Q)$$(AR) rcs $$@ $$^
DEPFILES += $(patsubst %.c,$(BUILD)/$(1)/$(2)/%.d,$(3))
endef

FLAVOURS := run ev dbg tsan chk
$(foreach k,$(KERNELS),$(foreach f,$(FLAVOURS),$(eval $(call KERNEL_BUILD,$(k),$(f)))))
$(foreach k,$(VT_KERNELS),$(eval $(call KERNEL_BUILD,$(k),vt)))
$(foreach k,$(MUTANTS),$(foreach f,$(sort $(dir $(MTESTS_$(k)))),$(eval $(call KERNEL_BUILD,$(k),$(f:/=)))))
$(foreach k,$(BASES),$(foreach f,run ev $(sort $(dir $(BTESTS_$(k)))),$(eval $(call KERNEL_BUILD,$(k),$(f:/=)))))
# calibrate's code probe (src/machine/vt_probe_code.c) a second time, its
# basic blocks counted by trace-pc as the vt flavour counts the kernel
# model's, into a hook of its own (vt_probe_code_block()).
define PROBE_COUNT_BUILD
$(BUILD)/machine/$(1)/src/machine/vt_probe_code_count.o: src/machine/vt_probe_code.c
	@mkdir -p $$(dir $$@)
	$$(call msg,CC,machine/$(1) $$< (counted))
	$$(Q)$$(CC) $$(BASE_CFLAGS) $$(FL_$(1)) -DVT_PROBE_COUNT -fsanitize-coverage=trace-pc -c $$< -o $$@
	$$(Q)$$(OBJCOPY) --redefine-sym __sanitizer_cov_trace_pc=vt_probe_code_block $$@
DEPFILES += $(BUILD)/machine/$(1)/src/machine/vt_probe_code_count.d
endef
$(foreach f,run dbg tsan chk,$(eval $(call PROBE_COUNT_BUILD,$(f))))
probe_count = $(BUILD)/machine/$(1)/src/machine/vt_probe_code_count.o
$(foreach f,run dbg tsan,$(eval $(call LIB_BUILD,machine,$(f),$(MACHSRCS),$(call probe_count,$(f)))))
$(eval $(call LIB_BUILD,machine,chk,$(MACHSRCS) $(CHKSRCS),$(call probe_count,chk)))
$(foreach f,run dbg,$(eval $(call LIB_BUILD,lab,$(f),$(LABLIB_SRCS))))
DEPFILES += $(BUILD)/lab/run/src/lab/main.d $(BUILD)/lab/run/src/lab/designs.d

RUN_KOBJS := $(foreach k,$(KERNELS) $(BASES),$(BUILD)/k/$(k)/run/kernel.o $(BUILD)/k/$(k)/ev/kernel.o) \
	     $(foreach k,$(VT_KERNELS),$(BUILD)/k/$(k)/vt/kernel.o)

# The designs left out, rewritten only when the list changes.
$(BUILD)/gen/designs.h: FORCE
	@mkdir -p $(dir $@)
	@{ echo '/* make DESIGNS=...: what build/mmlab has (src/lab/designs.c) */'; \
	  echo '#define MM_DESIGNS_BUILT "$(strip $(KERNELS) $(BASES))"'; \
	  $(foreach d,$(filter-out $(KERNELS) $(BASES),$(ALL_DESIGNS)),echo 'NOT_BUILT($(call sym,$(d)), "$(d)")';) \
	} >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi
# The workloads every kernel build carries (src/kernel.c's table): one per
# src/workloads/<name>.c, which defines <name>_workload (MM_WORKLOAD()).
$(BUILD)/gen/mm_workloads.h: FORCE
	@mkdir -p $(dir $@)
	@{ echo '/* src/workloads/<name>.c, for src/kernel.c */'; \
	  $(foreach w,$(WORKLOADS),echo 'WORKLOAD($(w))';) \
	} >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi
$(BUILD)/lab/run/src/lab/designs.o: $(BUILD)/gen/designs.h
FORCE:

# The header of a workload's parameters and results, for its experiment
# (#include <workloads/<name>.h>): the *_params and *_result structs its
# src/workloads/<name>.c defines, copied by tools/gen-workload-abi.sh (which
# fails rather than copy one wrong).  Rewritten only when they change; the
# runner's objects wait for every one on their first build, and their
# dependency files name the ones they include after it.  A workload whose
# interface needs more has include/mmlab/workloads/<name>.h instead.
WORKLOAD_HDRS := $(patsubst %,$(BUILD)/gen/workloads/%.h,$(WORKLOADS))
$(BUILD)/gen/workloads/%.h: src/workloads/%.c tools/gen-workload-abi.sh
	@mkdir -p $(dir $@)
	$(Q)CC='$(CC)' tools/gen-workload-abi.sh $< >$@.tmp || { rm -f $@.tmp; exit 1; }
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@ && printf '  %-7s %s\n' GEN $@; fi
LAB_OBJS := $(patsubst %.c,$(BUILD)/lab/run/%.o,$(LABSRCS)) $(patsubst %.c,$(BUILD)/lab/dbg/%.o,$(LABLIB_SRCS))
$(LAB_OBJS): | $(WORKLOAD_HDRS)
$(BUILD)/lab/%.o: BASE_CFLAGS += -I$(BUILD)/gen

# Linked twice: the first link's vt blocks are counted (core.insn,
# tools/gen-block-insns.py) into a table the second link adds as data in
# place of an empty one, which moves no function (the data after it moves,
# and the code's offsets to it with it); the check says so.
MMLAB_OBJS := $(BUILD)/lab/run/src/lab/main.o $(BUILD)/lab/run/src/lab/designs.o \
	      $(BUILD)/lab/run/liblab.a $(RUN_KOBJS) $(BUILD)/machine/run/libmachine.a
$(BUILD)/mmlab: $(MMLAB_OBJS) tools/gen-block-insns.py
	$(call msg,LINK,$@)
	@mkdir -p $(BUILD)/gen
	$(Q)python3 tools/gen-block-insns.py --empty $(BUILD)/gen/block_insns0.S
	$(Q)$(CC) -c -o $(BUILD)/gen/block_insns0.o $(BUILD)/gen/block_insns0.S
	$(Q)$(CC) $(BASE_CFLAGS) -o $@.0 $(MMLAB_OBJS) $(BUILD)/gen/block_insns0.o $(LIBS)
	$(call msg,GEN,$(BUILD)/gen/block_insns.S)
	$(Q)python3 tools/gen-block-insns.py $@.0 '$(VT_KERNELS)' $(BUILD)/gen/block_insns.bin $(BUILD)/gen/block_insns.S
	$(Q)$(CC) -c -o $(BUILD)/gen/block_insns.o $(BUILD)/gen/block_insns.S
	$(Q)$(CC) $(BASE_CFLAGS) -o $@.1 $(MMLAB_OBJS) $(BUILD)/gen/block_insns.o $(LIBS)
	$(Q)nm $@.0 | awk '$$2 ~ /^[tT]$$/' >$@.0.nm && nm $@.1 | awk '$$2 ~ /^[tT]$$/' >$@.1.nm && \
	   cmp -s $@.0.nm $@.1.nm && \
	   [ "$$(readelf -SW $@.0 | grep ' \.text ')" = "$$(readelf -SW $@.1 | grep ' \.text ')" ] || \
	   { echo "$@: the block table moved the code" >&2; exit 1; }
	@rm -f $@.0 $@.0.nm $@.1.nm
	@mv -f $@.1 $@

# --- tests ----------------------------------------------------------------------
#  tests/test_*.c    unit tests, built against every design (dbg)
#  tests/stress_*.c  multi-thread stress, against every design (dbg and tsan)
#  tests/check_*.c   interleaving checker scenarios, every design (chk)
#  tests/lab_*.c     tests of the runner itself
#  tests/*.sh        command-line tests of build/mmlab
# A test in COMMON tests code no design changes: it is built once, against
# vanilla, as build/tests/<flavour>/common/<name>.  Mutants get only the tests
# in their MTESTS_ list.  Kernel tests link the kernel and the machine, never
# the runner.
UNIT    := $(basename $(notdir $(wildcard tests/test_*.c)))
STRESS  := $(basename $(notdir $(wildcard tests/stress_*.c)))
CHECKS  := $(basename $(notdir $(wildcard tests/check_*.c)))
LABT    := $(basename $(notdir $(wildcard tests/lab_*.c)))
COMMON  := check_machine test_arena test_vt test_vt_cache test_vt_bpred test_vt_alloc test_vt_span test_vt_rules test_rbtree test_xarray test_interval_tree test_vmstat test_memcontrol test_percpu_counter check_sched stress_xarray stress_tsan_canary \
	   check_folio_lock

define TEST_BUILD
# $(1) design, $(2) flavour, $(3) test name, $(4) directory (design or "common")
$(BUILD)/tests/$(2)/$(4)/$(3): tests/$(3).c $(BUILD)/k/$(1)/$(2)/libmm.a $(BUILD)/machine/$(2)/libmachine.a
	@mkdir -p $$(dir $$@)
	$$(call msg,CC,$(2)/$(4) $$<)
	$$(Q)$$(CC) $$(BASE_CFLAGS) -MF $$@.d $$(FL_$(2)) $$(KCFG_$(1)) -Itests -DMM_KERNEL_NAME='"$(1)"' \
		-o $$@ $$< $(BUILD)/k/$(1)/$(2)/libmm.a $(BUILD)/machine/$(2)/libmachine.a $$(LDFL_$(2)) $$(LIBS)
TEST_BINS += $(BUILD)/tests/$(2)/$(4)/$(3)
DEPFILES += $(BUILD)/tests/$(2)/$(4)/$(3).d
endef
per_design = $(filter-out $(COMMON),$(1))
# A checker scenario of code only some designs change runs for those (and vanilla):
# check_page_ref includes page_ref.h alone, identical in every other design.
DESIGNS_check_migrate := vanilla mgt-entry mgt-counter
DESIGNS_check_page_ref := vanilla refcount-frozen-bit refcount-cmpxchg-guess
# check_recheck: the COW fault's and the FGP_LOCK lookup's rechecks, which no design changes.
DESIGNS_check_recheck := vanilla
designs_of = $(filter $(KERNELS),$(or $(DESIGNS_$(1)),$(KERNELS)))
$(foreach k,$(KERNELS),$(foreach t,$(call per_design,$(UNIT) $(STRESS)),$(eval $(call TEST_BUILD,$(k),dbg,$(t),$(k)))))
$(foreach k,$(KERNELS),$(foreach t,$(call per_design,$(STRESS)),$(eval $(call TEST_BUILD,$(k),tsan,$(t),$(k)))))
$(foreach t,$(call per_design,$(CHECKS)),$(foreach k,$(call designs_of,$(t)),$(eval $(call TEST_BUILD,$(k),chk,$(t),$(k)))))
$(foreach t,$(filter $(UNIT) $(STRESS),$(COMMON)),$(eval $(call TEST_BUILD,vanilla,dbg,$(t),common)))
$(foreach t,$(filter $(STRESS),$(COMMON)),$(eval $(call TEST_BUILD,vanilla,tsan,$(t),common)))
$(foreach t,$(filter $(CHECKS),$(COMMON)),$(eval $(call TEST_BUILD,vanilla,chk,$(t),common)))
$(foreach k,$(BASES),$(foreach ft,$(BTESTS_$(k)),\
	$(eval $(call TEST_BUILD,$(k),$(patsubst %/,%,$(dir $(ft))),$(notdir $(ft)),$(k)))))
$(foreach k,$(MUTANTS),$(foreach ft,$(MTESTS_$(k)),\
	$(eval $(call TEST_BUILD,$(k),$(patsubst %/,%,$(dir $(ft))),$(notdir $(ft)),$(k)))))

$(BUILD)/tests/lab/%: tests/%.c $(BUILD)/lab/dbg/liblab.a $(BUILD)/machine/dbg/libmachine.a
	@mkdir -p $(dir $@)
	$(call msg,CC,lab $<)
	$(Q)$(CC) $(BASE_CFLAGS) -MF $@.d $(FL_dbg) -Itests -o $@ $< $(BUILD)/lab/dbg/liblab.a \
		$(BUILD)/machine/dbg/libmachine.a $(LIBS)
TEST_BINS += $(addprefix $(BUILD)/tests/lab/,$(LABT))
DEPFILES += $(addsuffix .d,$(addprefix $(BUILD)/tests/lab/,$(LABT)))

# tools/vt_chase: the latency-against-working-set curve a machine file
# predicts (docs/VALIDATION.md); `make validate` prints it for every held-out
# machine of machines/validation/.
$(BUILD)/tools/vt_chase: tools/vt_chase.c $(BUILD)/machine/run/libmachine.a
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)
	$(Q)$(CC) $(BASE_CFLAGS) -MF $@.d -O2 -o $@ $< $(BUILD)/machine/run/libmachine.a $(LIBS)
DEPFILES += $(BUILD)/tools/vt_chase.d

# tools/lock_overlap: a locked RMW's cost on this host amid other work against
# back to back, as calibrate measures it for rmw.overlap (docs/VALIDATION.md, "2d").
$(BUILD)/tools/lock_overlap: tools/lock_overlap.c $(BUILD)/machine/run/libmachine.a
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)
	$(Q)$(CC) $(BASE_CFLAGS) -MF $@.d -O2 -o $@ $< $(BUILD)/machine/run/libmachine.a $(LIBS)
DEPFILES += $(BUILD)/tools/lock_overlap.d

-include $(DEPFILES)

# --- the two commands -------------------------------------------------------
.PHONY: all deps run check mutation clean venv layers FORCE expect-fail validate
all: $(BUILD)/mmlab $(TEST_BINS) $(BUILD)/tools/vt_chase $(BUILD)/tools/lock_overlap

deps:
	@bash tools/install-deps.sh

VENV := $(BUILD)/venv
$(VENV)/.stamp: requirements.txt
	$(call msg,VENV,$(VENV))
	$(Q)python3 -m venv $(VENV)
	$(Q)$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@
venv: $(VENV)/.stamp

run: deps
	@$(MAKE) $(BUILD)/mmlab $(VENV)/.stamp
	@bash tools/run-all.sh

check: deps
	@$(MAKE) all $(VENV)/.stamp
	@DESIGNS='$(DESIGNS)' bash tools/run-tests.sh

mutation:
	@bash tools/mutation.sh

validate: $(BUILD)/tools/vt_chase
	@for m in machines/validation/*.conf; do $(BUILD)/tools/vt_chase $$m || exit 1; echo; done

# make expect-fail DESIGN=foo: foo's tests, compiled with foo's KCFG (what
# they expect) and linked with vanilla's kernel: which fail (tools/expect-fail.sh)
EF_TESTS = $(foreach t,$(call per_design,$(UNIT) $(STRESS)),dbg/$(t)) \
	   $(foreach t,$(call per_design,$(CHECKS)),$(if $(filter $(DESIGN),$(call designs_of,$(t))),chk/$(t))) \
	   $(BTESTS_$(DESIGN))
ifneq ($(filter expect-fail,$(MAKECMDGOALS)),)
ifneq ($(words $(DESIGN)) $(words $(filter-out vanilla,$(filter $(DESIGN),$(KERNELS) $(BASES)))),1 1)
$(error expect-fail: DESIGN='$(DESIGN)': name one design other than vanilla: $(filter-out vanilla,$(KERNELS) $(BASES)))
endif
endif
expect-fail: $(BUILD)/k/vanilla/dbg/libmm.a $(BUILD)/k/vanilla/chk/libmm.a \
	     $(BUILD)/machine/dbg/libmachine.a $(BUILD)/machine/chk/libmachine.a
	@CC='$(CC)' CFLAGS='$(BASE_CFLAGS)' LIBS='$(LIBS)' FL_dbg='$(FL_dbg)' FL_chk='$(FL_chk)' \
		KCFG_DESIGN='$(KCFG_$(DESIGN))' KCFG_VANILLA='$(KCFG_vanilla)' \
		bash tools/expect-fail.sh $(DESIGN) $(sort $(EF_TESTS))

clean:
	rm -rf $(BUILD)
