# Thin wrapper around CMake. `make` = check/install dependencies, configure, build into
# build/; `make test` = build, then ctest. Variables: BUILD (dir), WERROR=1,
# SANITIZE=address,undefined|thread, CMAKE_FLAGS (extra -D options).
# ARCH=arm64: cross build for aarch64 into build-arm64 (deps: scripts/deps.sh --cross
# arm64); `make test ARCH=arm64 QEMU_CPU=neoverse-n1` runs its tests under qemu-aarch64
# with that -cpu model (default max,sve-default-vector-length=32). docs/arm64.md.
# With nothing to build, `make` costs well under 2 s (issue 42): deps.sh skips its package
# queries while BUILD/deps.stamp holds (scripts/deps.sh, stamp_key), cmake configures only
# a new build directory or when the flags, the package state or `git describe` (the
# binaries' build.git) changed (BUILD/configure.stamp), and a new build directory uses Ninja
# when it is installed (its no-op walk is milliseconds, make's seconds).
ifeq ($(ARCH),arm64)
BUILD ?= build-arm64
QEMU_CPU ?= max,sve-default-vector-length=32
CMAKE_FLAGS += -DCMAKE_TOOLCHAIN_FILE='$(CURDIR)/cmake/aarch64-linux-gnu.cmake' \
	-DPEAK_QEMU_CPU=$(QEMU_CPU)
DEPS_MODE = --cross arm64
else
DEPS_MODE = --ensure
endif
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

ifeq ($(WERROR),1)
CMAKE_FLAGS += -DPEAK_WERROR=ON
endif
ifneq ($(SANITIZE),)
CMAKE_FLAGS += -DPEAK_SANITIZE=$(SANITIZE)
endif

.PHONY: all deps configure build test clean

all: build

deps:
	@PEAK_DEPS_STAMP='$(BUILD)/deps.stamp' bash scripts/deps.sh $(DEPS_MODE)

# The key of a configured tree: what cmake reads that cmake --build would not notice.
# (cmake --build itself re-runs cmake when a CMakeLists.txt changes.)
configure: deps
	@set -- $(CMAKE_FLAGS); \
	key="flags: $$* | deps: $$(head -n 1 '$(BUILD)/deps.stamp' 2>/dev/null) | git: $$(git describe --always --dirty --tags 2>/dev/null)"; \
	if [ -f '$(BUILD)/CMakeCache.txt' ]; then \
		[ "$$key" != "$$(cat '$(BUILD)/configure.stamp' 2>/dev/null)" ] || exit 0; \
	elif command -v ninja >/dev/null 2>&1; then \
		set -- -G Ninja "$$@"; \
	fi; \
	echo "cmake -S . -B '$(BUILD)' $$*"; \
	cmake -S . -B '$(BUILD)' "$$@" && printf '%s\n' "$$key" >'$(BUILD)/configure.stamp'

build: configure
	cmake --build '$(BUILD)' -j $(JOBS)

ifeq ($(ARCH),arm64)
test: build
	bash tests/arm64/run_tests.sh '$(BUILD)' '$(QEMU_CPU)' -j $(JOBS) --timeout 300
else
test: build
	ctest --test-dir '$(BUILD)' --output-on-failure -j $(JOBS)
endif

clean:
	rm -rf '$(BUILD)' build-*/
