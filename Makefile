# mmlab: a userspace laboratory for Linux mm fast paths.
#
#   make          build build/mmlab and every test program
#   make run      build, run every experiment at --scale default, write results/<run-id>/
#   make check    build, run every test (unit, interleaving checker, stress, stress under TSan)
#
# The model's "kernel" (src/mm, src/lib, src/workloads, src/kernel.c) is built
# once per design under study, like building a kernel per .config.  Each build
# is linked into one relocatable object whose symbols are made local, except
# its descriptor `mm_kernel_<design>_<flavour>`, so all designs live in the
# one mmlab binary and the runner picks one outside any measured loop.
# Tests link one design's objects directly and call the kernel functions.

CC      ?= gcc
LD      ?= ld
OBJCOPY ?= objcopy
AR      ?= ar

BUILD   := build
WARN    := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
BASE_CFLAGS := -std=gnu11 -g -pthread -fno-strict-aliasing -fno-strict-overflow -Iinclude $(WARN) $(EXTRA_CFLAGS)
LIBS    := -lurcu-memb -lurcu-common -lm -pthread

# --- designs (kernel configs) ----------------------------------------------
KERNELS := vanilla frozen-bit cmpxchg-guess seqcount-read batched bulk chunk-prepare ra-batched \
	   rmap-referenced rmap-batched
# Deliberately broken designs, built only for the tests that must catch them.
MUTANTS := frozen-bit-nocas contig-misaligned contig-free-referenced ra-skip-slot ra-bad-ref \
	   rmap-past-pmd rmap-past-folio rmap-notify-nr

KCFG_vanilla        :=
KCFG_frozen-bit     := -DCONFIG_PAGEREF_FROZEN_BIT
KCFG_cmpxchg-guess  := -DCONFIG_PAGEREF_CMPXCHG_GUESS
KCFG_seqcount-read  := -DCONFIG_FILEMAP_SEQCOUNT_READ
KCFG_batched        := -DCONFIG_FREE_CONTIG_BATCHED
KCFG_bulk           := -DCONFIG_FREE_CONTIG_BULK
KCFG_chunk-prepare  := -DCONFIG_FREE_CONTIG_BULK -DCONFIG_FREE_CONTIG_CHUNK_PREPARE
KCFG_ra-batched     := -DCONFIG_READAHEAD_BATCHED
KCFG_ra-skip-slot   := -DCONFIG_READAHEAD_BATCHED -DCONFIG_READAHEAD_MUTANT_SKIP_SLOT
KCFG_ra-bad-ref     := -DCONFIG_READAHEAD_BATCHED -DCONFIG_READAHEAD_MUTANT_BAD_REF
KCFG_rmap-referenced := -DCONFIG_RMAP_BATCH_REFERENCED
KCFG_rmap-batched   := -DCONFIG_RMAP_BATCH_REFERENCED -DCONFIG_RMAP_BATCH_UNMAP
KCFG_rmap-past-pmd  := $(KCFG_rmap-batched) -DCONFIG_RMAP_MUTANT_PAST_PMD
KCFG_rmap-past-folio := $(KCFG_rmap-batched) -DCONFIG_RMAP_MUTANT_PAST_FOLIO
KCFG_rmap-notify-nr := $(KCFG_rmap-batched) -DCONFIG_RMAP_MUTANT_NOTIFY_NR
KCFG_frozen-bit-nocas := -DCONFIG_PAGEREF_FROZEN_BIT -DCONFIG_PAGEREF_MUTANT_NO_FROZEN_CAS
KCFG_contig-misaligned := -DCONFIG_FREE_CONTIG_BULK -DCONFIG_FREE_CONTIG_MUTANT_IGNORE_ALIGN
KCFG_contig-free-referenced := -DCONFIG_FREE_CONTIG_BULK -DCONFIG_FREE_CONTIG_MUTANT_FREE_REFERENCED

# --- flavours of a build -----------------------------------------------------
#  run   timed builds linked into mmlab
#  ev    the same with the model's vm event items (CONFIG_DEBUG_VM_EVENTS; never timed)
#  dbg   CONFIG_DEBUG_VM, for unit and stress tests
#  tsan  CONFIG_DEBUG_VM under ThreadSanitizer
#  chk   every atomic is a scheduling point of the interleaving checker
FL_run  := -O2
FL_ev   := -O2 -DCONFIG_DEBUG_VM_EVENTS
FL_dbg  := -O1 -DCONFIG_DEBUG_VM -DCONFIG_DEBUG_VM_EVENTS
FL_tsan := -O1 -DCONFIG_DEBUG_VM -DCONFIG_DEBUG_VM_EVENTS -fsanitize=thread -Wno-tsan
FL_chk  := -O1 -DCONFIG_DEBUG_VM -DMMLAB_CHECKER
LDFL_tsan := -fsanitize=thread

