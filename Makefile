# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# bhprof: one BPF object plus its userspace loader, as in libbpf-tools.

CLANG ?= clang
BPFTOOL ?= bpftool
# ARCH names the machine bhprof runs on, in the kernel's words (x86,
# arm64; uname's and Debian's names are taken too). It picks the
# vmlinux.h the BPF object is built against and the syscall registers
# it reads. Another than the build machine's is a cross build: its
# outputs go to .output/ARCH/, so both builds live side by side.
arch_name = $(patsubst x86_64,x86,$(patsubst amd64,x86,$(patsubst aarch64,arm64,$(1))))
HOST_ARCH := $(call arch_name,$(shell uname -m))
SRCARCH := $(call arch_name,$(or $(ARCH),$(HOST_ARCH)))
ifeq ($(filter x86 arm64,$(SRCARCH)),)
$(error ARCH=$(ARCH): bhprof builds for x86 (x86_64) and arm64 (aarch64))
endif
CROSS_COMPILE_arm64 := aarch64-linux-gnu-
CROSS_COMPILE_x86 := x86_64-linux-gnu-
ifeq ($(SRCARCH),$(HOST_ARCH))
OUTPUT ?= .output
BIN := bhprof
else
OUTPUT ?= .output/$(SRCARCH)
BIN := $(OUTPUT)/bhprof
CROSS_COMPILE ?= $(CROSS_COMPILE_$(SRCARCH))
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
endif
# The one place the version is kept; debian/changelog must agree.
VERSION := $(shell cat VERSION 2>/dev/null)
ifeq ($(VERSION),)
$(error no VERSION file)
endif

INCLUDES := -Iinclude -Ivmlinux/$(SRCARCH) -I$(OUTPUT)
# CFLAGS, CPPFLAGS and LDFLAGS may come from the environment
# (dpkg-buildflags' hardening under debian/rules); the flags bhprof needs
# are appended. They reach the host compiler only, never clang -target bpf.
CFLAGS ?= -g -O2
CFLAGS += -Wall -Wextra -Werror -Wno-unused-parameter -Wmissing-prototypes \
	  -std=gnu11 -D_GNU_SOURCE -DBHPROF_VERSION='"$(VERSION)"' $(INCLUDES) -Isrc
# -fms-extensions: since 6.19 the kernel embeds tagged structs as
# anonymous members ("struct slock_owned;" in socket_lock_t), and
# bpftool dumps them so in a vmlinux.h taken from such a kernel (arm64's).
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(SRCARCH) -Wall -Werror \
	      -Wno-unused-function -fms-extensions -Wno-microsoft-anon-tag \
	      $(INCLUDES)
LIBS := -lbpf -lelf -lz -lncursesw -ltinfo -lmicrohttpd -lm -lpthread
STATIC_LIBS := -Wl,--start-group -l:libbpf.a -l:libelf.a -l:libz.a \
	       -l:libncursesw.a -l:libtinfo.a -lm -lpthread -Wl,--end-group

