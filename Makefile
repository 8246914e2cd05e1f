# pfbench — the one entry point.
#
#   make              build bin/pfbench
#   make test         build and run the Check suites (alias: make check)
#   make test SANITIZE=1   the same under AddressSanitizer + UBSan (separate build dir)
#   make experiments  run the calibration, then the validation, volume, stability, drop, scaling, snapshots,
#                     properties and rheology experiments into data/
#                     (JOBS=N: each experiment's runs N at a time on the local pool)
#                     (QUICK=1: the reduced versions into data/quick/); reruns resume
#   make figures      draw every figure from the experiments into plots/out/ (PDF, PNG)
#   make paper        everything above, the generated tables, then paper/paper.pdf
#                     (QUICK=1: from the reduced experiments, paper/paper-quick.pdf)
#   make reference    the continuum reference: Gerris solves the validation cases for the reference
#                     fluid at three levels into data/reference/ (committed; JOBS=N runs at once;
#                     QUICK=1: the coarsest level of each case into data/quick/reference)
#   make bench        time bench/cases.tsv with hyperfine into data/bench/ (QUICK=1: small cases)
#   make bench-compare BASE=<rev>   the same against BASE, ratio per case; fails on a regression
#   make fuzz         build the libFuzzer targets (tests/fuzz/) with clang into build/fuzz/ and run
#                     each for FUZZ_TIME seconds (default 60) or FUZZ_RUNS executions; fails on a crash
#   make clean        remove build products
#
# Variables: CC (gcc or clang), CFLAGS (appended last), SANITIZE=1, V=1 (show commands).
# Every target that needs Debian packages runs scripts/deps.sh first (idempotent).

CC ?= cc
ifeq ($(CC),cc)
CC := gcc
endif

SANITIZE ?= 0
# FUZZ=1 (set by make fuzz): the library for the fuzz targets, clang with libFuzzer's
# coverage and the sanitizers, in its own build directory
FUZZ ?= 0
ifeq ($(FUZZ),1)
CC := clang
BUILD ?= build/fuzz
OPT := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(SANITIZE),1)
BUILD ?= build/san
OPT := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD ?= build/$(notdir $(CC))
OPT := -O2 -g
# -O3 where it pays: GCC 12 if-converts and vectorises the masked neighbour loops
# of the grid and of muller only at -O3 (the muller dam break, 60k particles:
# 1.27x faster); elsewhere -O3 made things slower (miller_pearce 2D: 540 -> 794
# ns per particle-step).  No -ffast-math anywhere: results are as exact as at -O2.
HOT_SRC := core/grid.c core/grid_search.c core/grid_filter.c solvers/muller.c
$(HOT_SRC:%.c=$(BUILD)/%.o): OPT := -O3 -g
endif

# OpenMP for the solvers' parallel loops (results never depend on the thread count);
# OPENMP= builds without it
OPENMP ?= -fopenmp
WARN := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Werror
# deferred (=): pkg-config runs after scripts/deps.sh has installed the packages
PKGS := inih check gsl qhull_r
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS = $(shell pkg-config --libs inih gsl qhull_r)
CHECK_LIBS = $(shell pkg-config --libs check)
# -fno-math-errno: sqrt and friends may vectorise (nothing reads errno after math)
MATHFLAGS := -fno-math-errno
ALL_CFLAGS = -std=c11 $(OPT) $(MATHFLAGS) $(OPENMP) $(WARN) -D_POSIX_C_SOURCE=200809L -I$(BUILD) $(PKG_CFLAGS) -MMD -MP $(CFLAGS)
LDLIBS_ALL = $(PKG_LIBS) -lm

ifeq ($(V),1)
Q :=
else
Q := @
endif

BIN := bin/pfbench
ifeq ($(SANITIZE),1)
BIN := bin/pfbench-san
endif
ifneq ($(BUILD),build/$(notdir $(CC)))
ifneq ($(SANITIZE)$(FUZZ),10)
BIN := $(BUILD)/pfbench
endif
endif

