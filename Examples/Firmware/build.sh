#!/usr/bin/env bash
# Builds the firmware example for one target: build.sh [arm|riscv|wasm]
# Output: .build/firmware/TARGET/firmware.elf (firmware.wasm for wasm), rebuilt only when a
# source is newer. Installs the Debian packages it needs when they are missing.
#
# Steps, as .ci/embedded-check compiles the modules: PareCore, PareJPEG and PareEXIF with
# Embedded Swift (-Osize, whole module; to LLVM IR, then objects with a section per function
# and per global), the example's Swift files on top of them, the board's C file with the
# target's C library (picolibc on the boards, wasi-libc for wasm), one link.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target="${1:-arm}"
# The heap arena on the boards, in bytes (the C library's allocator gets exactly this).
heap_bytes="${HEAP_BYTES:-262144}"

case "$target" in
arm)
    swift_target=armv7em-none-none-eabi
    packages="picolibc-arm-none-eabi gcc-arm-none-eabi qemu-system-arm"
    ;;
riscv)
    swift_target=riscv32-none-none-eabi
    packages="picolibc-riscv64-unknown-elf gcc-riscv64-unknown-elf qemu-system-misc"
    ;;
wasm)
    swift_target=wasm32-unknown-none-wasm
    packages="wasi-libc lld nodejs"
    ;;
*)
    echo "build.sh: the target must be arm, riscv or wasm" >&2
    exit 2
    ;;
esac

missing=""
for package in $packages; do
    dpkg -s "$package" >/dev/null 2>&1 || missing="$missing $package"
done
if [ -n "$missing" ]; then
    echo "firmware: installing$missing" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 $missing >&2
fi

out="$root/.build/firmware/$target"
mkdir -p "$out"
image="$out/firmware.elf"
[ "$target" = wasm ] && image="$out/firmware.wasm"
stamp="$out/heap-$heap_bytes"
sources=("$root"/Sources/PareCore "$root"/Sources/PareJPEG "$root"/Sources/PareEXIF
         "$here"/Sources "$here"/Board "$here/build.sh")
if [ -f "$image" ] && [ -f "$stamp" ]; then
    newer=$(find "${sources[@]}" -newer "$image" | head -1)
    [ -z "$newer" ] && exit 0
fi

swiftc_flags=(-target "$swift_target" -enable-experimental-feature Embedded -wmo -parse-as-library -Osize
              -I "$out")
