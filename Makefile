# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build and test driver for the CAN stack. Every target, with
# its time on two cores (TCG for the VM ones; "first" = empty caches):
#
#   make            all: modules and j1939 (1.5 min first, seconds after)
#   make modules    our modules, W=1, against Debian's headers (1.3 min first)
#   make j1939      mainline 6.1's can-j1939 on our core, build/j1939 (20 s first)
#   make install    copy modules (and can-j1939) to updates/, depmod; no build;
#                   DRIVERS=1 J1939=0|1 FORCE=1 DESTDIR= (seconds)
#   make uninstall  remove what install put there, depmod (seconds)
#   make demo       boot the VM and show can-utils on vcan0 and the SJA1000 cards
#   make vm         interactive shell in the VM, our modules loaded
#   make selftests  the test programs and test modules into build/ (1 min)
#   make check      build, then the suite in one VM per CPU at once (CHECK_JOBS=n),
#                   the compat build meanwhile (cached); T='names' for some, in
#                   one VM (9 min on two idle cores from a fresh clone)
#   make check-rt   the suite on 6.12-rt, from clean, cleaned after (10 min)
#   make check-all  make check on 6.1, 6.12 and 6.12-rt in turn (30 min)
#   make check-debug  the suite on a Linux 6.1 built with our code in-tree and
#                   KASAN, lockdep, PROVE_RCU, kmemleak, UBSAN, KUnit, in one VM
#                   per CPU as make check (kernel: 9 min first; suite: 30 min)
#   make check-debug-locked  its second half, under the cache's lock (internal)
#   make fuzz       the syscall fuzzer in the debug kernel (not a test):
#                   D=seconds (300) SEED=n FUZZ_ARGS=..., or REPLAY=file;
#                   KERNEL=stock: on Debian's kernel, no lock, no KASAN (D s, and
#                   the debug kernel's build the first time)
#   make bench      benchmarks, mainline's modules against ours (not a test);
#                   B="memsock:1000 bcm" runs only those (3 min)
#   make reference  the SJA1000 and MCP2515 driver tests on Debian's mainline
#                   modules (loaded on purpose): which checks mainline passes
#                   (not a test); R="sja1000_kvaser.sh" runs only those
#   make compat-build  mainline 6.1's drivers and J1939 built unmodified on our
#                   headers and can-dev, build/compat (2.5 min)
#   make compat-drivers  compat-build, then our driver tests on them in the VM
#   make patches    the tree as a patch series against linux-source-6.1,
#                   checkpatch (30 s; 2.5 min the first time)
#   make patches-check  patches, kernel-doc on our files, then W=1 and sparse
#                   on every prefix (4 min; 7 first)
#   make dkms-deb   build/can-stack-dkms_*.deb, rebuilt by DKMS per kernel (1 s)
#   make dkms-build what the package's dkms.conf runs (internal)
#   make dkms-clean what the package's dkms.conf cleans with (internal)
#   make install-test-prep  a copy of Debian's CAN modules for can_install.sh
#                   (internal, part of check; 2 s)
#   make deps       install the Debian packages all of this needs
#   make need-deps  deps, only if something is missing (internal; 0.5 s)
#   make clean      remove what the above built, build/ included (seconds)
#
# KVER defaults to the kernel of Debian's linux-image-amd64, the one the VM
# boots; set KVER (or KDIR) to build against another installed kernel. The
# running kernel is never consulted.

SRC := $(CURDIR)
BUILD ?= $(SRC)/build
SELFTESTS := tools/testing/selftests/net/can
# The test VM: boot, run in the guest, split over guests.
VMHARNESS := $(SELFTESTS)/vm

# The default kernel is the one the VM boots: the version Debian's
# linux-image-amd64 points to. It is looked up when a recipe first needs
# it, after "need-deps" has installed the packages, and only once.
ifdef KDIR
KVER ?= $(patsubst linux-headers-%,%,$(notdir $(KDIR)))
else
KVER ?= $(eval KVER := $(shell $(SRC)/scripts/can-deps.sh kver))$(or $(KVER),$(error \
	no kernel version to build for; see the message above))