LIB_SRC := $(wildcard core/*.c) $(wildcard solvers/*.c) $(wildcard experiments/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(BUILD)/cli/main.o $(BUILD)/cli/bench.o $(BUILD)/cli/pool.o
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
DEPS_STAMP := build/.deps-build

.PHONY: all test check clean deps reference experiments figures paper paper-deps bench bench-compare bench-history fuzz fuzz-build FORCE
.DEFAULT_GOAL := all

all: $(BIN)

deps: $(DEPS_STAMP)

$(DEPS_STAMP): scripts/deps.sh
	$(Q)bash scripts/deps.sh build
	$(Q)mkdir -p $(dir $@) && touch $@

# provenance: the commit is the last one that changed the code (CODE_DIRS), so a
# commit touching only the paper, the plots, the README or the tests keeps every
# experiment run current (and checking out that commit gives the same code);
# uncommitted changes to the code add a hash of them, so runs made from different
# code never look current.  Rewritten only when the commit or flags change.
CODE_DIRS := core solvers experiments cli Makefile
$(BUILD)/version_info.h: FORCE | $(DEPS_STAMP)
	$(Q)mkdir -p $(dir $@)
	$(Q)c=$$(git log -1 --format=%h --abbrev=12 -- $(CODE_DIRS) 2>/dev/null); c=$${c:-unknown}; \
	if [ "$$c" != unknown ] && [ -n "$$(git status --porcelain -- $(CODE_DIRS) 2>/dev/null)" ]; then \
	  d=$$( (git diff HEAD -- $(CODE_DIRS); git ls-files -o --exclude-standard -z -- $(CODE_DIRS) | xargs -0 cat 2>/dev/null) | sha1sum | cut -c1-8); \
	  c="$$c-dirty-$$d"; fi; \
	printf '#define PFB_COMMIT "%s"\n#define PFB_CFLAGS "%s"\n' "$$c" "$(strip $(subst ",,$(OPT) $(MATHFLAGS) $(OPENMP) $(WARN) $(CFLAGS)))$(if $(filter 0,$(SANITIZE)), (-O3 for $(HOT_SRC)))" > $@.new; \
	if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@; fi

$(BUILD)/core/version.o: $(BUILD)/version_info.h

# the named material presets compiled in (experiments/presets.h): scenes/NAME.ini
# as C string literals
PRESET_NAMES := calibrated paper
$(BUILD)/presets_gen.h: $(PRESET_NAMES:%=scenes/%.ini)
	$(Q)mkdir -p $(dir $@)
	$(Q)for n in $(PRESET_NAMES); do \
	  printf '#define PFB_PRESET_%s \\\n' "$$(echo $$n | tr a-z A-Z)"; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n" \\/' scenes/$$n.ini; \
	  printf '    ""\n'; \
	done > $@.new && mv $@.new $@

$(BUILD)/experiments/presets.o: $(BUILD)/presets_gen.h

# the validation's reference data, compiled in the same way (a run from any
# directory validates against the committed data)
$(BUILD)/reference_gen.h: data/reference/martin_moyce_1952.csv
	$(Q)mkdir -p $(dir $@)
	$(Q){ printf '#define PFB_REF_MARTIN_MOYCE \\\n'; \
	  sed -e 's/^/    "/' -e 's/$$/\\n" \\/' $<; printf '    ""\n'; } > $@.new && mv $@.new $@

$(BUILD)/experiments/validation.o: $(BUILD)/reference_gen.h

$(BUILD)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -DPFB_BIN='"$(abspath $(BIN))"' -c $< -o $@

$(BIN): $(LIB_OBJ) $(CLI_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDLIBS_ALL)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $^ -o $@ $(CHECK_LIBS) $(LDLIBS_ALL)

# Each suite prints Check's summary line and its wall seconds (CI's budget is
# spent here); the run fails if any suite fails.  SUITES="test_a test_b" runs only
# those, EXCEPT="test_c" all but those (CI splits the sanitizer suites over its two
# parallel jobs with them).
SUITES ?=
EXCEPT ?=
SUITE_NAMES := $(TEST_SRC:tests/%.c=%)
$(foreach s,$(SUITES) $(EXCEPT),$(if $(filter $(s),$(SUITE_NAMES)),,$(error '$(s)' is not a test suite; valid: $(SUITE_NAMES))))
TEST_RUN := $(filter-out $(EXCEPT:%=$(BUILD)/tests/%),$(if $(strip $(SUITES)),$(SUITES:%=$(BUILD)/tests/%),$(TEST_BIN)))
# test_gerris runs Gerris (experiments/gerris.h): the reference group of deps.sh
test: $(TEST_RUN) $(BIN)
	$(Q)bash scripts/deps.sh reference
	$(Q)pass=0; fail=0; for t in $(TEST_RUN); do \
	  echo "== $$(basename $$t)"; t0=$$(date +%s); \
	  if CK_DEFAULT_TIMEOUT=$${CK_DEFAULT_TIMEOUT:-1200} $$t; then pass=$$((pass+1)); else fail=$$((fail+1)); fi; \
	  echo "   ($$(( $$(date +%s) - t0 )) s)"; \
	done; \
	echo "suites: $$pass passed, $$fail failed"; \
	test $$fail -eq 0

check: test

# ---- fuzzing (issue 35) ------------------------------------------------------------
# One libFuzzer target per parser, tests/fuzz/<target>.c, each defining
# LLVMFuzzerTestOneInput: ini (INI files and --set), cli (pfbench run's and exp's
# command lines, parsed only: cli/main.c built with -DPFB_FUZZ_CLI), csv (series.csv),
# meta (run.meta), checkpoint (checkpoint.pfb).  make fuzz builds them with clang
# (FUZZ=1: the library in build/fuzz with -fsanitize=fuzzer-no-link,address,undefined)
# and runs each, one process, from its committed seeds (tests/fuzz/corpus/<target>/)
# and regressions (tests/fuzz/regress/<target>/); what it finds goes to
# build/fuzz/corpus/<target>/ (never into the committed corpus), a crashing input
# to build/fuzz/crashes/<target>/.  tests/test_fuzz.c replays the committed files
# through the same targets, built with CC, in make test.
FUZZ_TARGETS ?= ini cli csv meta checkpoint
FUZZ_TIME ?= 60
FUZZ_RUNS ?=
FUZZ_NAMES := ini cli csv meta checkpoint
$(foreach t,$(FUZZ_TARGETS),$(if $(filter $(t),$(FUZZ_NAMES)),,$(error FUZZ_TARGETS: '$(t)' is not a fuzz target; valid: $(FUZZ_NAMES))))
ifeq ($(shell echo '$(FUZZ_TIME)' | grep -Ex '[1-9][0-9]*'),)
$(error FUZZ_TIME is '$(FUZZ_TIME)'; valid: seconds per target, 1 or more)
endif
ifneq ($(FUZZ_RUNS),)
ifeq ($(shell echo '$(FUZZ_RUNS)' | grep -Ex '[1-9][0-9]*'),)
$(error FUZZ_RUNS is '$(FUZZ_RUNS)'; valid: executions per target, 1 or more)
endif
endif
# the command line's parser without main and without running anything, with the
# other command objects it calls
CLI_FUZZ_OBJ := $(BUILD)/cli/main_fuzz.o $(BUILD)/cli/bench.o $(BUILD)/cli/pool.o
$(BUILD)/cli/main_fuzz.o: cli/main.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< (-DPFB_FUZZ_CLI)")
	$(Q)$(CC) $(ALL_CFLAGS) -DPFB_FUZZ_CLI -DPFB_BIN='"$(abspath $(BIN))"' -c $< -o $@

# the targets for libFuzzer (FUZZ=1)
$(BUILD)/fuzz_%: $(BUILD)/tests/fuzz/%.o $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer $^ -o $@ $(LDLIBS_ALL)
$(BUILD)/fuzz_cli: $(CLI_FUZZ_OBJ)

# the same sources for the replay (tests/test_fuzz.c), each entry renamed
$(BUILD)/tests/fuzz/%_replay.o: tests/fuzz/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< (replay)")
	$(Q)$(CC) $(ALL_CFLAGS) -DLLVMFuzzerTestOneInput=fuzz_replay_$* -c $< -o $@
$(BUILD)/tests/test_fuzz: $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/%_replay.o) $(CLI_FUZZ_OBJ)

fuzz-build: $(FUZZ_TARGETS:%=$(BUILD)/fuzz_%)

# Each target alone (libFuzzer's one process), from the seeds and regressions, new
# inputs into build/fuzz/corpus; its log in build/fuzz/<target>.log, its executions
# and their rate printed; fails once every target has run if any crashed.
fuzz:
	$(Q)bash scripts/deps.sh build clang
	$(Q)$(MAKE) --no-print-directory FUZZ=1 fuzz-build
	$(Q)fail=""; for t in $(FUZZ_TARGETS); do \
	  mkdir -p build/fuzz/corpus/$$t build/fuzz/crashes/$$t; \
	  dirs=""; for d in tests/fuzz/corpus/$$t tests/fuzz/regress/$$t; do [ -d $$d ] && dirs="$$dirs $$d"; done; \
	  dict=""; [ -f tests/fuzz/$$t.dict ] && dict="-dict=tests/fuzz/$$t.dict"; \
	  echo "== fuzz $$t ($(if $(FUZZ_RUNS),$(FUZZ_RUNS) executions,$(FUZZ_TIME) s))"; \
	  build/fuzz/fuzz_$$t build/fuzz/corpus/$$t $$dirs $$dict -print_final_stats=1 -close_fd_mask=3 \
	    $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS),-max_total_time=$(FUZZ_TIME)) -max_len=65536 -timeout=10 \
	    -rss_limit_mb=2048 -artifact_prefix=build/fuzz/crashes/$$t/ > build/fuzz/$$t.log 2>&1; rc=$$?; \
	  runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' build/fuzz/$$t.log); \
	  rate=$$(sed -n 's/^stat::average_exec_per_sec: *//p' build/fuzz/$$t.log); \
	  echo "   $${runs:-?} executions, $${rate:-?} exec/s, $$(ls build/fuzz/corpus/$$t | wc -l) inputs in build/fuzz/corpus/$$t; status $$rc"; \
	  if [ $$rc -ne 0 ]; then fail="$$fail $$t"; tail -n 40 build/fuzz/$$t.log; \
	    echo "   crashing input: $$(ls -t build/fuzz/crashes/$$t | head -n 1) in build/fuzz/crashes/$$t/"; fi; \
	done; \
	if [ -n "$$fail" ]; then echo "fuzz: crashed:$$fail (logs in build/fuzz/)"; exit 1; fi

# ---- experiments and figures ----------------------------------------------------
# QUICK=1: the reduced experiments into data/quick, their figures into plots/out/quick
# and the paper built from them as paper/paper-quick.pdf (the full one is never
# overwritten by a quick one)
QUICK ?= 0
ifeq ($(QUICK),1)
EXP_DIR := data/quick
EXP_FLAGS := --quick
FIG_DIR := plots/out/quick
PAPER_GEN := generated/quick
PAPER_JOB := paper-quick
else ifeq ($(QUICK),0)
EXP_DIR := data
EXP_FLAGS :=
FIG_DIR := plots/out
PAPER_GEN := generated
PAPER_JOB := paper
else
$(error QUICK is '$(QUICK)'; valid: 0 or 1)
endif
# calibrate first: the others run the fluid it has just calibrated (its
# calibrated.ini as --preset), so every number follows from this tree's calibration
EXPERIMENTS := validation volume properties stability drop snapshots rheology scaling
FIGURES := $(basename $(notdir $(filter-out plots/style.gp,$(wildcard plots/*.gp))))
# figures and the paper carry the date of the last commit, not the build's
EPOCH = export SOURCE_DATE_EPOCH=$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || echo 0)}

# The experiments after the calibration are independent (each its own runs and
# files, results independent of the thread count): EXP_JOBS of them at once (most
# runs are small 2D ones that keep one core busy), OpenMP threads waiting
# passively so that two jobs share the cores without spinning; the scaling
# experiment, which times 1 and 2 threads, runs alone after them.
#
# JOBS=N instead runs each experiment's runs on the local pool (pfbench exp
# --jobs N: N runs at once, each its own process with 1/N of the threads, the
# timings alone), the experiments one after another, the calibration included.
EXP_JOBS ?= 2
JOBS ?=
ifneq ($(JOBS),)
ifeq ($(shell echo '$(JOBS)' | grep -Ex '[1-9][0-9]*'),)
$(error JOBS is '$(JOBS)'; valid: a number of runs at once, 1 or more)
endif
EXP_JOBS := 1
EXP_FLAGS += --jobs $(JOBS)
endif
EXP_PARALLEL := $(filter-out scaling,$(EXPERIMENTS))
EXP_TARGETS := $(EXPERIMENTS:%=exp-%)
.PHONY: $(EXP_TARGETS)
experiments: bin/pfbench
	$(Q)OMP_WAIT_POLICY=$${OMP_WAIT_POLICY:-passive} bin/pfbench exp calibrate $(EXP_FLAGS) --out $(EXP_DIR)/calibrate
	$(Q)$(MAKE) --no-print-directory -j$(EXP_JOBS) $(EXP_PARALLEL:%=exp-%)
	$(Q)$(MAKE) --no-print-directory exp-scaling

# VAL_SEEDS: the validation's hydrostatic pool, runs per resolution (pfbench exp
# validation --seeds; their spread is the case's error bar)
VAL_SEEDS ?= 1
ifeq ($(shell echo '$(VAL_SEEDS)' | grep -Ex '[1-9][0-9]?'),)
$(error VAL_SEEDS is '$(VAL_SEEDS)'; valid: 1 to 64)
endif
$(EXP_TARGETS): exp-%: bin/pfbench
	$(Q)OMP_WAIT_POLICY=$${OMP_WAIT_POLICY:-passive} bin/pfbench exp $* $(EXP_FLAGS) \
	  $(if $(filter validation,$*),--seeds $(VAL_SEEDS)) \
	  --preset $(EXP_DIR)/calibrate/calibrated.ini --out $(EXP_DIR)/$*

figures: experiments
	$(Q)bash scripts/deps.sh figures
	$(Q)mkdir -p $(FIG_DIR)
	$(Q)$(EPOCH); \
	for f in $(FIGURES); do \
	  echo "  GNUPLOT $$f"; \
	  gnuplot -e "datadir='$(EXP_DIR)'; outdir='$(FIG_DIR)'; name='$$f'" plots/$$f.gp || exit 1; \
	done

paper-deps:
	$(Q)bash scripts/deps.sh figures paper

# the paper (issue 9): experiments that are not current, figures, generated tables
# (scripts/tables.sh), then LaTeX (scripts/paper.sh: fails on an unresolved reference
# or citation); paper/$(PAPER_JOB).pdf
# (TeX Live is installed first, so a missing package shows before an hour of runs)
paper: paper-deps figures
	$(Q)bash scripts/tables.sh $(EXP_DIR) paper/$(PAPER_GEN) $(QUICK)
	$(Q)$(EPOCH); bash scripts/paper.sh $(PAPER_JOB) $(PAPER_GEN) $(FIG_DIR)

# the continuum reference (issue 46): Gerris runs, committed under data/reference
# (make paper reads them and never runs Gerris); QUICK=1 into data/quick/reference
REF_DIR := $(if $(filter 1,$(QUICK)),data/quick/reference,data/reference)
reference: bin/pfbench
	$(Q)bash scripts/deps.sh reference
	$(Q)bin/pfbench exp reference $(if $(filter 1,$(QUICK)),--quick) $(if $(JOBS),--jobs $(JOBS)) --out $(REF_DIR)

# ---- benchmarks (issue 8): never part of make test ------------------------------
# make bench [QUICK=1]            hyperfine over bench/cases.tsv into data/bench/
# make bench-compare BASE=<rev>   this tree against BASE (fails on a regression)
bench: bin/pfbench
	$(Q)bash scripts/deps.sh bench
	$(Q)bash bench/run.sh $(if $(filter 1,$(QUICK)),--quick)

# make bench-history [REVS=A..B]  each commit's quick figures (instructions and
#                                 time) appended to bench/history.csv, drawn into data/bench/
REVS ?= HEAD~20..HEAD
bench-history:
	$(Q)bash scripts/deps.sh bench figures
	$(Q)bash bench/history.sh --revs '$(REVS)'

bench-compare:
	$(Q)test -n "$(BASE)" || { echo "make bench-compare: BASE is missing; valid: BASE=<commit>, e.g. BASE=HEAD~1" >&2; exit 1; }
	$(Q)bash scripts/deps.sh bench
	$(Q)bash bench/compare.sh $(BASE) $(if $(filter 1,$(QUICK)),--quick) $(if $(FAIL_ON),--fail-on $(FAIL_ON))

clean:
	rm -rf build bin

FORCE:

.SECONDARY:

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_BIN:=.d) $(CLI_FUZZ_OBJ:.o=.d) $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/%.d) \
  $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/%_replay.d)
