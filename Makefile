# folio — build, test, demo, bench.  `make demo` and `make test` work on a fresh
# Debian 12: both install missing packages first (target `deps`).
#
# Sources are found by folder, so a new module only has to be dropped in place:
#   formats/**.c render/**.c              -> build/libfolio.a (the document engine)
#   sandbox/*.c sandbox/egress/*.c        -> build/libfolio-sandbox.a
#     + base/usage.c                          (usage errors, for both binaries' commands)
#   sandbox/policy/seccomp_policy.c       -> build/seccomp-gen -> build/seccomp_bpf.h
#                                            (the seccomp filter, compiled at build time)
#   cli/launcher.c + libfolio-sandbox.a   -> build/folio (static, libc only: `folio run`
#                                            starts fast; execs the engine for every
#                                            other command)
#   cli/*.c + libfolio.a                  -> build/folio-engine
#   serve/*.c + docs/openapi.json         -> linked into folio-serve only (`folio serve`,
#     + libfolio-sandbox.a                   libmicrohttpd; its render zygote uses the jail)
#   tests/**/t_*.c                        -> one Check test program each
#   tests/**/test_*.py                    -> pytest end-to-end tests
#   tests/fuzz/fuzz_*.c                   -> libFuzzer targets (make fuzz, make fuzz-ci)
#   templates/**                          -> embedded into the binary (tools/embed.c)

BUILD    ?= build
CC       ?= cc
PKGS     := xlsxwriter libzip libxml-2.0 cairo freetype2 harfbuzz fribidi fontconfig libunibreak icu-uc jansson zlib libdeflate
# Warnings, on every build (CI=true makes them errors; tests/build/
# test_warnings.py reads them back): -Wswitch-enum wants a switch on an enum
# to name every value even when it has a default: (list the rest on one case
# line falling into it), so a new value is flagged wherever it must be
# decided; -Wwrite-strings makes string literals const char[].
WARN     := -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes \
            -Wswitch-enum -Wwrite-strings \
            -Wno-unused-parameter
OPT      ?= -O2 -g
# Hardening, on every binary (tests/build/test_hardening.py reads it back with
# readelf): stack protector, libc calls checked for overflows where sizes are
# known, position-independent executables (the static launcher too), full
# RELRO, no executable stack. The sanitizer, valgrind and fuzz builds turn the
# fortified calls off (HARDEN_CPPFLAGS=): they check more, and -O0 can't fortify.
HARDEN_CFLAGS   ?= -fstack-protector-strong -fPIE
HARDEN_CPPFLAGS ?= -D_FORTIFY_SOURCE=2
HARDEN_LDFLAGS  ?= -pie -Wl,-z,relro,-z,now -Wl,-z,noexecstack
CPPFLAGS += $(HARDEN_CPPFLAGS)
LDFLAGS  += $(HARDEN_LDFLAGS)
CFLAGS   += -std=c11 -D_GNU_SOURCE $(OPT) $(HARDEN_CFLAGS) $(WARN) $(EXTRA_CFLAGS) -Iinclude -I. -I$(BUILD)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lhpdf -lm
ifeq ($(CI),true)
CFLAGS   += -Werror
endif

# Debian packages: building, testing, demo and bench.
DEB_BUILD := build-essential pkg-config libxlsxwriter-dev libzip-dev libxml2-dev \
             libcairo2-dev libfreetype-dev libhpdf-dev libjansson-dev libseccomp-dev zlib1g-dev \
             check fonts-liberation fonts-dejavu-core fonts-dejavu-extra fonts-droid-fallback \
             fonts-symbola libmicrohttpd-dev libharfbuzz-dev libfribidi-dev libfontconfig-dev \
             libunibreak-dev libicu-dev fonts-noto-core fonts-nanum libdeflate-dev libminizip-dev fonts-noto-color-emoji \
             libssl-dev