KDIR = /usr/src/linux-headers-$(KVER)
endif

# Our headers must win over the kernel's copies of the same files, so they
# go in front of LINUXINCLUDE through NOSTDINC_FLAGS (which Kbuild places
# first). Overriding it drops the kernel's own -nostdinc, so keep that.
CAN_INCLUDES := -nostdinc -I$(SRC)/include -I$(SRC)/include/uapi

# The stack's options, as a kernel .config would set them.
CAN_CONFIG := CONFIG_CAN=m CONFIG_CAN_RAW=m CONFIG_CAN_BCM=m CONFIG_CAN_ISOTP=m \
	CONFIG_CAN_GW=m CONFIG_CAN_VCAN=m CONFIG_CAN_VXCAN=m \
	CONFIG_CAN_DEV=m CONFIG_CAN_NETLINK=y CONFIG_CAN_CALC_BITTIMING=y CONFIG_CAN_RX_OFFLOAD=y \
	CONFIG_CAN_SJA1000=m CONFIG_CAN_KVASER_PCI=m CONFIG_CAN_PCM3680_PCI=m \
	CONFIG_CAN_MCP251X=m CONFIG_CAN_VBUS=m

# Every other CAN option our Makefiles name (mainline's drivers, which
# the kernel tree keeps and this directory has no source of) is off,
# whatever the kernel's own configuration says.
CAN_OFF := $(filter-out $(foreach o,$(CAN_CONFIG),$(firstword $(subst =, ,$(o)))), \
	$(shell grep -rhoE 'CONFIG_(CAN_[A-Z0-9_]+|PCH_CAN)\b' $(SRC)/net/can \
		$(SRC)/drivers/net/can --include=Makefile | sort -u))

KBUILD_ARGS = -C $(KDIR) M=$(SRC) NOSTDINC_FLAGS="$(CAN_INCLUDES)" $(CAN_CONFIG) \
	$(addsuffix =,$(CAN_OFF))

MODULES = $(shell find $(SRC)/net $(SRC)/drivers -name '*.ko' 2>/dev/null)

# The builds below use every CPU when "make" was typed without -j (as the
# README says to); with -j the jobserver shares them as usual. Only a
# recipe sees -j in MAKEFLAGS, so this expands there.
BUILD_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))

.PHONY: all modules j1939 clean deps need-deps selftests check check-all check-rt check-debug check-debug-locked demo vm \
	bench reference patches compat-build compat-drivers \
	patches-check fuzz

all: modules j1939

modules: need-deps
	$(MAKE) $(BUILD_JOBS) $(KBUILD_ARGS) W=1 modules

clean:
	-$(MAKE) $(KBUILD_ARGS) clean
	-$(MAKE) -C $(KDIR) M=$(FAKE_CHIP) clean
	-$(MAKE) -C $(KDIR) M=$(MODEL_CHIP) clean
	-$(MAKE) -C $(KDIR) M=$(PORT_WATCH) clean
	$(MAKE) -C $(SELFTESTS) clean
	rm -rf $(BUILD)

deps:
	$(SRC)/scripts/can-deps.sh install

need-deps:
	@$(SRC)/scripts/can-deps.sh check || $(SRC)/scripts/can-deps.sh install

# sja1000_fake.ko is a test module (an SJA1000 made of a register array)
# that sja1000_errors.sh loads from the tree; it is not installed.
FAKE_CHIP := $(SRC)/$(SELFTESTS)/sja1000_fake
# mcp2515_model.ko: MCP2515 chips on a software SPI controller (mcp251x.sh).
MODEL_CHIP := $(SRC)/$(SELFTESTS)/mcp2515_model
# port_watch.ko: a log of I/O port writes (sja1000_kvaser.sh).
PORT_WATCH := $(SRC)/$(SELFTESTS)/port_watch