KSRCS   := $(sort $(wildcard src/mm/*.c src/lib/*.c src/workloads/*.c)) src/kernel.c
LABSRCS := $(sort $(wildcard src/lab/*.c src/experiments/*.c))
LABLIB_SRCS := $(filter-out src/lab/main.c,$(LABSRCS))
CHKSRCS := $(sort $(wildcard src/checker/*.c))
HDRS    := $(shell find include -name '*.h')

sym = $(subst -,_,$(1))

# kernel objects: build/k/<design>/<flavour>/<path>.o
define KERNEL_BUILD
$(BUILD)/k/$(1)/$(2)/%.o: %.c $(HDRS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(BASE_CFLAGS) $$(FL_$(2)) $$(KCFG_$(1)) -fvisibility=hidden \
		-DMM_KERNEL_SYM=mm_kernel_$(call sym,$(1))_$(2) -DMM_KERNEL_NAME='"$(1)"' -c $$< -o $$@
$(BUILD)/k/$(1)/$(2)/libmm.a: $(patsubst %.c,$(BUILD)/k/$(1)/$(2)/%.o,$(KSRCS))
	@rm -f $$@
	$$(AR) rcs $$@ $$^
$(BUILD)/k/$(1)/$(2)/kernel.o: $(patsubst %.c,$(BUILD)/k/$(1)/$(2)/%.o,$(KSRCS))
	$$(LD) -r -o $$@.tmp $$^
	$$(OBJCOPY) --localize-hidden $$@.tmp $$@
	@rm -f $$@.tmp
endef
$(foreach k,$(KERNELS),$(foreach f,run ev dbg tsan chk,$(eval $(call KERNEL_BUILD,$(k),$(f)))))
$(foreach k,$(MUTANTS),$(foreach f,dbg chk,$(eval $(call KERNEL_BUILD,$(k),$(f)))))

# lab objects (runner, CLI, experiments): build/lab/<flavour>/<path>.o
define LAB_BUILD
$(BUILD)/lab/$(1)/%.o: %.c $(HDRS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(BASE_CFLAGS) $$(FL_$(1)) -c $$< -o $$@
$(BUILD)/lab/$(1)/liblab.a: $(patsubst %.c,$(BUILD)/lab/$(1)/%.o,$(LABLIB_SRCS) $(if $(filter chk,$(1)),$(CHKSRCS)))
	@rm -f $$@
	$$(AR) rcs $$@ $$^
endef
$(foreach f,run dbg tsan chk,$(eval $(call LAB_BUILD,$(f))))

RUN_KOBJS := $(foreach k,$(KERNELS),$(BUILD)/k/$(k)/run/kernel.o $(BUILD)/k/$(k)/ev/kernel.o)

$(BUILD)/mmlab: $(BUILD)/lab/run/src/lab/main.o $(BUILD)/lab/run/liblab.a $(RUN_KOBJS)
	$(CC) $(BASE_CFLAGS) -o $@ $^ $(LIBS)

# --- tests ----------------------------------------------------------------------
#  tests/test_*.c    unit tests, built against every design (dbg)
#  tests/stress_*.c  multi-thread stress, against every design (dbg and tsan)
#  tests/check_*.c   interleaving checker scenarios, every design and mutant (chk)
#  tests/lab_*.c     tests of the runner itself, built once
#  tests/*.sh        command-line tests of build/mmlab
UNIT    := $(basename $(notdir $(wildcard tests/test_*.c)))
STRESS  := $(basename $(notdir $(wildcard tests/stress_*.c)))
CHECKS  := $(basename $(notdir $(wildcard tests/check_*.c)))
LABT    := $(basename $(notdir $(wildcard tests/lab_*.c)))
TESTHDRS := $(wildcard tests/*.h)

define TEST_BUILD
# $(1) design, $(2) flavour, $(3) test name
$(BUILD)/tests/$(2)/$(1)/$(3): tests/$(3).c $(TESTHDRS) $(BUILD)/k/$(1)/$(2)/libmm.a $(BUILD)/lab/$(2)/liblab.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$(BASE_CFLAGS) $$(FL_$(2)) $$(KCFG_$(1)) -Itests -DMM_KERNEL_NAME='"$(1)"' -o $$@ $$< \
		$(BUILD)/k/$(1)/$(2)/libmm.a $(BUILD)/lab/$(2)/liblab.a $$(LDFL_$(2)) $$(LIBS)
TEST_BINS += $(BUILD)/tests/$(2)/$(1)/$(3)
endef
$(foreach k,$(KERNELS) $(MUTANTS),$(foreach t,$(UNIT),$(eval $(call TEST_BUILD,$(k),dbg,$(t)))))
$(foreach k,$(KERNELS),$(foreach t,$(STRESS),$(eval $(call TEST_BUILD,$(k),dbg,$(t)))))
$(foreach k,$(KERNELS),$(foreach t,$(STRESS),$(eval $(call TEST_BUILD,$(k),tsan,$(t)))))
$(foreach k,$(KERNELS) $(MUTANTS),$(foreach t,$(CHECKS),$(eval $(call TEST_BUILD,$(k),chk,$(t)))))

$(BUILD)/tests/lab/%: tests/%.c $(TESTHDRS) $(BUILD)/lab/dbg/liblab.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(FL_dbg) -Itests -o $@ $< $(BUILD)/lab/dbg/liblab.a $(LIBS)
TEST_BINS += $(addprefix $(BUILD)/tests/lab/,$(LABT))

# --- the two commands -------------------------------------------------------
.PHONY: all deps run check clean venv
all: $(BUILD)/mmlab $(TEST_BINS)

deps:
	@bash tools/install-deps.sh

VENV := $(BUILD)/venv
$(VENV)/.stamp: requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@
venv: $(VENV)/.stamp

run: deps
	@$(MAKE) --no-print-directory $(BUILD)/mmlab $(VENV)/.stamp
	@bash tools/run-all.sh

check: deps
	@$(MAKE) --no-print-directory all
	@bash tools/run-tests.sh

clean:
	rm -rf $(BUILD)