# Each module goes to optimised LLVM IR, which the toolchain's clang turns into an object
# with every function and every global in a section of its own (-ffunction-sections
# -fdata-sections): swiftc has no -fdata-sections, and without it a module's constants and
# type metadata sit in one section that --gc-sections keeps or drops whole (6 KB of
# constant arrays and metadata of types the program never uses, the encoder's among them).
# -Oz: LLVM's smallest code for the IR that Swift's -Osize already optimised (4 KB less
# than -Os on the Cortex-M4).
# On the Cortex-M4 the objects are LLVM bitcode (-flto=full) and ld.lld optimises the four
# modules as one program (--lto-O2): code a module exports that the program never calls goes,
# constants and arguments known at every call are folded across modules, and a function with
# one caller left is merged into it. Swift compiles each module on its own and can do none of
# that across PareCore, PareJPEG, PareEXIF and the example.
case "$target" in
arm) clang_flags=(--target=thumbv7em-none-none-eabi -mcpu=cortex-m4 -mfloat-abi=softfp -mfpu=fpv4-sp-d16 -flto=full) ;;
riscv) clang_flags=(--target=riscv32-none-none-eabi -march=rv32imac -mabi=ilp32) ;;
wasm) clang_flags=(--target=wasm32-unknown-none-wasm) ;;
esac
clang_flags+=(-Oz -ffunction-sections -fdata-sections -Wno-override-module)
toolchain_clang="$(dirname "$(readlink -f "$(command -v swiftc)")")/clang"
# (The objects are removed first: the compiler may leave an existing one in place.)
rm -f "$out"/*.o "$out"/*.ll "$image"
compile() { # module name, then swiftc's arguments
    local module="$1"
    shift
    swiftc "${swiftc_flags[@]}" -module-name "$module" "$@" -emit-ir -o "$out/$module.ll"
    # String literals: Swift emits them as `unnamed_addr` byte arrays with no alignment, which
    # the code generator pools into one mergeable section per object (kept whole by
    # --gc-sections as soon as one literal is used: every EXIF tag name and message text rode
    # along) and aligns to 16 bytes when longer than 16 (700 B of padding). Without
    # `unnamed_addr` and with `align 1`, each literal gets a section of its own and the linker
    # keeps only those the program reaches.
    sed -i -E 's/^(@("[^"]*"|[^ ]+) = private) unnamed_addr (constant \[[0-9]+ x i8\] c".*")$/\1 \3, align 1/' \
        "$out/$module.ll"
    # The literals' names (private to the module: `.str.N…`) carry the module's name, so that
    # Tools/flash-table.py can tell whose they are once the link has made one object of all.
    sed -i -E "s/@(\"?)\.str\./@\1.str.$module./g" "$out/$module.ll"
    "$toolchain_clang" "${clang_flags[@]}" -c "$out/$module.ll" -o "$out/$module.o"
    rm -f "$out/$module.ll"
}
for module in PareCore PareJPEG PareEXIF; do
    echo "firmware: $module for $swift_target" >&2
    compile "$module" -emit-module -emit-module-path "$out/$module.swiftmodule" \
        $(find "$root/Sources/$module" -name '*.swift' | sort)
done
echo "firmware: the example for $swift_target" >&2
compile Firmware -enable-experimental-feature Extern "$here"/Sources/*.swift

objects=("$out/Firmware.o" "$out/PareCore.o" "$out/PareJPEG.o" "$out/PareEXIF.o")
wrap=(-Wl,--wrap=malloc -Wl,--wrap=free -Wl,--wrap=posix_memalign)
# RISC-V's link: picolibc's printf without floating point (the double formatting behind
# %g/%f is 6 KB of flash). On the Cortex-M4, board.c's own printf serves the start-up's fault
# handler, the only caller.
printf=(-DPICOLIBC_INTEGER_PRINTF_SCANF)
case "$target" in
arm)
    # Cortex-M4 with the single-precision FPU and the soft-float calling convention, as Swift
    # emits for armv7em-none-none-eabi. The memory map is the board's own (Board/mps2-an386.ld:
    # code at 0x0, RAM at 0x20000000, the heap arena of $heap_bytes after .bss, the stack at
    # the top of RAM), linked by the toolchain's ld.lld with picolibc's start-up and library.
    # --icf=safe folds functions whose code came out identical and whose address is never
    # taken: mostly the standard library's per-element-type array storage methods.
    cflags=(-mcpu=cortex-m4 -mthumb -mfloat-abi=softfp -mfpu=fpv4-sp-d16 -Os --specs=picolibc.specs)
    arm-none-eabi-gcc "${cflags[@]}" -c "$here/Board/board.c" -o "$out/board.o"
    multilib=$(arm-none-eabi-gcc "${cflags[@]}" -print-multi-directory)
    picolibc=/usr/lib/picolibc/arm-none-eabi/lib/$multilib
    libgcc=$(dirname "$(arm-none-eabi-gcc "${cflags[@]}" -print-libgcc-file-name)")
    "$(dirname "$toolchain_clang")/ld.lld" -T "$here/Board/mps2-an386.ld" --defsym=HEAP_BYTES="$heap_bytes" \
        "${wrap[@]/#-Wl,/}" --gc-sections --lto-O2 --icf=safe -Map="$out/firmware.map" \
        "$picolibc/crt0-semihost.o" "$out/board.o" "${objects[@]}" \
        -L "$picolibc" -L "$libgcc" --start-group -lc -lsemihost -lgcc --end-group -o "$image"
    ;;
riscv)
    # rv32imac, ilp32 soft-float, as Swift emits for riscv32-none-none-eabi. QEMU virt: the
    # program at 0x80000000, data at 0x81000000.
    cflags=(-march=rv32imac -mabi=ilp32 -Os --specs=picolibc.specs)
    riscv64-unknown-elf-gcc "${cflags[@]}" -c "$here/Board/board.c" -o "$out/board.o"
    riscv64-unknown-elf-gcc "${cflags[@]}" --oslib=semihost --crt0=semihost "${printf[@]}" \
        -Wl,--defsym=__flash=0x80000000 -Wl,--defsym=__flash_size=0x400000 \
        -Wl,--defsym=__ram=0x81000000 -Wl,--defsym=__ram_size=0x100000 \
        -Wl,--defsym=__heap_end=__end+$heap_bytes \
        "${wrap[@]}" -Wl,--gc-sections -Wl,-Map="$out/firmware.map" \
        "$out/board.o" "${objects[@]}" -lm -o "$image"
    ;;
wasm)
    sysroot=/usr
    clang --target=wasm32-wasi --sysroot="$sysroot" -I /usr/include/wasm32-wasi -Os \
        -c "$here/Board/board.c" -o "$out/board.o"
    wasm-ld -L /usr/lib/wasm32-wasi /usr/lib/wasm32-wasi/crt1-command.o \
        --wrap=malloc --wrap=free --wrap=posix_memalign --gc-sections \
        "$out/board.o" "${objects[@]}" -lc -lm -o "$image"
    ;;
esac
rm -f "$out"/heap-*
touch "$stamp"
echo "firmware: $image" >&2