selftests: modules
	$(MAKE) $(BUILD_JOBS) -C $(SELFTESTS) KSFT_SRC=$$($(SRC)/scripts/can-deps.sh ksft)
	$(MAKE) $(BUILD_JOBS) -C $(KDIR) M=$(FAKE_CHIP) NOSTDINC_FLAGS="$(CAN_INCLUDES)" \
		KBUILD_EXTRA_SYMBOLS=$(SRC)/Module.symvers W=1 modules
	$(MAKE) $(BUILD_JOBS) -C $(KDIR) M=$(MODEL_CHIP) W=1 modules
	$(MAKE) $(BUILD_JOBS) -C $(KDIR) M=$(PORT_WATCH) W=1 modules

# Two CTU CAN FD cards of two channels each, for mainline's ctucanfd on
# our can-dev (ctucanfd.sh): the first channels share one bus, the
# second ones another (QEMU wants both of a card's channels on a bus).
CTUCAN_CARDS := -object can-bus,id=b2 -object can-bus,id=b3 \
	-device ctucan_pci,canbus0=b2,canbus1=b3 -device ctucan_pci,canbus0=b2,canbus1=b3

# Two SJA1000 cards (QEMU's Kvaser PCIcan model) on one emulated CAN bus,
# and a dual-channel PCM-3680 on another, for the device layer and
# driver tests.
CAN_CARDS := -object can-bus,id=b0 -device kvaser_pci,canbus=b0 \
	-device kvaser_pci,canbus=b0 \
	-object can-bus,id=b1 -device pcm3680_pci,canbus0=b1,canbus1=b1 \
	$(CTUCAN_CARDS)

# "make check T='can_vcan bcm_tx'" runs only the named tests, in one
# guest, after the compat build. The whole suite is split into
# CHECK_JOBS guests (one per CPU: the tests are CPU-bound under TCG, and
# four guests on two cores took as long as two) that run side by side,
# balanced by the tests' durations (run_parallel.sh); the tests that
# need the compat build wait for it in the last guest while the others
# run. Each test has its own timeout (run_tests.sh), so the guest's is
# only a guard against a hang outside any test.
CHECK_JOBS ?= $(shell nproc)
COMPAT_BUILD = $(SRC)/scripts/can-compat-drivers.sh $(KDIR) $(SRC) $(COMPAT)
check: modules j1939 selftests
ifeq ($(T),)
	@case "$(KVER)" in \
	6.1.*) compat='$(COMPAT_BUILD)' ;; \
	*) $(MAKE) --no-print-directory compat-build; compat= ;; \
	esac; \
	$(VMHARNESS)/run_parallel.sh --jobs $(CHECK_JOBS) $${compat:+--compat "$$compat"} \
		--kver $(KVER) --timeout 2700 --qemu-args "$(CAN_CARDS)"
else
	@$(MAKE) --no-print-directory compat-build
	$(VMHARNESS)/vmtest.sh --kver $(KVER) --timeout 2700 --qemu-args "$(CAN_CARDS)" -- \
		$(SRC)/$(VMHARNESS)/run_tests.sh $(T)
endif

# The kernel matrix, one kernel after the other: 6.1, 6.12, 6.12-rt (see
# "can-deps.sh matrix"; the 6.12 packages are installed here only, plain
# "make check" never needs them). Kbuild keeps a module's objects next to
# its sources (M=), for one kernel at a time, so each kernel starts from
# "make clean"; the tree is left built for the last one. Every kernel runs
# even if an earlier one fails, and the last lines say which failed.
check-all:
	@$(SRC)/scripts/can-deps.sh install-matrix
	@failed=; for k in $$($(SRC)/scripts/can-deps.sh matrix); do \
		echo "check-all: make check KVER=$$k"; \
		$(MAKE) --no-print-directory clean KVER=$$k >/dev/null 2>&1; \
		$(MAKE) --no-print-directory check KVER=$$k || failed="$$failed $$k"; \
	done; \
	if [ -n "$$failed" ]; then echo "check-all: failed on:$$failed"; exit 1; fi; \
	echo "check-all: passed on $$($(SRC)/scripts/can-deps.sh matrix | tr '\n' ' ')"

