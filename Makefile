# bisectd: one plain GNU Makefile.
#
#   make                 build the daemon, the client and the agent
#   make check           install missing test packages (root), run every test
#   make check-kernel    the kernel tests: build, boot (qemu, TCG) and bisect
#                        Debian's linux-source-6.1 (docs/kernel.md)
#   make demo            bisect a generated regression with the embedded default
#   make bench           benchmarks, each against a baseline measured in the same run
#   make fuzz            run each libFuzzer target for FUZZ_TIME seconds
#   make install         PREFIX=/usr/local DESTDIR=
#
#   DEVELOPER=1          -Wall -Wextra -Werror
#   SANITIZE=address,undefined
#                        instrumented build, kept apart in build-san/

CC		?= cc
CFLAGS		?= -O2 -g
PREFIX		?= /usr/local
DESTDIR		?=
PKGS		 = libgit2 libssh2 sqlite3 yaml-0.1 jansson gsl libcurl libcrypto
FUZZ_TIME	?= 20
PROVE_JOBS	?= 2

ifneq ($(SANITIZE),)
BUILD		?= build-san
SAN_FLAGS	 = -fsanitize=$(SANITIZE) -fno-omit-frame-pointer \
		   -fno-sanitize-recover=all
else
BUILD		?= build
SAN_FLAGS	 =
endif

WARN		 = -Wall -Wformat=2 -Wno-format-nonliteral
ifeq ($(DEVELOPER),1)
WARN		+= -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare \
		   -Wno-missing-field-initializers
endif

PKG_CFLAGS	:= $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS	:= $(shell pkg-config --libs $(PKGS) 2>/dev/null)

ALL_CFLAGS	 = -std=gnu11 -I. -I$(BUILD) $(WARN) $(CFLAGS) $(SAN_FLAGS) \
		   $(PKG_CFLAGS) -D_GNU_SOURCE -MMD -MP
ALL_LDFLAGS	 = $(LDFLAGS) $(SAN_FLAGS)
LIBS		 = $(PKG_LIBS) -lm

