# numatile: one entry point. `make help` lists the targets.
# Sources are picked up by directory, so adding a file to a module needs no Makefile change.

PREFIX   ?= /usr/local
# BLAS=blis (default) or BLAS=openblas (see "BLAS selection" below); each BLAS builds in its own
# directory so that both builds coexist.
BLAS     ?= blis
BUILD    ?= $(if $(filter blis,$(BLAS)),build,build/$(BLAS))
CC       ?= gcc
SAN      ?=
ARCH     := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
BLIS_INC ?= /usr/include/$(ARCH)/blis-openmp

# BLAS selection: the tile kernels call BLAS/LAPACK through lib/kernels/tile/nt_blas.h, implemented
# by one backend in lib/kernels/blas/. blis: BLIS (GEMM, TRSM) + libFLAME (LAPACK tile routines, flat QR).
# openblas: Debian's OpenMP OpenBLAS and the LAPACK it bundles, linked from its own directory
# (not through the libblas.so alternative, which may point anywhere) and found there at run time.
# One backend per binary: never two BLAS libraries in one program.
OPENBLAS_DIR ?= /usr/lib/$(ARCH)/openblas-openmp
OPENBLAS_INC ?= /usr/include/$(ARCH)/openblas-openmp
OPENBLAS_LIBS := -L$(OPENBLAS_DIR) -Wl,-rpath,$(OPENBLAS_DIR) -lopenblas
OPENBLAS_FOUND := $(wildcard $(OPENBLAS_DIR)/libopenblas.so)
ifeq ($(BLAS),blis)
BLAS_SRC  := lib/kernels/blas/blis.c lib/kernels/blas/flame.c
BLAS_INC  := $(BLIS_INC)
BLAS_LIBS := -lflame -lblis
else ifeq ($(BLAS),openblas)
BLAS_SRC  := lib/kernels/blas/openblas.c
BLAS_INC  := $(OPENBLAS_INC)
BLAS_LIBS := $(OPENBLAS_LIBS)
else
$(error BLAS=$(BLAS): choose BLAS=blis or BLAS=openblas)
endif
# Which BLAS this build directory holds: building another one into it would mix objects.
BLAS_STAMP := $(BUILD)/blas-$(BLAS)

SOVERSION := 0
VERSION   := $(shell sed -n 's/^\#define NT_VERSION_STRING "\(.*\)"/\1/p' include/numatile/version.h)

WARN     := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# CFLAGS/LDFLAGS given on the command line (e.g. CFLAGS="-O1 -g") replace only the optimisation
# choice: the flags the code needs are appended with `override`.
CFLAGS   ?= -O2 -g
override CPPFLAGS += -Iinclude -D_GNU_SOURCE
override CFLAGS   += -std=c11 $(WARN) -fPIC -fopenmp
# SAN=fuzz: clang's libFuzzer coverage with ASan+UBSan, for `make fuzz` (in build/fuzz).
ifeq ($(SAN),fuzz)
override CFLAGS   += -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
                     -fno-sanitize-recover=undefined
override LDFLAGS  += -fsanitize=fuzzer,address,undefined
endif
ifeq ($(SAN),1)
override CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer \
                     -fno-sanitize-recover=undefined
override LDFLAGS  += -fsanitize=address,undefined
endif
# jansson: the machine profile's JSON file (lib/advisor/profile.c).
LDLIBS   := -lhwloc -lnuma -ljansson $(BLAS_LIBS) -lm -lpthread
override LDFLAGS  += -fopenmp