# The suite on Debian's PREEMPT_RT kernel, which CI runs after the
# default one: its packages are installed here if missing, and the tree
# is built for it from clean and cleaned again afterwards, whatever the
# outcome, so that the next make builds for the default kernel again.
check-rt:
	@$(SRC)/scripts/can-deps.sh install-matrix
	@k=$$($(SRC)/scripts/can-deps.sh matrix | grep -e '-rt-'); \
	if [ -z "$$k" ]; then echo "check-rt: no PREEMPT_RT kernel in the matrix" >&2; exit 1; fi; \
	echo "check-rt: make check KVER=$$k"; \
	$(MAKE) --no-print-directory clean KVER=$$k >/dev/null 2>&1; \
	$(MAKE) --no-print-directory check KVER=$$k T="$(T)"; rc=$$?; \
	$(MAKE) --no-print-directory clean KVER=$$k >/dev/null 2>&1; \
	exit $$rc

demo: modules
	$(VMHARNESS)/vmtest.sh --kver $(KVER) --qemu-args "$(CAN_CARDS)" -- $(SRC)/$(SELFTESTS)/demo.sh

vm: modules
	$(VMHARNESS)/vmtest.sh --kver $(KVER) --interactive

# The debug kernel is cached under /var/cache/can-stack; see the script.
# Trees share that cache, and a guest reads its modules from it while it
# runs, so one check-debug at a time holds its lock from build to exit.
CAN_CACHE ?= /var/cache/can-stack

check-debug: selftests
	@mkdir -p $(CAN_CACHE)
	flock $(CAN_CACHE)/debug.lock $(MAKE) --no-print-directory check-debug-locked

# The build's output is checked before eval: eval of a failed command's
# empty output succeeds and would boot Debian's kernel instead. The guest
# leaves new slab objects poisoned (0x6b) instead of zeroed, so that the
# tests' receive helpers see stale heap a receive path hands out from
# inside an object, which KASAN cannot (lib/can_test.h, ct_leaks_poison).
# Without T the suite is split over CHECK_JOBS guests as for make check,
# the KUnit suites running in the first only.
CAN_POISON := slub_debug=P init_on_alloc=0 init_on_free=0
DEBUG_VM = --kernel "$$KIMG" --modroot "$$MODROOT" --kver "$$KVER" --timeout 3000 \
	--qemu-args "$(CAN_CARDS)"
check-debug-locked:
	@kernel="$$($(SRC)/scripts/can-debug-kernel.sh)" && eval "$$kernel" && \
	export VMTEST_APPEND="$(CAN_POISON)" VMTEST_MEM=2048 && \
	if [ -z "$(T)" ]; then \
		CHECK_DIR=$(BUILD)/check-debug $(VMHARNESS)/run_parallel.sh --jobs $(CHECK_JOBS) \
			--runner $(SRC)/$(VMHARNESS)/run_debug.sh --others-arg --no-kunit $(DEBUG_VM); \
	else \
		$(VMHARNESS)/vmtest.sh $(DEBUG_VM) -- $(SRC)/$(VMHARNESS)/run_debug.sh $(T); \
	fi