UTIL_SRC	 = $(wildcard util/*.c)
STATS_SRC	 = $(wildcard stats/*.c)
JOBS_SRC	 = $(wildcard jobs/*.c)
SCHEMA_SRC	 = $(wildcard schema/*.c)
# The agent program: its main and the agent-*.c files only it links.
AGENT_SRC	 = agents/bisect-agent.c $(wildcard agents/agent-*.c)
AGENTS_SRC	 = $(filter-out $(AGENT_SRC),$(wildcard agents/*.c))
BISECTD_SRC	 = $(filter-out bisectd/bisectd.c bisectd/bisectctl.c,\
		   $(wildcard bisectd/*.c))
MIGRATIONS	 = $(sort $(wildcard schema/migrations/*.sql))
PROGRAM_FILES	 = $(sort $(wildcard jobs/library/programs/*.yaml))

obj		 = $(patsubst %.c,$(BUILD)/%.o,$(1))

LIB_UTIL	 = $(BUILD)/libutil.a
LIB_STATS	 = $(BUILD)/libstats.a
LIB_JOBS	 = $(BUILD)/libjobs.a
LIB_SCHEMA	 = $(BUILD)/libschema.a
LIB_AGENTS	 = $(BUILD)/libagents.a
LIB_BISECTD	 = $(BUILD)/libbisectd.a
# Link order follows the dependency arrows of DESIGN §2.
ALL_LIBS	 = $(LIB_BISECTD) $(LIB_AGENTS) $(LIB_JOBS) $(LIB_SCHEMA) \
		   $(LIB_STATS) $(LIB_UTIL)

BIN		 = $(BUILD)/bin
PROGRAMS	 = $(if $(wildcard bisectd/bisectd.c),$(BIN)/bisectd) \
		   $(if $(wildcard bisectd/bisectctl.c),$(BIN)/bisectctl) \
		   $(if $(wildcard agents/bisect-agent.c),$(BIN)/bisect-agent)

UNIT_SRC	 = $(wildcard tests/unit/test-*.c)
UNIT_BIN	 = $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
# bench/sim-*.c are the parts of bisect-sim, not programs of their own.
BISECT_SIM_SRC	 = $(wildcard bench/sim-*.c)
BENCH_SRC	 = $(filter-out $(BISECT_SIM_SRC),$(wildcard bench/*.c))
BENCH_BIN	 = $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))
SHELL_TESTS	 = $(sort $(wildcard tests/t[0-9][0-9][0-9][0-9]-*.sh))
KERNEL_TESTS	 = $(sort $(wildcard tests/t07[0-9][0-9]-*.sh))

.PHONY: FORCE all check test unit-test shell-test demo bench fuzz install clean deps \
	deps-demo check-kernel test-kernel deps-kernel
.DELETE_ON_ERROR:
# Keep the objects of tests and benchmarks, which make would otherwise
# delete as intermediates and rebuild at the next make.
.SECONDARY:

all: $(PROGRAMS) $(UNIT_BIN) $(BENCH_BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/schema/migrations.c: $(MIGRATIONS) tools/embed-sql.sh
	@mkdir -p $(dir $@)
	sh tools/embed-sql.sh $(MIGRATIONS) > $@

$(BUILD)/schema/migrations.o: $(BUILD)/schema/migrations.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The adapter files, compiled in (docs/jobs.md, "Adapter files").
$(BUILD)/jobs/programs.c: $(PROGRAM_FILES) tools/embed-programs.sh
	@mkdir -p $(dir $@)
	sh tools/embed-programs.sh $(PROGRAM_FILES) > $@

$(BUILD)/jobs/programs.o: $(BUILD)/jobs/programs.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# An archive is also rebuilt when its list of sources changes, so that a
# removed file does not linger in it.
define srclist
$(BUILD)/$(1).srcs: FORCE
	@mkdir -p $$(dir $$@)
	@printf '%s\n' $(2) | cmp -s - $$@ || printf '%s\n' $(2) >$$@
endef
$(eval $(call srclist,util,$(UTIL_SRC)))
$(eval $(call srclist,stats,$(STATS_SRC)))
$(eval $(call srclist,jobs,$(JOBS_SRC)))
$(eval $(call srclist,schema,$(SCHEMA_SRC)))
$(eval $(call srclist,agents,$(AGENTS_SRC)))
$(eval $(call srclist,bisectd,$(BISECTD_SRC)))

$(LIB_UTIL): $(call obj,$(UTIL_SRC)) $(BUILD)/util.srcs
$(LIB_STATS): $(call obj,$(STATS_SRC)) $(BUILD)/stats.srcs
$(LIB_JOBS): $(call obj,$(JOBS_SRC)) $(BUILD)/jobs/programs.o \
		$(BUILD)/jobs.srcs
$(LIB_SCHEMA): $(call obj,$(SCHEMA_SRC)) $(BUILD)/schema/migrations.o \
		$(BUILD)/schema.srcs
$(LIB_AGENTS): $(call obj,$(AGENTS_SRC)) $(BUILD)/agents.srcs
$(LIB_BISECTD): $(call obj,$(BISECTD_SRC)) $(BUILD)/bisectd.srcs

$(BUILD)/lib%.a:
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $(filter %.o,$^)

FORCE:

$(BIN)/bisectd: $(BUILD)/bisectd/bisectd.o $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BIN)/bisectctl: $(BUILD)/bisectd/bisectctl.o $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# agents/ and jobs/ include nothing of stats/: the agent goes without it.
$(BIN)/bisect-agent: $(call obj,$(AGENT_SRC)) $(LIB_AGENTS) $(LIB_JOBS) \
		$(LIB_UTIL)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/bench/bisect-sim: $(BUILD)/bench/bisect-sim.o \
		$(call obj,$(BISECT_SIM_SRC)) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# The README's two commands. Each first installs the Debian packages it
# needs (as root, saying what it installs), then builds with a fresh make
# so that pkg-config sees the libraries it just installed.
check: deps
	@$(MAKE) --no-print-directory test

demo: deps-demo
	@$(MAKE) --no-print-directory all
	BISECTD_BUILD=$(abspath $(BUILD)) sh tools/demo.sh

deps:
	@sh tools/install-deps check

deps-demo:
	@sh tools/install-deps demo

check-kernel: deps-kernel
	@$(MAKE) --no-print-directory test-kernel

deps-kernel:
	@sh tools/install-deps kernel

test-kernel: all
	BISECTD_BUILD=$(abspath $(BUILD)) BISECTD_SRC=$(CURDIR) \
		BISECTD_KERNEL_TEST=1 \
		BISECTD_KERNEL_FIGURES=$(abspath $(BUILD))/kernel-figures.txt \
		prove -v --exec '' $(KERNEL_TESTS)

test: all
	BISECTD_BUILD=$(abspath $(BUILD)) BISECTD_SRC=$(CURDIR) \
		prove -j$(PROVE_JOBS) --exec '' $(UNIT_BIN) $(SHELL_TESTS)

unit-test: all
	prove --exec '' $(UNIT_BIN)

bench: all
	BISECTD_BUILD=$(abspath $(BUILD)) BISECTD_SRC=$(CURDIR) sh bench/run.sh

FUZZ_SRC	 = $(wildcard tests/fuzz/fuzz-*.c)
FUZZ_LIB_SRC	 = $(UTIL_SRC) $(STATS_SRC) $(JOBS_SRC) $(AGENTS_SRC)
FUZZ_BIN	 = $(patsubst tests/fuzz/%.c,build-fuzz/%,$(FUZZ_SRC))

build-fuzz/programs.c: $(PROGRAM_FILES) tools/embed-programs.sh
	@mkdir -p $(dir $@)
	sh tools/embed-programs.sh $(PROGRAM_FILES) > $@

build-fuzz/%: tests/fuzz/%.c $(FUZZ_LIB_SRC) build-fuzz/programs.c
	@mkdir -p $(dir $@)
	clang -std=gnu11 -I. -D_GNU_SOURCE -g -O1 \
		-fsanitize=fuzzer,address,undefined $(PKG_CFLAGS) \
		-o $@ $< $(FUZZ_LIB_SRC) build-fuzz/programs.c $(LIBS)

fuzz: $(FUZZ_BIN)
	@set -e; for f in $(FUZZ_BIN); do \
		n=$$(basename $$f); mkdir -p build-fuzz/corpus/$$n; \
		echo "fuzz: $$n for $(FUZZ_TIME)s"; \
		$$f -max_total_time=$(FUZZ_TIME) -print_final_stats=1 \
			build-fuzz/corpus/$$n tests/fuzz/corpus/$$n; \
	done

install: $(PROGRAMS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/bisectd/jobs
	install -m 755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(wildcard jobs/library/*.yaml) \
		$(DESTDIR)$(PREFIX)/share/bisectd/jobs/
	install -d $(DESTDIR)$(PREFIX)/share/bisectd/programs
	install -m 644 $(PROGRAM_FILES) $(DESTDIR)$(PREFIX)/share/bisectd/programs/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man5 \
		$(DESTDIR)$(PREFIX)/share/man/man8 \
		$(DESTDIR)$(PREFIX)/lib/systemd/system \
		$(DESTDIR)$(PREFIX)/share/bisectd/examples
	install -m 644 docs/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 docs/man/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 docs/man/*.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	sed 's|@BINDIR@|$(PREFIX)/bin|' dist/bisectd.service \
		>$(DESTDIR)$(PREFIX)/lib/systemd/system/bisectd.service
	install -m 644 dist/bisectd.yaml \
		$(DESTDIR)$(PREFIX)/share/bisectd/examples/

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