# src/'s folders, lowest layer first: a file includes headers of its own
# folder and of folders before it in this list, never after
# (tests/live/test_layout.sh holds the tree to it).
SRC_DIRS := util model collect recfile output gate tui cmd
SRCS := src/main.c $(foreach d,$(SRC_DIRS),$(wildcard src/$(d)/*.c))
HDRS := $(foreach d,$(SRC_DIRS),$(wildcard src/$(d)/*.h))
OBJS := $(patsubst src/%.c,$(OUTPUT)/%.o,$(SRCS))
LIB_OBJS := $(filter-out $(OUTPUT)/main.o,$(OBJS))
BPF_OBJ := $(OUTPUT)/bhprof.bpf.o
SKEL := $(OUTPUT)/bhprof.skel.h

.DELETE_ON_ERROR:
.SECONDARY:

all: $(BIN)

$(OUTPUT):
	@mkdir -p $@

$(BPF_OBJ): bpf/bhprof.bpf.c bpf/*.bpf.h include/*.h vmlinux/$(SRCARCH)/vmlinux.h | $(OUTPUT)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(SKEL): $(BPF_OBJ)
	$(BPFTOOL) gen skeleton $< name bhprof_bpf > $@

$(OUTPUT)/%.o: src/%.c $(HDRS) include/*.h $(SKEL) | $(OUTPUT)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(OUTPUT)/collect/facts.o: VERSION

# libmicrohttpd-dev or any other library added to LIBS must also go into
# debian/control's Build-Depends (runtime dependencies come from
# dh_shlibdeps).
$(BIN): $(OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LIBS) -o $@

# The QEMU guests have no shared libraries: they need this one. It has no
# serve: libmicrohttpd's static library drags in gnutls, which Debian
# ships only shared.
static: $(OUTPUT)/bhprof-static
$(OUTPUT)/serve-static.o: src/cmd/serve.c $(HDRS) include/*.h | $(OUTPUT)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DBHPROF_NO_SERVE -c $< -o $@

$(OUTPUT)/bhprof-static: $(filter-out $(OUTPUT)/cmd/serve.o,$(OBJS)) $(OUTPUT)/serve-static.o
	$(CC) $(CFLAGS) -static $^ $(STATIC_LIBS) -o $@

# Regenerate the checked-in vmlinux/ARCH/vmlinux.h from a kernel's BTF:
# BTF= a vmlinux, a raw BTF file or /sys/kernel/btf/vmlinux (the default:
# this machine's), or IMAGE= an arm64 Image, gzip'ed or not, whose .BTF
# section is cut out (vmlinux/btf-from-image.py), so no guest is needed.
# x86's comes from a 6.18 kernel's /sys/kernel/btf/vmlinux, arm64's from
#   make vmlinux ARCH=arm64 IMAGE=../shared/kernels/Image-7.2-arm64-16k-bh
# The build never reads the running kernel otherwise.
BTF ?= /sys/kernel/btf/vmlinux
vmlinux: | $(OUTPUT)
	@mkdir -p vmlinux/$(SRCARCH)
	$(if $(IMAGE),python3 vmlinux/btf-from-image.py $(IMAGE) $(OUTPUT)/image.btf)
	$(BPFTOOL) btf dump file $(if $(IMAGE),$(OUTPUT)/image.btf,$(BTF)) \
		format c > vmlinux/$(SRCARCH)/vmlinux.h

PREFIX ?= /usr/local
install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/sbin/bhprof
	install -D -m 0644 man/bhprof.8 $(DESTDIR)$(PREFIX)/share/man/man8/bhprof.8
	install -D -m 0644 completion/bhprof.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/bhprof

# bhprof-VERSION.tar.gz of the tracked files (with uncommitted changes to
# them) in git; outside git, of this tree less what the build made.
DISTDIR ?= .
DIST := bhprof-$(VERSION)
.PHONY: dist
dist:
	@if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ]; then \
		tree=$$(git stash create) && \
		git archive --format=tar.gz --prefix=$(DIST)/ \
			-o $(DISTDIR)/$(DIST).tar.gz $${tree:-HEAD}; \
	else \
		tar -czf $(DISTDIR)/$(DIST).tar.gz --exclude=./.git \
			--exclude=./.output --exclude=./bhprof \
			--exclude='./bhprof-*.tar.gz' --exclude=./tests/vm/build \
			--exclude=./debian/bhprof --exclude=./debian/.debhelper \
			--exclude=./debian/files --exclude='./debian/*.substvars' \
			--exclude=./debian/debhelper-build-stamp \
			--transform='s,^\.,$(DIST),' . ; \
	fi
	@echo $(DISTDIR)/$(DIST).tar.gz

deps:
	./tests/install-deps.sh

clean:
	rm -rf .output bhprof

.PHONY: all static vmlinux install deps clean check unit live vm gate-demo fuzz bench bench-vm faults

# ---- tests ----
UNIT_SRCS := $(wildcard tests/unit/*.c)
$(OUTPUT)/unit_tests: $(UNIT_SRCS) tests/unit/*.h $(HDRS) $(LIB_OBJS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -Itests/unit $(UNIT_SRCS) \
		$(LIB_OBJS) $(LIBS) -o $@

unit: $(OUTPUT)/unit_tests
	$(OUTPUT)/unit_tests

LIVE_TESTS := $(sort $(wildcard tests/live/test_*.sh))
live: bhprof faults $(OUTPUT)/gate_sim
	@rc=0; for t in $(LIVE_TESTS); do echo "== $$t"; bash $$t || rc=1; done; exit $$rc

# the gate on synthetic recordings: shifts caught, A/A false-alarm rates
$(OUTPUT)/gate_sim: tests/gate/gate_sim.c $(LIB_OBJS)
	$(CC) $(CFLAGS) $< $(LIB_OBJS) $(LIBS) -o $@

# libFuzzer on every parser of outside input, bounded, with memory
# limits (tests/fuzz/run.sh); make check runs them all, 100 s in all.
# A target NAME is tests/fuzz/fuzz_NAME.c, seeds in tests/fuzz/corpus/NAME,
# built with FUZZ_SRC_NAME (default src/NAME.c), and one entry NAME:SECONDS
# here: a new parser of outside input is one more word in FUZZ_RUNS.
FUZZ_RUNS ?= recfile:40 cli:20 devname:20 rules:20
FUZZ_SRC_recfile := src/recfile/recfile.c src/recfile/decode.c src/recfile/recfile_fmt.c \
		    src/model/snapshot.c src/model/callers.c src/model/fsrows.c
FUZZ_SRC_cli := src/util/cliparse.c
FUZZ_SRC_devname := src/model/devices.c
FUZZ_SRC_rules := src/gate/rules.c src/gate/metrics.c src/output/output.c \
		  src/output/other.c src/output/fstable.c \
		  src/model/figures.c src/model/summary.c src/model/snapshot.c \
		  src/model/hist.c src/util/json.c src/model/devices.c \
		  src/model/fsrows.c
FUZZ_BINS = $(foreach r,$(FUZZ_RUNS),$(OUTPUT)/fuzz_$(firstword $(subst :, ,$(r))))
fuzz_src = $(or $(FUZZ_SRC_$(1)),src/$(1).c)

.SECONDEXPANSION:
$(OUTPUT)/fuzz_%: tests/fuzz/fuzz_%.c $$(call fuzz_src,$$*) $(HDRS) include/*.h | $(OUTPUT)
	$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
		-Iinclude -Isrc $< $(call fuzz_src,$*) -lz -lm -o $@

fuzz: $(FUZZ_BINS)
	tests/fuzz/run.sh $(FUZZ_RUNS)

# figures, not pass/fail: file bytes per hour, report and diff of 24 h;
# bhprof's cost next to bpftrace and libbpf-tools (bench/compare.sh)
$(OUTPUT)/bench_recfile: bench/bench_recfile.c $(LIB_OBJS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< $(LIB_OBJS) $(LIBS) -o $@

# empty programs on bhprof's events: the kernel's part of its cost
$(OUTPUT)/floor: bench/floor.c | $(OUTPUT)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< -lbpf -lelf -lz -o $@

bench: $(OUTPUT)/bench_recfile $(OUTPUT)/floor bhprof
	$(OUTPUT)/bench_recfile 24
	FLOOR=$(OUTPUT)/floor bench/compare.sh

# each attach mode's cost in the guest's instructions per write, under
# QEMU's instruction counting (tests/vm/bench-vm.sh); not in make check
bench-vm: static
	BHPROF_BIN=$(OUTPUT)/bhprof-static tests/vm/bench-vm.sh

# Test-only builds of bhprof whose BPF object has one probe group (or
# all) refuse to load, as a renamed kernel field would (compat.bpf.h's
# FAULT_POINT): tests/live/test_degrade.sh proves the rest carries on.
FAULTS := write bio all callers pass iomapread typed paths
fault_id_write := 0
fault_id_bio := 3
fault_id_callers := 6
fault_id_pass := 7
fault_id_iomapread := 98
fault_id_typed := 97
fault_id_paths := 96
fault_id_all := 99
FAULT_BINS := $(foreach f,$(FAULTS),$(OUTPUT)/fault-$(f)/bhprof)
# every object that includes the skeleton, built again against the fault's
SKEL_SRCS := $(shell grep -l '"bhprof.skel.h"\|"attach_int.h"' src/collect/*.c)
SKEL_USERS := $(patsubst src/%.c,$(OUTPUT)/%.o,$(SKEL_SRCS))

$(OUTPUT)/fault-%/bhprof.bpf.o: bpf/bhprof.bpf.c bpf/*.bpf.h include/*.h vmlinux/$(SRCARCH)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -DBHPROF_FAULT=$(fault_id_$*) -c $< -o $@

$(OUTPUT)/fault-%/bhprof.skel.h: $(OUTPUT)/fault-%/bhprof.bpf.o
	$(BPFTOOL) gen skeleton $< name bhprof_bpf > $@

# the fault's skeleton first on the include path
define fault_objs
$(OUTPUT)/fault-$(1)/collect/%.o: src/collect/%.c $(HDRS) include/*.h $(OUTPUT)/fault-$(1)/bhprof.skel.h
	@mkdir -p $$(@D)
	$$(CC) -I$(OUTPUT)/fault-$(1) $$(CFLAGS) -DBHPROF_FAULT -c $$< -o $$@
endef
$(foreach f,$(FAULTS),$(eval $(call fault_objs,$(f))))

$(OUTPUT)/fault-%/bhprof: $(patsubst $(OUTPUT)/%,$(OUTPUT)/fault-\%/%,$(SKEL_USERS)) $(filter-out $(SKEL_USERS),$(OBJS))
	$(CC) $(CFLAGS) $^ $(LIBS) -o $@

faults: $(FAULT_BINS)

vm: static
	BHPROF_BIN=$(OUTPUT)/bhprof-static tests/vm/run-matrix.sh

# bhprof gate end to end: 6.12-bh against 6.12-nobh under QEMU, both ways,
# and an A/A (docs/ci.md)
gate-demo: static
	BHPROF_BIN=$(OUTPUT)/bhprof-static tests/vm/test_gate_demo.sh

# Every suite ends with "N passed, N failed"; run-suites.sh adds them up
# and fails on a suite that dies before its tally.
CHECK_SUITES := "$(OUTPUT)/unit_tests" "$(OUTPUT)/gate_sim" \
	$(foreach t,$(LIVE_TESTS),"bash $(t)") \
	"tests/fuzz/run.sh $(FUZZ_RUNS)" \
	"BHPROF_BIN=$(OUTPUT)/bhprof-static tests/vm/run-matrix.sh" \
	"BHPROF_BIN=$(OUTPUT)/bhprof-static tests/vm/test_gate_demo.sh"

check: bhprof static faults $(OUTPUT)/unit_tests $(FUZZ_BINS) $(OUTPUT)/gate_sim
	./tests/run-suites.sh $(CHECK_SUITES)