# The fuzzer boots the debug kernel too, so it takes the same lock.
# "make fuzz D=600 SEED=42" fuzzes for 600 s from seed 42; "make fuzz
# REPLAY=build/fuzz/run-42/repro-1.replay" replays a program it wrote.
# FUZZ_ARGS go to can_fuzz (e.g. --avoid raw-neg-ifindex). KERNEL=stock
# runs on Debian's kernel with our modules (slub_debug, no KASAN).
D ?= 300
FUZZ_CMD = env KVER=$(KVER) $(SRC)/$(SELFTESTS)/fuzz/fuzz.sh --duration $(D) \
	$(if $(SEED),--seed $(SEED)) $(if $(REPLAY),--replay $(REPLAY)) \
	--qemu-args "$(CAN_CARDS)"
fuzz: modules
ifeq ($(KERNEL),stock)
	$(FUZZ_CMD) --stock -- $(FUZZ_ARGS)
else
	@mkdir -p $(CAN_CACHE)
	flock $(CAN_CACHE)/debug.lock $(FUZZ_CMD) -- $(FUZZ_ARGS)
endif

# Guest time follows executed instructions under -icount, so the numbers
# repeat from run to run; both stacks are measured in the same boot. With
# sleep=off an idle guest's clock jumps to its next timer instead of
# following the host's, so timer-driven figures (BCM jitter) repeat too.
bench: modules selftests
	$(VMHARNESS)/vmtest.sh --kver $(KVER) --keep-mainline --timeout 1800 \
		--qemu-args "-icount shift=0,sleep=off" -- $(SRC)/$(SELFTESTS)/bench.sh $(B)

# Debian's whole CAN stack (can, can-raw, can-dev, sja1000, kvaser_pci,
# mcp251x) in place of ours, on the same QEMU cards and MCP2515 model,
# running our driver test scripts: which checks mainline passes. The
# guest gets mainline's modules from --keep-mainline; see the script.
reference: modules selftests
	$(VMHARNESS)/vmtest.sh --kver $(KVER) --keep-mainline --timeout 1800 \
		--qemu-args "$(CAN_CARDS)" -- $(SRC)/$(SELFTESTS)/reference.sh $(R)

# Mainline 6.1's CAN drivers built unmodified from linux-source-6.1 on our
# headers and can-dev (can.txt 8.x). "make check" builds them for
# ctucanfd.sh; "make compat-drivers" also runs the SJA1000 and MCP2515
# scripts with mainline's drivers in place of ours. Only Linux 6.1's
# kernel API fits those sources.
COMPAT := $(BUILD)/compat
compat-build: modules
	@case "$(KVER)" in \
	6.1.*) $(COMPAT_BUILD) ;; \
	*) echo "compat-drivers: mainline 6.1's drivers do not build for $(KVER)"; \
	   rm -rf $(COMPAT) ;; \
	esac

# Mainline 6.1's SAE J1939 alone, on our core, for "make install" (which
# puts it in place of the kernel's can-j1939: that one cannot load on our
# core, see can.txt 2.1). Part of "make"; incremental after the first run.
# For another kernel there is none, and install says what that costs.
J1939_BUILD := $(BUILD)/j1939
j1939: modules
	+@case "$(KVER)" in \
	6.1.*) $(SRC)/scripts/can-compat-drivers.sh --j1939 $(KDIR) $(SRC) $(J1939_BUILD) ;; \
	*) echo "j1939: mainline 6.1's can-j1939 does not build for $(KVER)"; \
	   rm -rf $(J1939_BUILD) ;; \
	esac

compat-drivers: compat-build selftests
	$(VMHARNESS)/vmtest.sh --kver $(KVER) --timeout 1800 --qemu-args "$(CAN_CARDS)" -- \
		$(SRC)/$(SELFTESTS)/reference.sh --compat $(R)

patches: need-deps
	$(SRC)/scripts/can-patches.py --checkpatch --kernel-doc

# Not part of "make check": it builds each prefix of the series in
# /var/cache/can-stack/patches-obj (see the script and can.txt).
patches-check: need-deps
	$(SRC)/scripts/can-patches.py --checkpatch --kernel-doc --build

