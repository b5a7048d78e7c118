# Thin wrapper around CMake. `make` = check/install dependencies, configure, build into
# build/; `make test` = build, then ctest. Variables: BUILD (dir), WERROR=1,
# SANITIZE=address,undefined|thread, CMAKE_FLAGS (extra -D options).
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
	@bash scripts/deps.sh --ensure

configure: deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) build-*/