DEB_TEST  := procps file python3 python3-pytest python3-openpyxl python3-docx python3-jsonschema python3-fonttools python3-pil python3-cryptography \
             python3-pandas python3-numpy python3-matplotlib python3-yaml python3-requests \
             python3-nbformat python3-nbconvert python3-ipykernel python3-jupyter-client \
             poppler-utils qpdf pngcheck valgrind clang libclang-rt-14-dev \
             libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui \
             imagemagick curl openssl iproute2 python3-pip haproxy libharfbuzz-bin libxml2-utils python3-icu \
             clang-format strace \
             nodejs
# The jail's analysis stack (PRODUCT.md §11): one list, sandbox/stack.txt, read
# here, by docs/environment.md's test and by the import test of every entry.
DEB_STACK := $(shell awk '!/^\#/ && NF {print $$1}' sandbox/stack.txt)
DEB_BENCH := wrk time python3-xlsxwriter python3-reportlab python3-renderpm python3-matplotlib bubblewrap hyperfine pandoc nodejs \
             tinyproxy python3-jupyter-client python3-ipykernel

# base/: libc only, below every layer (docs/architecture.md); in both libraries
BASE_SRC := $(sort $(wildcard base/*.c))
LIB_SRC  := $(sort $(wildcard formats/*.c formats/*/*.c render/*.c render/*/*.c)) $(BASE_SRC)
SBX_SRC  := $(sort $(wildcard sandbox/*.c sandbox/egress/*.c)) $(BASE_SRC)
CLI_SRC  := $(sort $(filter-out cli/launcher.c,$(wildcard cli/*.c)))
SRV_SRC  := $(sort $(wildcard serve/*.c))
TPL_FILES:= $(sort $(shell find templates -type f 2>/dev/null))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/templates.o
SBX_OBJ  := $(SBX_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/kernel_py.o
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
SRV_OBJ  := $(SRV_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/openapi.o
SRV_LIBS := -lmicrohttpd -lpthread
# folio sign / folio verify (cli/sign.c): Ed25519 and base64; libcrypto is
# already loaded into the engine by libzip, so linking it costs no start-up
CRYPTO_LIBS := -lcrypto
UNIT_SRC := $(sort $(shell find tests -name 't_*.c' 2>/dev/null))
UNIT_BIN := $(UNIT_SRC:%.c=$(BUILD)/%)
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))

PY       := /usr/bin/python3
PREFIX   ?= /usr/local

.PHONY: all deps deps-test deps-bench check-includes check-format format layers-doc test unit e2e demo asan valgrind fuzz fuzz-build fuzz-ci bench install uninstall clean
all: $(BUILD)/folio $(BUILD)/folio-engine $(BUILD)/folio-serve $(BUILD)/libfolio.a $(BUILD)/matplotlib/.built

# ---- dependencies -----------------------------------------------------------
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Installs what is missing of a package list: one dpkg-query for the list,
# apt-get only when something is missing; not root and no sudo, it names
# what to install and stops (tests/build/test_deps.py).
define apt_install
	@installed=$$(dpkg-query -W -f='$${Package} $${Status}\n' $(1) 2>/dev/null | awk '/ install ok installed$$/ {print $$1}'); \
	missing=$$(for p in $(1); do printf '%s\n' "$$installed" | grep -qx -- "$$p" || echo $$p; done); \
	if [ -n "$$missing" ] && [ "$$(id -u)" != 0 ] && ! command -v sudo >/dev/null; then \
	  echo "make deps: missing Debian packages:" $$missing; \
	  echo "make deps: not root and no sudo here; as root run: apt-get install" $$missing; \
	  exit 1; \
	fi; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing" $$missing; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef
deps:
	$(call apt_install,$(DEB_BUILD) $(DEB_STACK))
	@command -v npm >/dev/null || $(SUDO) apt-get install -y -qq --no-install-recommends nodejs npm  # npm install in sessions
deps-test: deps
	$(call apt_install,$(DEB_TEST))
	@command -v npm >/dev/null || $(SUDO) apt-get install -y -qq npm  # tests/mcp, tests/deploy: npm ci
deps-bench: deps-test
	$(call apt_install,$(DEB_BENCH))
	@command -v npm >/dev/null || $(SUDO) apt-get install -y -qq npm  # nodesource's nodejs bundles npm

# ---- build ------------------------------------------------------------------
# Each object depends on the headers it includes, as the compiler lists them
# (-MMD writes build/obj/X.d; -MP keeps a deleted header from breaking make).
# An object without its .d (an older build tree) is rebuilt once. clang
# writes the .d after the object: the touch keeps the object the newer, or
# every later make would build it again.
$(BUILD)/obj/%.o: %.c $(BUILD)/obj/%.d
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@
	@touch $@

DEP_FILES := $(patsubst %.o,%.d,$(filter-out $(BUILD)/obj/templates.o,$(LIB_OBJ)) $(SBX_OBJ) \
               $(CLI_OBJ) $(filter-out $(BUILD)/obj/openapi.o,$(SRV_OBJ)) $(BUILD)/obj/cli/launcher.o)
$(DEP_FILES):
-include $(wildcard $(DEP_FILES))

# matplotlib's font list, built once here from the system fonts the sandbox
# sees at the same paths, and copied into each jail's /tmp/.matplotlib: it
# saves every sandboxed plotting script ~0.4 s. Skipped without matplotlib.
$(BUILD)/matplotlib/.built:
	@mkdir -p $(dir $@)
	@MPLCONFIGDIR=$(abspath $(BUILD))/matplotlib $(PY) -c 'import matplotlib.font_manager' \
	  >/dev/null 2>&1 || echo "make: no python3-matplotlib here; the sandbox's matplotlib font cache is not prebuilt"
	@touch $@

# The seccomp policy, compiled to BPF here rather than at every launch.
$(BUILD)/seccomp-gen: tools/seccomp-gen.c sandbox/policy/seccomp_policy.c sandbox/sandbox.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) tools/seccomp-gen.c sandbox/policy/seccomp_policy.c -lseccomp -o $@

$(BUILD)/seccomp_bpf.h: $(BUILD)/seccomp-gen
	$(BUILD)/seccomp-gen $@

$(BUILD)/obj/sandbox/seccomp.o: $(BUILD)/seccomp_bpf.h

$(BUILD)/embed: tools/embed.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra $< -o $@

$(BUILD)/templates.c: $(BUILD)/embed $(TPL_FILES)
	$(BUILD)/embed $@ $(TPL_FILES)

$(BUILD)/obj/templates.o: $(BUILD)/templates.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# docs/openapi.json, served at GET /v1/openapi.json, embedded as the templates are.
$(BUILD)/openapi.c: $(BUILD)/embed docs/openapi.json
	$(BUILD)/embed $@.tmp docs/openapi.json && sed 's/fo_template_/fo_serve_doc_/g' $@.tmp > $@ && rm -f $@.tmp

$(BUILD)/obj/openapi.o: $(BUILD)/openapi.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# The session kernel (Python), embedded into folio: shipped, never generated
# at run time. tools/embed's functions renamed so both tables can link.
$(BUILD)/kernel_py.c: $(BUILD)/embed sandbox/kernel/folio_kernel.py
	$(BUILD)/embed $@ sandbox/kernel/folio_kernel.py

$(BUILD)/obj/kernel_py.o: $(BUILD)/kernel_py.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Dfo_template_find=fo_session_kernel_find \
	  -Dfo_template_name=fo_session_kernel_name -c $< -o $@

$(BUILD)/libfolio.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libfolio-sandbox.a: $(SBX_OBJ)
	@rm -f $@
	ar rcs $@ $^

# Static: no dynamic loader, nothing resolved lazily in the jail's processes
# -- 2 ms off every `folio run` here; a static PIE, so its addresses are
# randomized all the same. Sanitizer and valgrind builds link it
# dynamically (STATIC=).
STATIC ?= -static-pie
$(BUILD)/folio: $(BUILD)/obj/cli/launcher.o $(BUILD)/libfolio-sandbox.a
	$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC) $^ -o $@

# folio-serve is folio-engine plus the service: the HTTP library and its TLS
# chain (a dozen shared libraries, ~5 ms and ~190 page faults a start) stay
# out of every render and convert
$(BUILD)/folio-engine: $(CLI_OBJ) $(BUILD)/libfolio.a $(BUILD)/libfolio-sandbox.a
	$(CC) $(CFLAGS) $(LDFLAGS) $(CLI_OBJ) $(BUILD)/libfolio-sandbox.a $(BUILD)/libfolio.a $(PKG_LIBS) $(CRYPTO_LIBS) -o $@

# (its read-only segments on 2 MiB boundaries: serve/hugetext.c)
$(BUILD)/folio-serve: $(CLI_OBJ) $(SRV_OBJ) $(BUILD)/libfolio.a $(BUILD)/libfolio-sandbox.a
	$(CC) $(CFLAGS) $(LDFLAGS) -Wl,-z,max-page-size=0x200000 $(CLI_OBJ) $(SRV_OBJ) $(BUILD)/libfolio-sandbox.a $(BUILD)/libfolio.a $(PKG_LIBS) $(CRYPTO_LIBS) $(SRV_LIBS) -o $@

# the render children's allocator replaces malloc: only its own test links it
$(BUILD)/tests/serve/t_region: tests/serve/t_region.c tests/check_run.h $(BUILD)/obj/serve/region.o $(BUILD)/libfolio.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< $(BUILD)/obj/serve/region.o $(BUILD)/libfolio.a $$(pkg-config --cflags --libs check) -o $@

# linked as folio-serve is: read-only segments on 2 MiB boundaries
$(BUILD)/tests/serve/t_hugetext: tests/serve/t_hugetext.c tests/check_run.h $(BUILD)/obj/serve/hugetext.o
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -Wl,-z,max-page-size=0x200000 $< $(BUILD)/obj/serve/hugetext.o $$(pkg-config --cflags --libs check) -o $@

# libxlsxwriter's in-memory temp files are the executables' own (cli/lxw_tmp.c)
$(BUILD)/tests/serve/t_lxw_tmp: tests/serve/t_lxw_tmp.c tests/check_run.h $(BUILD)/obj/cli/lxw_tmp.o $(BUILD)/libfolio.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< $(BUILD)/obj/cli/lxw_tmp.o $(BUILD)/libfolio.a $(PKG_LIBS) $$(pkg-config --cflags --libs check) -o $@

$(BUILD)/tests/%: tests/%.c tests/check_run.h $(BUILD)/libfolio.a $(BUILD)/libfolio-sandbox.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) $(LDFLAGS) $< $(BUILD)/libfolio-sandbox.a $(BUILD)/libfolio.a $(PKG_LIBS) $$(pkg-config --cflags --libs check) -o $@

# ---- tests ------------------------------------------------------------------
# The layers (docs/architecture.md): cli -> serve -> sandbox -> base and
# formats -> render/core <- writers, render/core -> base, checked on what the
# compiler reads (`cc -H`: every include, however spelled, and the system
# libraries) against the allow-list in tools/check-layers.py. LAYERS_ROOT
# lets a test point the check at a copy of the tree.
LAYERS_ROOT ?= .
check-includes:
	@$(PY) tools/check-layers.py --root $(LAYERS_ROOT) --cc $(CC)

# One formatter dialect (.clang-format), checked on the lines changed since
# the commit in tools/format-base (uncommitted edits included); `make format`
# rewrites those lines. Untouched lines keep their hand alignment.
check-format:
	@$(PY) tools/check-format.py

format:
	@$(PY) tools/check-format.py --fix

# the module graph of docs/architecture.md, regenerated from the compiler
layers-doc:
	@$(PY) tools/check-layers.py --graph --doc docs/architecture.md

unit: $(UNIT_BIN)
	@fail=0; for t in $(UNIT_BIN); do echo "== $$t"; CK_FORK=no $$t || fail=1; done; exit $$fail

e2e: $(BUILD)/folio $(BUILD)/folio-engine $(BUILD)/folio-serve $(BUILD)/matplotlib/.built
	FOLIO=$(CURDIR)/$(BUILD)/folio $(PY) -m pytest -q tests

test: deps-test
	$(MAKE) all
	$(MAKE) check-includes
	$(MAKE) check-format
	$(MAKE) unit
	$(MAKE) e2e

asan: deps-test
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp $(MAKE) BUILD=build-asan STATIC= HARDEN_CPPFLAGS= CC=clang OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" LDFLAGS="-fsanitize=address,undefined" unit e2e

valgrind: deps-test
	$(MAKE) BUILD=build-vg STATIC= HARDEN_CPPFLAGS= OPT="-O0 -g" all $(UNIT_BIN:$(BUILD)/%=build-vg/%)
	FOLIO_VALGRIND=1 FOLIO=$(CURDIR)/build-vg/folio $(PY) -m pytest -q tests/cli tests/formats
	@for t in $(UNIT_BIN:$(BUILD)/%=build-vg/%); do FOLIO_VALGRIND=1 CK_FORK=no valgrind -q --leak-check=full --suppressions=tests/valgrind.supp --error-exitcode=99 $$t >/dev/null || exit 1; done; echo "valgrind: unit tests clean"

# ---- fuzzing ----------------------------------------------------------------
# Every tests/fuzz/fuzz_NAME.c is a libFuzzer target, built against a library
# compiled with coverage + ASan + UBSan (build-fuzz/), with the project's
# warnings (-Werror under CI=true: a target that no longer compiles fails).
#   make fuzz      each target FUZZ_TIME seconds, growing build-fuzz/corpus/NAME
#                  from tests/fuzz/seeds/NAME
#   make fuzz-ci   (.ci/run) each target replays every seed in
#                  tests/fuzz/seeds/NAME (required), then fuzzes FUZZ_CI_TIME
#                  seconds from -seed=1 into a corpus emptied first, so a clean
#                  clone and a reused tree run the same
# A crash, leak, sanitizer report or an input slower than -timeout fails the
# target (crash inputs go to build-fuzz/artifacts/). tests/build/test_fuzz_ci.py
# checks that fuzz-ci builds and runs every target.
FUZZ_TIME    ?= 30
FUZZ_CI_TIME ?= 3
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS  := -std=c11 -D_GNU_SOURCE -g -O1 $(WARN) $(if $(filter true,$(CI)),-Werror) \
                -fsanitize=fuzzer $(FUZZ_SAN) -Iinclude -I.
FUZZ_BIN     := $(FUZZ_SRC:tests/fuzz/%.c=build-fuzz/fuzz/%)
FUZZ_RUN      = LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp
FUZZ_OPTS    := -rss_limit_mb=2048 -artifact_prefix=build-fuzz/artifacts/

fuzz-build: deps-test
	$(MAKE) BUILD=build-fuzz HARDEN_CPPFLAGS= CC=clang OPT="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" \
	  build-fuzz/libfolio.a build-fuzz/libfolio-sandbox.a $(FUZZ_BIN)

build-fuzz/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_tpl.h build-fuzz/libfolio.a build-fuzz/libfolio-sandbox.a
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) $(PKG_CFLAGS) $< build-fuzz/libfolio-sandbox.a build-fuzz/libfolio.a $(PKG_LIBS) -o $@

fuzz: fuzz-build
	@mkdir -p build-fuzz/artifacts
	@set -e; for n in $(notdir $(FUZZ_BIN)); do \
	  mkdir -p build-fuzz/corpus/$$n; \
	  seeds=tests/fuzz/seeds/$$n; [ -d $$seeds ] || seeds=; \
	  echo "== $$n ($(FUZZ_TIME)s)"; \
	  $(FUZZ_RUN) build-fuzz/fuzz/$$n $(FUZZ_OPTS) -max_total_time=$(FUZZ_TIME) build-fuzz/corpus/$$n $$seeds; done

fuzz-ci: fuzz-build
	@rm -rf build-fuzz/ci-corpus build-fuzz/ci-log; mkdir -p build-fuzz/artifacts build-fuzz/ci-log
	@set -e; for n in $(notdir $(FUZZ_BIN)); do \
	  seeds=tests/fuzz/seeds/$$n; log=build-fuzz/ci-log/$$n.log; \
	  [ -n "$$(ls -A $$seeds 2>/dev/null)" ] || { echo "fuzz-ci: $$seeds: no seeds; add a few valid inputs for $$n" >&2; exit 1; }; \
	  mkdir -p build-fuzz/ci-corpus/$$n; \
	  if $(FUZZ_RUN) build-fuzz/fuzz/$$n $(FUZZ_OPTS) -seed=1 -timeout=60 -max_total_time=$(FUZZ_CI_TIME) \
	       -print_final_stats=1 build-fuzz/ci-corpus/$$n $$seeds >$$log 2>&1; then \
	    echo "fuzz-ci $$n: $$(ls $$seeds | wc -l) seeds replayed, $$(sed -n 's/^stat::number_of_executed_units: *//p' $$log) runs"; \
	  else tail -n 60 $$log >&2; echo "fuzz-ci: $$n failed (whole log: $$log)" >&2; exit 1; fi; done

# ---- demo, bench, install ---------------------------------------------------
demo: deps-test
	$(MAKE) all
	./samples/render-all.sh $(BUILD)/folio out
	./samples/client/demo.sh $(BUILD)/folio out

bench: deps-bench
	$(MAKE) all
	./bench/run.sh $(BUILD)/folio

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/folio $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include
	install -m 755 $(BUILD)/folio $(DESTDIR)$(PREFIX)/bin/folio
	install -m 755 $(BUILD)/folio-engine $(DESTDIR)$(PREFIX)/libexec/folio/folio-engine
	install -m 755 $(BUILD)/folio-serve $(DESTDIR)$(PREFIX)/libexec/folio/folio-serve
	install -d $(DESTDIR)$(PREFIX)/libexec/folio/matplotlib
	for f in $(BUILD)/matplotlib/fontlist-*.json; do [ -f "$$f" ] && install -m 644 "$$f" $(DESTDIR)$(PREFIX)/libexec/folio/matplotlib/ || true; done
	install -m 644 $(BUILD)/libfolio.a $(DESTDIR)$(PREFIX)/lib/libfolio.a
	install -m 644 include/folio.h $(DESTDIR)$(PREFIX)/include/folio.h
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 docs/folio.1 $(DESTDIR)$(PREFIX)/share/man/man1/folio.1
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig
	printf 'prefix=%s\nlibdir=$${prefix}/lib\nincludedir=$${prefix}/include\n\nName: folio\nDescription: result specs to xlsx, docx, pptx, pdf and png\nVersion: %s\nRequires: %s\nCflags: -I$${includedir}\nLibs: -L$${libdir} -lfolio -lhpdf -lm\n' \
	  '$(PREFIX)' "$$(sed -n 's/^#define FOLIO_VERSION "\(.*\)"/\1/p' include/folio.h)" '$(PKGS)' \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/folio.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/folio $(DESTDIR)$(PREFIX)/lib/libfolio.a \
	  $(DESTDIR)$(PREFIX)/include/folio.h $(DESTDIR)$(PREFIX)/lib/pkgconfig/folio.pc \
	  $(DESTDIR)$(PREFIX)/share/man/man1/folio.1
	rm -rf $(DESTDIR)$(PREFIX)/libexec/folio

clean:
	rm -rf build build-asan build-vg build-fuzz out