# ---- Installing: make install / uninstall / dkms-deb ----
#
# The protocol layer is what "make install" puts in updates/ by default:
# every protocol module we build belongs in this list. Our device layer and
# drivers replace Debian's only on request (DRIVERS=1): Debian's can-dev
# and drivers run on our core as they are.
CAN_INSTALL_PROTOCOLS := net/can/can.ko net/can/raw/can-raw.ko net/can/bcm/can-bcm.ko \
	net/can/isotp/can-isotp.ko \
	net/can/gw/can-gw.ko
CAN_INSTALL_DRIVERS := drivers/net/can/dev/can-dev.ko drivers/net/can/vcan.ko \
	drivers/net/can/vxcan.ko \
	drivers/net/can/sja1000/sja1000.ko drivers/net/can/sja1000/kvaser_pci.ko \
	drivers/net/can/sja1000/pcm3680_pci.ko drivers/net/can/spi/mcp251x.ko \
	drivers/net/can/vbus/can-vbus.ko
CAN_INSTALL = $(CAN_INSTALL_PROTOCOLS) $(if $(filter 1,$(DRIVERS)),$(CAN_INSTALL_DRIVERS))
# Mainline's SAE J1939, built on our headers by "make" (6.1 only),
# replaces the kernel's: the kernel's cannot load on our core, and with
# ours installed nothing is lost and FORCE=1 is not needed. Install takes
# it whenever "make" built it; J1939=1 insists on it (an error if it is
# missing), J1939=0 leaves it out. The DKMS package does not build it.
CAN_J1939_KO := $(J1939_BUILD)/modules/can-j1939.ko
CAN_INSTALL_J1939 := $(CAN_J1939_KO)=net/can/j1939/can-j1939.ko
CAN_WITH_J1939 = $(if $(filter 1,$(J1939)),1,$(if $(filter 0,$(J1939)),,$(if $(wildcard \
	$(CAN_J1939_KO)),1)))
CAN_INSTALL_FLAGS = --kver $(KVER) $(if $(DESTDIR),--destdir $(DESTDIR)) \
	$(if $(filter 1,$(FORCE)),--force)

.PHONY: install uninstall dkms-deb dkms-build dkms-clean install-test-prep

# Like the kernel's modules_install, install does not build: run "make"
# as yourself first, then "make install" as root. What it refuses, and
# how it stays whole if interrupted: scripts/can-install.sh.
install:
	$(SRC)/scripts/can-install.sh $(CAN_INSTALL_FLAGS) install $(CAN_INSTALL) \
		$(if $(CAN_WITH_J1939),$(CAN_INSTALL_J1939))

uninstall:
	$(SRC)/scripts/can-install.sh $(CAN_INSTALL_FLAGS) uninstall

# build/can-stack-dkms_VERSION_all.deb: the source in /usr/src and a
# dkms.conf that builds CAN_INSTALL (so DRIVERS=1 applies) for each kernel.
dkms-deb:
	$(SRC)/scripts/dkms/can-dkms-deb.sh $(BUILD) $(CAN_INSTALL)

# What dkms.conf runs in its copy of the source, for the kernel DKMS names:
# it refuses, before compiling, a kernel that "make install" put the
# stack in (two builds side by side), and the build fails where "make
# install" would refuse.
dkms-build:
	$(SRC)/scripts/can-install.sh $(CAN_INSTALL_FLAGS) dkms-check
	$(MAKE) $(KBUILD_ARGS) modules
	$(SRC)/scripts/can-install.sh $(CAN_INSTALL_FLAGS) check $(CAN_INSTALL)

dkms-clean:
	$(MAKE) $(KBUILD_ARGS) clean

# can_install.sh installs into a copy of Debian's CAN modules, which the
# guest hides, and reads the .deb: both are made here, on the host.
check: install-test-prep dkms-deb

install-test-prep: need-deps
	$(SRC)/$(SELFTESTS)/can_install.sh --prepare $(KVER) $(BUILD)/install-test
