# Cross build for aarch64 Linux with Debian's gcc-aarch64-linux-gnu and the arm64 multiarch
# -dev packages (scripts/deps.sh --cross arm64); tests run under qemu-user (docs/arm64.md).
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
#         [-DPEAK_QEMU_CPU=neoverse-n1 | max,sve-default-vector-length=32]
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(PEAK_CROSS_TRIPLE aarch64-linux-gnu)

set(CMAKE_C_COMPILER ${PEAK_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${PEAK_CROSS_TRIPLE}-g++)

# Libraries and headers of the target only; programs (pkg-config, python) of the host.
set(CMAKE_FIND_ROOT_PATH /usr/${PEAK_CROSS_TRIPLE} /usr/lib/${PEAK_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(CMAKE_LIBRARY_ARCHITECTURE ${PEAK_CROSS_TRIPLE})

# pkg-config reads the arm64 .pc files (Debian's multiarch layout), never the host's.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/${PEAK_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# The emulator every test runs under: binfmt is not mounted on the build machines, so it
# is named. The CPU model is a cache variable: neoverse-n1 (NEON, no SVE), or max with an
# SVE length in bytes (16: 128-bit as Graviton4/Axion/Cobalt, 32: 256-bit as Graviton3).
set(PEAK_QEMU_CPU "max,sve-default-vector-length=32" CACHE STRING
    "qemu-aarch64 -cpu model for tests (neoverse-n1, max,sve-default-vector-length=16|32)")
# ctest runs each test executable through cmake/qemu-aarch64.sh, which runs an aarch64 ELF
# under qemu-aarch64 with that CPU and the right loader, and anything else (the wrappers
# `qemu-aarch64.sh wrap` leaves, which the test scripts need) as is.
find_program(PEAK_QEMU_AARCH64 qemu-aarch64)
if(PEAK_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR
      "${CMAKE_CURRENT_LIST_DIR}/qemu-aarch64.sh;run;${PEAK_QEMU_CPU}"
      CACHE STRING "Runs aarch64 test binaries on the build machine" FORCE)
endif()