# Every .c under a module's folder, its rooms included (lib/redist/periodic/...); the BLAS
# backends (lib/kernels/blas/) only the one selected above.
rfind = $(sort $(shell find $(1) -name '*.c' 2>/dev/null))
LIB_SRC  := $(filter-out lib/kernels/blas/%,$(call rfind,core numa partition lib)) $(BLAS_SRC)
# The front end: tool/ (the numatile command), bench/scenarios (benchmarks), bench/harness
# (registry, output, statistics). The unit tests link the harness too, not the scenarios.
HARNESS_SRC := $(sort $(wildcard bench/harness/*.c))
TOOL_SRC := $(sort $(wildcard tool/*.c bench/scenarios/*.c)) $(HARNESS_SRC)
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
TOOL_OBJ := $(TOOL_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/obj/%.o)
HARNESS_OBJ := $(HARNESS_SRC:%.c=$(BUILD)/obj/%.o)

LIB_A    := $(BUILD)/lib/libnumatile.a
LIB_SO   := $(BUILD)/lib/libnumatile.so.$(VERSION)
TOOL     := $(BUILD)/bin/numatile
UNIT     := $(BUILD)/tests/unit_tests
PC       := $(BUILD)/lib/pkgconfig/numatile.pc
MANPAGE  := docs/numatile.1
# `make examples` installs here and builds docs/examples/*.c against the installed copy.
STAGE    ?= $(BUILD)/stage
EXAMPLES := redistribute plan_only hetero_gemm owner_stencil2d byom_gemm

.PHONY: all deps test test-unit micro check-style test-openblas test-vm check-asan check-valgrind \
        demo bench clean info install help docs examples check-outputs check-abi check-json fuzz \
        fuzz-build fuzz-replay

# The flat OpenBLAS peer of `bench kernels`: its own program, linked with OpenBLAS only (so the
# BLIS build can compare with it), built whenever OpenBLAS is installed.
PEER     := $(if $(OPENBLAS_FOUND),$(BUILD)/bin/flat_openblas)
PEER_OBJ := $(BUILD)/obj/bench/peers/flat_openblas.o

# The pdgemr2d peer of `bench scalapack`: an MPI program linked with ScaLAPACK only (MPI stays
# out of libnumatile), built when mpicc and Debian's OpenMPI ScaLAPACK are installed.
MPICC          ?= mpicc
SCALAPACK_LIB  ?= /usr/lib/$(ARCH)/libscalapack-openmpi.so
SCALAPACK_FOUND := $(if $(shell command -v $(MPICC) 2>/dev/null),$(wildcard $(SCALAPACK_LIB)))
MPI_PEER       := $(if $(SCALAPACK_FOUND),$(BUILD)/bin/pdgemr2d_peer)
MPI_PEER_OBJ   := $(BUILD)/obj/bench/peers/pdgemr2d.o

all: $(LIB_A) $(LIB_SO) $(TOOL) $(PC) $(PEER) $(MPI_PEER)

help:
	@echo "make deps         install the Debian packages numatile needs (idempotent)"
	@echo "make              build library (.a, .so), tool build/bin/numatile, numatile.pc"
	@echo "make test         deps + build + micro + check-style + unit tests + examples + docs"
	@echo "                  + ASan/UBSan + fuzz replay + guest tests"
	@echo "make test-unit    Criterion unit tests (and check-abi)"
	@echo "make micro        the micro benchmarks of bench/micro/ into $(BUILD)/bin/"
	@echo "make check-style  no function over 80 lines in the sources (tests aside); every"
	@echo "                  private header and source folder in docs/ARCHITECTURE.md"
	@echo "make test-mpi     libnumatile_mpi against pdgemr2d on 2, 3 and 4 MPI ranks"
	@echo "make test-openblas  build BLAS=openblas in build/openblas and run the BLAS suites there"
	@echo "make check-abi    the .so exports exactly the functions of the public headers"
	@echo "make check-json   every --json output against docs/json.schema.json; README and"
	@echo "                  lab commands run"
	@echo "make check-asan   unit tests built with ASan+UBSan (in build/asan)"
	@echo "make check-valgrind  unit tests under valgrind memcheck"
	@echo "make test-vm      integration tests in QEMU guests with several NUMA nodes"
	@echo "make demo         deps + build + the main job on this machine's topology"
	@echo "make install PREFIX=DIR   headers, libraries, tool, pkg-config file, man page"
	@echo "make docs         API reference from the public headers (Doxygen; warnings fail)"
	@echo "make examples     install into $(STAGE), build docs/examples with pkg-config (shared"
	@echo "                  and static), run them; check the headers and documented build lines"
	@echo "make fuzz         libFuzzer harnesses (clang, ASan+UBSan), FUZZ_SECONDS each (300)"
	@echo "make fuzz-replay  the fuzz corpora, then 10 s of fuzzing per harness"
	@echo "make check-outputs OLD=BIN   scenarios and documented examples, run by BIN and by"
	@echo "                  this build: deterministic --json outputs compared (times ignored)"
	@echo "make info         compiler and library versions found, the BLAS selected"
	@echo "make BLAS=openblas ...  tile kernels on OpenBLAS (default BLAS=blis: BLIS + libFLAME)"

deps:
	@sh scripts/deps.sh

# Every object depends on the headers it includes (gcc -MMD).
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# core/'s internal header is for the library and its tests; the front end sees only include/.
# Private headers of another module or room are named from the top of the tree
# (#include "lib/matrix/nt_matrix.h"), hence -I. for the library, its tests and micro benchmarks.
$(BUILD)/obj/core/%.o $(BUILD)/obj/numa/%.o $(BUILD)/obj/partition/%.o $(BUILD)/obj/lib/%.o \
  $(BUILD)/obj/tests/%.o: override CPPFLAGS += -Icore -I.
# The BLAS headers live in multiarch directories; only the backends include them.
$(BUILD)/obj/lib/kernels/blas/%.o: override CPPFLAGS += -I$(BLAS_INC)
# The peer is its own program (no libnumatile); it borrows only core/'s inline generator.
$(PEER_OBJ): override CPPFLAGS += -Icore -I$(OPENBLAS_INC)
# The front end's rooms depend one way: the tool (tool/) and the scenarios (bench/scenarios/)
# on the harness (bench/harness/), never on each other. Each sees its own headers (beside its
# sources) and the harness's; so do the tests of the tool and of the harness.
$(BUILD)/obj/tool/%.o $(BUILD)/obj/bench/scenarios/%.o $(BUILD)/obj/bench/harness/%.o \
  $(BUILD)/obj/tests/%.o: override CPPFLAGS += -Ibench/harness
# The micro benchmarks name the library's private headers from the top of the tree.
$(BUILD)/obj/bench/micro/%.o: override CPPFLAGS += -Icore -I.
# The papers' data files: read from the source tree, else from the installed copy.
$(BUILD)/obj/bench/scenarios/scn_data.o: override CPPFLAGS += \
  -DNT_DATA_DIR='"$(CURDIR)/bench/data"' -DNT_DATA_INSTALL_DIR='"$(PREFIX)/share/numatile/data"'

-include $(LIB_OBJ:.o=.d) $(TOOL_OBJ:.o=.d) $(UNIT_OBJ:.o=.d)
-include $(PEER_OBJ:.o=.d) $(MPI_PEER_OBJ:.o=.d) $(MICRO_OBJ:.o=.d)

$(BLAS_STAMP):
	@other=$$(ls $(BUILD)/blas-* 2>/dev/null); if [ -n "$$other" ]; then \
	  echo "$(BUILD) holds another BLAS build ($$other): use another BUILD= or make clean"; \
	  exit 1; fi
	@if [ "$(BLAS)" = openblas ] && [ -z "$(OPENBLAS_FOUND)" ]; then \
	  echo "BLAS=openblas: no $(OPENBLAS_DIR)/libopenblas.so (make deps installs it)"; exit 1; fi
	@mkdir -p $(BUILD)
	@touch $@

$(LIB_OBJ): | $(BLAS_STAMP)

$(LIB_A): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# The shared library exports only the functions the public headers declare: a linker version
# script generated from them (global: those names; local: the rest, internal helpers included).
PUBLIC_H := include/numatile.h $(sort $(wildcard include/numatile/*.h))
LIB_MAP  := $(BUILD)/lib/numatile.map

$(LIB_MAP): $(PUBLIC_H) scripts/public_symbols.sh
	@mkdir -p $(dir $@)
	sh scripts/public_symbols.sh --map include > $@.tmp && mv $@.tmp $@

$(LIB_SO): $(LIB_OBJ) $(LIB_MAP)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libnumatile.so.$(SOVERSION) -Wl,--version-script=$(LIB_MAP) \
	  $(LDFLAGS) -o $@ $(LIB_OBJ) $(LDLIBS)
	ln -sf libnumatile.so.$(VERSION) $(BUILD)/lib/libnumatile.so.$(SOVERSION)
	ln -sf libnumatile.so.$(SOVERSION) $(BUILD)/lib/libnumatile.so

# The tool links the static library so it runs from the build tree and inside the guest.
$(TOOL): $(TOOL_OBJ) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(TOOL_OBJ) $(LIB_A) -ljansson $(LDLIBS)

ifneq ($(MPI_PEER),)
$(MPI_PEER_OBJ): bench/peers/pdgemr2d.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(MPI_PEER): $(MPI_PEER_OBJ)
	@mkdir -p $(dir $@)
	$(MPICC) $(LDFLAGS) -o $@ $^ -ljansson $(SCALAPACK_LIB)
endif

ifneq ($(PEER),)
$(PEER): $(PEER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -ljansson $(OPENBLAS_LIBS) -lm
endif

# The micro benchmarks (bench/micro/, each a program of its own, not part of the tool): built by
# `make micro` and in `make test`, so that they keep compiling. periodic_* link the library,
# copy_kernels and copy_op only the copy kernels (lib/matrix/copy.c, copy_op.c), the others
# nothing of numatile.
MICRO_SRC := $(sort $(wildcard bench/micro/*.c))
MICRO_OBJ := $(MICRO_SRC:%.c=$(BUILD)/obj/%.o)
MICRO     := $(MICRO_SRC:bench/micro/%.c=$(BUILD)/bin/%)
MICRO_LIB := $(BUILD)/bin/periodic_lines $(BUILD)/bin/periodic_sweep

micro: $(MICRO)

$(MICRO_LIB): $(BUILD)/bin/%: $(BUILD)/obj/bench/micro/%.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/bin/copy_kernels: $(BUILD)/obj/bench/micro/copy_kernels.o $(BUILD)/obj/lib/matrix/copy.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/bin/copy_op: $(BUILD)/obj/bench/micro/copy_op.o $(BUILD)/obj/lib/matrix/copy_op.o \
  $(BUILD)/obj/lib/matrix/copy.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

$(filter-out $(MICRO_LIB) $(BUILD)/bin/copy_kernels $(BUILD)/bin/copy_op,$(MICRO)): $(BUILD)/bin/%: \
  $(BUILD)/obj/bench/micro/%.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

$(UNIT): $(UNIT_OBJ) $(HARNESS_OBJ) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(UNIT_OBJ) $(HARNESS_OBJ) $(LIB_A) -lcriterion -ljansson $(LDLIBS)

$(PC): numatile.pc.in include/numatile/version.h
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	  -e 's|@BLAS_LIBS@|$(BLAS_LIBS)|g' $< > $@

test-unit: $(UNIT) $(TOOL) check-abi
	NT_TOOL=$(TOOL) NT_MANPAGE=$(MANPAGE) $(UNIT) --jobs 2 --short-filename

# Every --json document (each subcommand, each scenario --quick) against docs/json.schema.json,
# and every command of README.md, docs/guide.md and docs/labs/*.md run, transcripts compared
# with the output's shape (matrix sizes capped at NT_DOCS_MAX, default 1024; 0 = as written).
# Debian's python3, where python3-jsonschema lives.
JSON_PYTHON ?= $(shell [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)
check-json: $(TOOL)
	$(JSON_PYTHON) scripts/check_json.py --tool $(TOOL)

# `nm -D` of the shared library: only the functions of the public headers, all of them; `nm` of
# the static library: only nt_ names.
check-abi: $(LIB_SO) $(LIB_A)
	sh scripts/check_abi.sh $(LIB_SO) include
	sh scripts/check_static_syms.sh $(LIB_A)

# The unit tests that run BLAS or LAPACK code, on the OpenBLAS build in its own build directory.
# Only lib/kernels/blas/ differs between the two builds (the other objects are the same sources
# with the same flags), so the suites that never reach a tile kernel or a flat BLAS call would
# repeat test-unit; leaving them out saves about two minutes of CI. A suite that starts calling
# BLAS belongs in BLAS_SUITES.
BLAS_SUITES := @(gemm|kernels|qr|precision|precision_drivers|scn_kernels|scn_lambert|scn_herrmann_table1|cli_gemm_speeds|cli_plan|cpuset|request_memory|wrap_redist|profile|threads|advise)/*
test-openblas:
	$(MAKE) -j2 BLAS=openblas BUILD=build/openblas build/openblas/tests/unit_tests \
	  build/openblas/bin/numatile
	NT_TOOL=build/openblas/bin/numatile NT_MANPAGE=$(MANPAGE) build/openblas/tests/unit_tests \
	  --filter '$(BLAS_SUITES)' --jobs 2 --short-filename

check-asan:
	$(MAKE) -j2 BUILD=build/asan SAN=1 CFLAGS="-O1 -g" build/asan/tests/unit_tests \
	  build/asan/bin/numatile
	@# Criterion's workers report leaks at exit without failing the run: read the log too.
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  NT_TOOL=build/asan/bin/numatile NT_MANPAGE=$(MANPAGE) build/asan/tests/unit_tests --jobs 2 \
	  --short-filename > build/asan/unit.log 2>&1; rc=$$?; cat build/asan/unit.log; \
	  if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' build/asan/unit.log; then \
	    echo "check-asan: sanitizer reports above"; exit 1; fi; exit $$rc

check-valgrind: $(UNIT) $(TOOL)
	NT_TOOL=$(TOOL) NT_MANPAGE=$(MANPAGE) valgrind --error-exitcode=3 --leak-check=full \
	  --trace-children=yes --suppressions=tests/valgrind.supp -q $(UNIT) --jobs 1 --short-filename

test-vm: $(TOOL)
	sh tests/vm/run.sh $(BUILD)

test: deps
	$(MAKE) -j2 all
	$(MAKE) -j2 micro
	$(MAKE) check-style
	$(MAKE) test-unit
	$(MAKE) check-json
	$(MAKE) test-mpi
	$(MAKE) test-openblas
	$(MAKE) examples
	$(MAKE) docs
	$(MAKE) check-asan
	$(MAKE) fuzz-replay
	$(MAKE) test-vm

demo: deps
	$(MAKE) -j2 all
	sh scripts/demo.sh $(TOOL)

bench: all
	$(TOOL) bench all --quick

install: all
	install -d $(DESTDIR)$(PREFIX)/include/numatile $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
  $(DESTDIR)$(PREFIX)/share/numatile/data
	install -m 644 include/numatile.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(filter-out include/numatile/mpi.h include/numatile/scalapack.h,$(wildcard \
	  include/numatile/*.h)) \
	  $(DESTDIR)$(PREFIX)/include/numatile/
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIB_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libnumatile.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libnumatile.so.$(SOVERSION)
	ln -sf libnumatile.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libnumatile.so
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	  -e 's|@BLAS_LIBS@|$(BLAS_LIBS)|g' numatile.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/numatile.pc
	install -m 755 $(TOOL) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(MANPAGE) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 bench/data/*.txt $(DESTDIR)$(PREFIX)/share/numatile/data/

# The API reference: Doxygen over include/, any warning fails (docs/Doxyfile).
docs:
	@mkdir -p $(BUILD)/docs
	NT_VERSION=$(VERSION) NT_DOCS_OUT=$(BUILD)/docs doxygen docs/Doxyfile
	@echo "docs: $(BUILD)/docs/html/index.html"

# The examples see numatile only as a user would: installed headers, pkg-config, and either the
# .so or (a second build of each) libnumatile.a through `pkg-config --static`. Then the
# installed headers one by one, and every build line the documentation shows, as written.
EX_STATIC_LIBS := pkg-config --static --libs numatile | sed 's/-lnumatile/-l:libnumatile.a/'
examples:
	$(MAKE) install PREFIX=$(abspath $(STAGE))
	@mkdir -p $(STAGE)/examples
	@set -e; export PKG_CONFIG_PATH=$(abspath $(STAGE))/lib/pkgconfig; \
	shared="$$(pkg-config --cflags --libs numatile)"; \
	static="$$(pkg-config --cflags numatile) $$($(EX_STATIC_LIBS))"; \
	for e in $(EXAMPLES); do \
	  echo "$(CC) -std=c11 $(WARN) -Werror -O2 docs/examples/$$e.c $$shared -Wl,-rpath,..."; \
	  $(CC) -std=c11 $(WARN) -Werror -O2 docs/examples/$$e.c -o $(STAGE)/examples/$$e \
	    $$shared -Wl,-rpath,$(abspath $(STAGE))/lib; \
	  echo "$(CC) -std=c11 $(WARN) -Werror -O2 docs/examples/$$e.c $$static"; \
	  $(CC) -std=c11 $(WARN) -Werror -O2 docs/examples/$$e.c -o $(STAGE)/examples/$$e-static \
	    $$static; \
	  if readelf -d $(STAGE)/examples/$$e-static | grep -q 'NEEDED.*libnumatile'; then \
	    echo "examples: $$e-static needs libnumatile.so"; exit 1; fi; \
	done; \
	for e in $(EXAMPLES); do for v in $$e $$e-static; do \
	  echo "== $(STAGE)/examples/$$v"; $(STAGE)/examples/$$v; \
	done; done
	sh scripts/check_headers.sh $(STAGE) $(CC)
	sh scripts/check_build_lines.sh $(STAGE)

# Fuzzing: libFuzzer harnesses in tests/fuzz/ (fuzz_NAME.c, seed corpora in corpus/NAME/),
# built with clang, ASan and UBSan against the library built the same way in $(FUZZ_DIR).
FUZZ_CC      ?= clang-14
FUZZ_SECONDS ?= 300
FUZZ_DIR     := build/fuzz
FUZZ_NAMES   := dist instance tilemap_file topo_synthetic topo_xml cli plan match
FUZZ_COMMON  := $(BUILD)/obj/tests/fuzz/fuzz_util.o $(BUILD)/obj/tests/fuzz/fuzz_topo_check.o
FUZZ_OBJ     := $(FUZZ_NAMES:%=$(BUILD)/obj/tests/fuzz/fuzz_%.o) $(FUZZ_COMMON) \
                $(BUILD)/obj/tests/fuzz/tool_main.o
# fuzz_cli runs the tool in-process: its objects, main renamed, and the library entry points
# the harness bounds wrapped (see tests/fuzz/fuzz_cli.c).
FUZZ_CLI_OBJ := $(filter-out $(BUILD)/obj/tool/main.o,$(TOOL_OBJ)) \
                $(BUILD)/obj/tests/fuzz/tool_main.o
FUZZ_WRAP    := exit bench_execute nt_topo_load nt_tilemap_from_spec nt_matrix_create_spec \
                nt_dist1d_block nt_dist1d_balanced nt_dist1d_skewed nt_stencil_run \
                nt_hetero_tilemap nt_hetero_evaluate nt_calibrate execv
-include $(FUZZ_OBJ:.o=.d)

$(BUILD)/obj/tests/fuzz/tool_main.o: tool/main.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -Dmain=nt_tool_main -MMD -MP -c $< -o $@

$(BUILD)/fuzz_cli: $(BUILD)/obj/tests/fuzz/fuzz_cli.o $(FUZZ_COMMON) $(FUZZ_CLI_OBJ) $(LIB_A)
	$(CC) $(LDFLAGS) $(FUZZ_WRAP:%=-Wl,--wrap=%) -o $@ $(filter %.o,$^) $(LIB_A) -ljansson \
	  $(LDLIBS)

$(BUILD)/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(FUZZ_COMMON) $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $< $(FUZZ_COMMON) $(LIB_A) $(LDLIBS)

fuzz-build:
	$(MAKE) -j2 BUILD=$(FUZZ_DIR) SAN=fuzz CC=$(FUZZ_CC) CFLAGS="-O1 -g" \
	  $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)

# Each harness FUZZ_SECONDS (default 300) after replaying its corpus; inputs that fail go to
# $(FUZZ_DIR)/artifacts/. fuzz-replay: the corpora, then 10 s of fuzzing each.
fuzz: fuzz-build
	sh scripts/fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_NAMES)

fuzz-replay: fuzz-build
	FUZZ_SEED=1 sh scripts/fuzz.sh $(FUZZ_DIR) 10 $(FUZZ_NAMES)

# Every function of the non-test C sources within 80 lines (scripts/check_style.sh lists the
# others and fails); docs/ARCHITECTURE.md names every private header and source folder.
check-style:
	sh scripts/check_style.sh
	sh scripts/check_architecture.sh

# Before/after check of a change meant to keep behaviour: every scenario (--quick --seed 1) and
# the documented examples, run by OLD and by NEW, deterministic fields compared (~1 min here).
check-outputs: $(TOOL)
	@test -n "$(OLD)" || { echo "usage: make check-outputs OLD=path/to/old/numatile [NEW=...]"; \
	  exit 2; }
	bash scripts/check_outputs.sh $(OLD) $(or $(NEW),$(TOOL))

info:
	@echo "numatile $(VERSION)"
	@$(CC) --version | head -n 1
	@for p in libnuma-dev libhwloc-dev libblis-openmp-dev libflame-dev libopenblas-openmp-dev \
	  libcriterion-dev libjansson-dev qemu-system-x86 gnuplot-nox doxygen openmpi-bin \
	  libscalapack-openmpi-dev; do \
	  printf '%-24s %s\n' $$p "$$(dpkg-query -W -f='$${Version}' $$p 2>/dev/null || echo missing)"; done
	@echo "BLAS: $(BLAS) (headers $(BLAS_INC); links $(BLAS_LIBS)); build dir $(BUILD)"
	@echo "flat OpenBLAS peer: $(if $(PEER),$(PEER),not built (no $(OPENBLAS_DIR)/libopenblas.so))"
	@echo "pdgemr2d peer: $(if $(MPI_PEER),$(MPI_PEER),not built (no $(MPICC) or no $(SCALAPACK_LIB)))"

# libnumatile_mpi (mpi/): the distributed executor and the ScaLAPACK entry, a library of its
# own so that libnumatile never links MPI (it finds libnumatile.so beside itself: RUNPATH
# $ORIGIN, in the build and once installed). Built with mpicc when mpicc and Debian's OpenMPI
# ScaLAPACK are installed (SCALAPACK_FOUND above); its public header is
# include/numatile/mpi.h (not part of <numatile.h>), its exports checked against it by
# check-abi-mpi. Its programs: tests/mpi/ and mpi/tools/.
MPI_LIB_SRC := $(sort $(wildcard mpi/*.c))
MPI_TOOL_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard mpi/tools/*.c)))
MPI_LIB_OBJ := $(MPI_LIB_SRC:%.c=$(BUILD)/obj/%.o)
MPI_LIB_A   := $(BUILD)/lib/libnumatile_mpi.a
MPI_LIB_SO  := $(BUILD)/lib/libnumatile_mpi.so.$(VERSION)
MPI_MAP     := $(BUILD)/lib/numatile_mpi.map
MPI_TEST    := $(BUILD)/tests/test_pgemr2d
MPI_TEST_RL := $(BUILD)/tests/test_relabel
MPI_TOOL    := $(BUILD)/bin/numatile-mpi
# libnumatile_scalapack (mpi/scalapack/): ScaLAPACK's routine names over libnumatile_mpi, a
# shared library only (it replaces ScaLAPACK's routines by coming first in the symbol lookup,
# and falls back to them through dlsym(RTLD_NEXT)); exports checked against
# include/numatile/scalapack.h. Its tests: the conformance driver (tests/mpi/conform.c) and a
# Fortran program (tests/mpi/fdrop.f90), each built once with the drop-in first and once
# against ScaLAPACK alone.
SL_OBJ      := $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard mpi/scalapack/*.c)))
SL_SO       := $(BUILD)/lib/libnumatile_scalapack.so.$(VERSION)
SL_MAP      := $(BUILD)/lib/numatile_scalapack.map
SL_RPATH    := -Wl,-rpath,$(abspath $(BUILD)/lib)
SL_TESTS    := $(BUILD)/tests/conform_dropin $(BUILD)/tests/conform_plain \
               $(BUILD)/tests/bench_dropin
MPIFC       ?= mpif90
SL_FTESTS   := $(if $(shell command -v $(MPIFC) 2>/dev/null),$(BUILD)/tests/fdrop_dropin \
               $(BUILD)/tests/fdrop_plain)
# The MPI programs use none of numatile's BLAS objects, so they do not link BLIS/libFLAME (or
# OpenBLAS) beside the BLAS that ScaLAPACK brings: one BLAS per program.
MPI_LIBS    := $(SCALAPACK_LIB) $(filter-out $(BLAS_LIBS),$(LDLIBS))
MPI_ALL     := $(if $(SCALAPACK_FOUND),$(MPI_LIB_A) $(MPI_LIB_SO) $(MPI_TEST) $(MPI_TEST_RL) \
               $(MPI_TOOL) $(SL_SO))
# mpirun as root needs Open MPI's consent; 2 cores here, so ranks are oversubscribed, and the
# OpenMP threads some test cases ask for sleep instead of spinning when idle.
MPIRUN      ?= OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 \
               OMP_WAIT_POLICY=passive \
               mpirun --oversubscribe --mca mpi_yield_when_idle 1
MPI_TEST_CASES ?= 3000
MPI_RELABEL_CASES ?= 400

.PHONY: mpi test-mpi check-abi-mpi install-mpi test-mpi-dropin test-packaging install-cmake
all: $(MPI_ALL)
mpi: $(MPI_ALL)

ifneq ($(SCALAPACK_FOUND),)
-include $(MPI_LIB_OBJ:.o=.d) $(MPI_TOOL_OBJ:.o=.d) $(BUILD)/obj/tests/mpi/test_pgemr2d.d \
  $(BUILD)/obj/tests/mpi/test_relabel.d $(SL_OBJ:.o=.d) $(BUILD)/obj/tests/mpi/conform.d \
  $(BUILD)/obj/tests/mpi/bench_dropin.d
# mpi/walk.c and mpi/tools/bench.c stream lines with lib/matrix/nt_lines.h (header-only, no
# libnumatile symbol).
$(BUILD)/obj/mpi/%.o: mpi/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) -Impi -I. $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/obj/tests/mpi/%.o: tests/mpi/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) -Impi -I. $(CFLAGS) -MMD -MP -c $< -o $@

$(MPI_LIB_A): $(MPI_LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(MPI_MAP): include/numatile/mpi.h mpi/abi.sh
	@mkdir -p $(dir $@)
	sh mpi/abi.sh map include $(MPICC) > $@.tmp && mv $@.tmp $@

$(MPI_LIB_SO): $(MPI_LIB_OBJ) $(MPI_MAP) $(LIB_SO)
	$(MPICC) -shared -Wl,-soname,libnumatile_mpi.so.$(SOVERSION) \
	  -Wl,--version-script=$(MPI_MAP) -Wl,-rpath,'$$ORIGIN' $(LDFLAGS) -o $@ $(MPI_LIB_OBJ) \
	  -L$(BUILD)/lib -lnumatile $(SCALAPACK_LIB)
	ln -sf libnumatile_mpi.so.$(VERSION) $(BUILD)/lib/libnumatile_mpi.so.$(SOVERSION)
	ln -sf libnumatile_mpi.so.$(SOVERSION) $(BUILD)/lib/libnumatile_mpi.so

# The test and the tool link both libraries statically, so they run from the build tree.
$(MPI_TEST): $(BUILD)/obj/tests/mpi/test_pgemr2d.o $(MPI_LIB_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(MPI_LIBS)

$(MPI_TEST_RL): $(BUILD)/obj/tests/mpi/test_relabel.o $(MPI_LIB_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(MPI_LIBS)

$(MPI_TOOL): $(MPI_TOOL_OBJ) $(MPI_LIB_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(LDFLAGS) -o $@ $^ -ljansson $(MPI_LIBS)

$(SL_MAP): include/numatile/scalapack.h mpi/abi.sh
	@mkdir -p $(dir $@)
	ABI_HEADER=scalapack sh mpi/abi.sh map include $(MPICC) > $@.tmp && mv $@.tmp $@

$(SL_SO): $(SL_OBJ) $(SL_MAP) $(MPI_LIB_SO)
	$(MPICC) -shared -Wl,-soname,libnumatile_scalapack.so.$(SOVERSION) \
	  -Wl,--version-script=$(SL_MAP) -Wl,-rpath,'$$ORIGIN' $(LDFLAGS) -o $@ $(SL_OBJ) \
	  -L$(BUILD)/lib -lnumatile_mpi -lnumatile $(SCALAPACK_LIB) -ldl
	ln -sf libnumatile_scalapack.so.$(VERSION) \
	  $(BUILD)/lib/libnumatile_scalapack.so.$(SOVERSION)
	ln -sf libnumatile_scalapack.so.$(SOVERSION) $(BUILD)/lib/libnumatile_scalapack.so

# The same programs twice: the drop-in first (it takes ScaLAPACK's names), and ScaLAPACK alone.
$(BUILD)/tests/conform_dropin: $(BUILD)/obj/tests/mpi/conform.o $(SL_SO)
	$(MPICC) $(LDFLAGS) -o $@ $< -L$(BUILD)/lib $(SL_RPATH) -lnumatile_scalapack \
	  $(SCALAPACK_LIB) -ldl
# What relinking costs, beside nt_pgemr2d and ScaLAPACK's own (mpirun -np 4, see the file).
$(BUILD)/tests/bench_dropin: $(BUILD)/obj/tests/mpi/bench_dropin.o $(SL_SO)
	$(MPICC) $(LDFLAGS) -o $@ $< -L$(BUILD)/lib $(SL_RPATH) -lnumatile_scalapack \
	  -lnumatile_mpi -lnumatile $(SCALAPACK_LIB) -ldl
$(BUILD)/tests/conform_plain: $(BUILD)/obj/tests/mpi/conform.o
	$(MPICC) $(LDFLAGS) -o $@ $< $(SCALAPACK_LIB) -ldl
$(BUILD)/tests/fdrop_dropin: tests/mpi/fdrop.f90 $(SL_SO)
	@mkdir -p $(dir $@)
	$(MPIFC) -O2 -Wall -std=f2008 -J$(BUILD)/tests -o $@ $< -L$(BUILD)/lib $(SL_RPATH) \
	  -lnumatile_scalapack $(SCALAPACK_LIB)
$(BUILD)/tests/fdrop_plain: tests/mpi/fdrop.f90
	@mkdir -p $(dir $@)
	$(MPIFC) -O2 -Wall -std=f2008 -J$(BUILD)/tests -o $@ $< $(SCALAPACK_LIB)

# Installed beside libnumatile: <numatile/mpi.h> (and <numatile_mpi.h>, its old name, kept one
# release: see NEWS.md), the libraries, the MPI program.
install-mpi: $(MPI_ALL)
	install -d $(DESTDIR)$(PREFIX)/include/numatile $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin
	install -m 644 include/numatile/mpi.h $(DESTDIR)$(PREFIX)/include/numatile/
	install -m 644 include/numatile_mpi.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(MPI_LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(MPI_LIB_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libnumatile_mpi.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libnumatile_mpi.so.$(SOVERSION)
	ln -sf libnumatile_mpi.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libnumatile_mpi.so
	install -m 755 $(MPI_TOOL) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 include/numatile/scalapack.h $(DESTDIR)$(PREFIX)/include/numatile/
	install -m 755 $(SL_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libnumatile_scalapack.so.$(VERSION) \
	  $(DESTDIR)$(PREFIX)/lib/libnumatile_scalapack.so.$(SOVERSION)
	ln -sf libnumatile_scalapack.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libnumatile_scalapack.so
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig
	for p in numatile-mpi numatile-scalapack; do \
	  sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' $$p.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/$$p.pc || exit 1; done

check-abi-mpi: $(MPI_LIB_SO) $(MPI_LIB_A) $(SL_SO)
	sh mpi/abi.sh check include $(MPICC) $(MPI_LIB_SO)
	sh scripts/check_static_syms.sh $(MPI_LIB_A)
	ABI_HEADER=scalapack sh mpi/abi.sh check include $(MPICC) $(SL_SO)

# Random geometries against pdgemr2d and the owner oracle, failure injection, on 2, 3 and 4
# ranks (MPI_TEST_CASES geometries per run), through the shared-memory windows of one node;
# then on 3 ranks with them switched off (NT_MPI_NO_SHM=1: every message point-to-point, the
# path between nodes); then both with the line writers forced on (NT_MPI_LINES=1: these small
# geometries would otherwise never stream), the first of these with 3 threads per rank.
# test_relabel: distributed domains, relabelling at rank level against brute force and the
# oracle, on 2, 3 and 4 ranks.
test-mpi: $(MPI_TEST) $(MPI_TEST_RL) check-abi-mpi test-mpi-dropin test-packaging
	for np in 2 3 4; do $(MPIRUN) -np $$np $(MPI_TEST) --cases $(MPI_TEST_CASES) --seed $$np \
	  || exit 1; done
	for np in 2 3 4; do $(MPIRUN) -np $$np $(MPI_TEST_RL) --cases $(MPI_RELABEL_CASES) \
	  --seed $$np || exit 1; done
	NT_MPI_NO_SHM=1 $(MPIRUN) -x NT_MPI_NO_SHM -np 3 $(MPI_TEST) --cases $(MPI_TEST_CASES) \
	  --seed 5
	NT_MPI_NO_SHM=1 NT_MPI_DATATYPES=0 $(MPIRUN) -x NT_MPI_NO_SHM -x NT_MPI_DATATYPES -np 4 \
	  $(MPI_TEST) --cases $(MPI_TEST_CASES) --seed 6
	NT_MPI_LINES=1 $(MPIRUN) -x NT_MPI_LINES -x OMP_NUM_THREADS=3 -np 4 $(MPI_TEST) \
	  --cases $(MPI_TEST_CASES) --seed 7
	NT_MPI_LINES=1 NT_MPI_NO_SHM=1 $(MPIRUN) -x NT_MPI_LINES -x NT_MPI_NO_SHM -np 3 \
	  $(MPI_TEST) --cases $(MPI_TEST_CASES) --seed 8

# libnumatile_scalapack against ScaLAPACK itself (tests/mpi/dropin.sh): the conformance driver
# and the Fortran program, relinked and not, on 1..6 processes; the fallback announced.
SL_CASES ?= 200
SL_NP    ?= 1 2 3 4 5 6
test-mpi-dropin: $(SL_TESTS) $(SL_FTESTS)
	$(if $(SL_FTESTS),,@echo "test-mpi-dropin: no $(MPIFC) (make deps installs gfortran)"; exit 1)
	sh tests/mpi/dropin.sh $(BUILD) $(SL_CASES) "$(SL_NP)" $(MPIRUN)

# The installed pkg-config files and CMake package, each building an example of every library
# (tests/mpi/packaging.sh, a temporary prefix).
test-packaging: all
	sh tests/mpi/packaging.sh "$(MAKE)" $(BUILD) $(MPIRUN)

# test_tran (mpitran): nt_ptran and nt_ptrmr2d against the per-element oracle and ScaLAPACK's
# pdtran, pztranc and pdtrmr2d on 2, 3 and 4 ranks, then point to point only, then with the line
# writers forced on and 3 threads per rank.
MPI_TEST_TR := $(BUILD)/tests/test_tran
MPI_TRAN_CASES ?= 400
all mpi: $(MPI_TEST_TR)
-include $(BUILD)/obj/tests/mpi/test_tran.d
$(MPI_TEST_TR): $(BUILD)/obj/tests/mpi/test_tran.o $(MPI_LIB_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(MPI_LIBS)
test-mpi: test-mpi-tran
.PHONY: test-mpi-tran
test-mpi-tran: $(MPI_TEST_TR)
	for np in 2 3 4; do $(MPIRUN) -np $$np $(MPI_TEST_TR) --cases $(MPI_TRAN_CASES) --seed $$np \
	  || exit 1; done
	NT_MPI_NO_SHM=1 $(MPIRUN) -x NT_MPI_NO_SHM -np 3 $(MPI_TEST_TR) --cases $(MPI_TRAN_CASES) \
	  --seed 9
	NT_MPI_LINES=1 $(MPIRUN) -x NT_MPI_LINES -x OMP_NUM_THREADS=3 -np 4 $(MPI_TEST_TR) \
	  --cases $(MPI_TRAN_CASES) --seed 10
else
test-mpi check-abi-mpi test-mpi-dropin test-packaging:
	@echo "$@: not built (no $(MPICC) or no $(SCALAPACK_LIB); make deps installs them)"
install-mpi:
endif
# The CMake package (find_package(numatile)): numatile::numatile always, numatile::mpi and
# numatile::scalapack when their libraries are installed beside it.
install-cmake:
	install -d $(DESTDIR)$(PREFIX)/lib/cmake/numatile
	for f in numatileConfig numatileConfigVersion; do \
	  sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@SCALAPACK_LIB@|$(SCALAPACK_LIB)|g' $$f.cmake.in \
	    > $(DESTDIR)$(PREFIX)/lib/cmake/numatile/$$f.cmake || exit 1; done
install: install-mpi install-cmake

# test_layout (nt_mpi_layout_redist/_relabel): any tile maps and irregular splits, one to three
# transfers in one exchange, relabelling against brute force, bad input and an injected
# failure, on 2, 3 and 4 ranks (MPI_LAYOUT_CASES geometries each).
MPI_TEST_LAYOUT := $(BUILD)/tests/test_layout
MPI_LAYOUT_CASES ?= 1000
.PHONY: test-mpi-layout
ifneq ($(SCALAPACK_FOUND),)
all: $(MPI_TEST_LAYOUT)
-include $(BUILD)/obj/tests/mpi/test_layout.d
$(MPI_TEST_LAYOUT): $(BUILD)/obj/tests/mpi/test_layout.o $(MPI_LIB_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(MPI_LIBS)
test-mpi: test-mpi-layout
test-mpi-layout: $(MPI_TEST_LAYOUT) $(BUILD)/tests/bench_layout_plan
	for np in 2 3 4; do $(MPIRUN) -np $$np $(MPI_TEST_LAYOUT) --cases $(MPI_LAYOUT_CASES) \
	  --seed $$np || exit 1; done
	$(BUILD)/tests/bench_layout_plan --p 8 --q 8 --tiles 200 --me 9 --reps 1
# Planning one rank's part of an any-layout transfer with and without the index of its tiles
# (no MPI call: a simulated communicator; docs/benchmarks.md).
all: $(BUILD)/tests/bench_layout_plan
-include $(BUILD)/obj/tests/mpi/bench_layout_plan.d
$(BUILD)/tests/bench_layout_plan: $(BUILD)/obj/tests/mpi/bench_layout_plan.o $(MPI_LIB_A) \
  $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(LDFLAGS) -o $@ $^ $(MPI_LIBS)
endif

clean:
	rm -rf $(BUILD) build
