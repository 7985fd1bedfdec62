#!/usr/bin/env bash
# Decodes a JPEG on an emulated board and checks it against the host:
#
#   Examples/Firmware/run.sh [JPEG] [--scale 1/8|1/4|1/2|1] [--target arm|riscv|wasm] [--limit BYTES] [--count]
#
# Builds the firmware if needed (build.sh), runs it (QEMU mps2-an386 Cortex-M4 by default,
# QEMU virt RV32, or Node's WASI for wasm) with the JPEG read from the host through
# semihosting, then decodes the same file with the host's `pare decode --scale S -o x.ppm`
# and compares the CRC-32 of the PPM's pixel bytes. The last line is
#   crc32=XXXXXXXX width=W height=H heapPeak=N stackPeak=N flash=N
# and the status is 0 only when the board's CRC equals the host's. PARE=/path/to/pare uses
# that host build instead of building one (release) here. --limit caps the ledger. --count
# (arm, riscv) counts the instructions the board executes from the decoder's creation to the
# end of its decode with a QEMU plugin (Tools/insn-count.c) and prints them per output pixel.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
input="$root/../shared/corpus/exif/cameras/Casio_EX-S1.jpg"
scale=1/8
target=arm
limit=""
count=""
while [ $# -gt 0 ]; do
    case "$1" in
    --scale) scale="$2"; shift 2 ;;
    --target) target="$2"; shift 2 ;;
    --limit) limit="$2"; shift 2 ;;
    --count) count=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) input="$1"; shift ;;
    esac
done
case "$scale" in 1/8|1/4|1/2|1|1/1) ;; *) echo "run.sh: --scale must be 1/8, 1/4, 1/2 or 1" >&2; exit 2 ;; esac
[ -f "$input" ] || { echo "run.sh: no such file: $input" >&2; exit 2; }

bash "$here/build.sh" "$target"
out="$root/.build/firmware/$target"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Semihosting opens paths relative to QEMU's directory; a copy with a plain name there avoids
# commas and spaces in the command line.
cp "$input" "$work/input.jpg"

args=(input.jpg "$scale")
[ -n "$limit" ] && args+=("$limit")
status=0
case "$target" in
arm|riscv)
    semihosting="enable=on,target=native"
    for a in "${args[@]}"; do semihosting="$semihosting,arg=$a"; done
    if [ "$target" = arm ]; then
        qemu=(qemu-system-arm -M mps2-an386)
    else
        qemu=(qemu-system-riscv32 -M virt -bios none)
    fi
    prefix=arm-none-eabi
    [ "$target" = riscv ] && prefix=riscv64-unknown-elf
    if [ -n "$count" ]; then
        plugin="$root/.build/firmware/insn-count.so"
        if [ ! -f "$plugin" ] || [ "$here/Tools/insn-count.c" -nt "$plugin" ]; then
            cc -shared -fPIC -O2 -o "$plugin" "$here/Tools/insn-count.c"
        fi
        mark=$("$prefix-nm" "$out/firmware.elf" | awk '$3 == "board_mark" {print "0x" $1}')
        qemu+=(-d plugin -plugin "$plugin,mark=$mark")
    fi
    (cd "$work" && timeout 600 "${qemu[@]}" -nographic -monitor none -serial none \
        -semihosting-config "$semihosting" -kernel "$out/firmware.elf" </dev/null) \
        >"$work/board.txt" 2>&1 || status=$?
    # Flash: code and read-only data (.init and .text, which holds .rodata in picolibc's
    # script), plus the initial values of .data that crt0 copies out of flash.
    flash=$("$prefix-size" -A "$out/firmware.elf" | awk '$1==".init"||$1==".text"||$1==".data"||$1==".tdata" {s+=$2} END {print s}')
    ;;
wasm)
    (cd "$work" && timeout 600 node --no-warnings "$here/run-wasm.mjs" "$out/firmware.wasm" "$work/input.jpg" "${args[@]:1}") \
        >"$work/board.txt" 2>&1 || status=$?
    # Flash: the module's code and data sections.
    flash=$(node -e '
        const b = require("fs").readFileSync(process.argv[1]); let p = 8, s = 0;
        while (p < b.length) { const id = b[p++]; let n = 0, k = 0, c;
            do { c = b[p++]; n |= (c & 127) << k; k += 7; } while (c & 128);
            if (id === 10 || id === 11) s += n; p += n; }
        console.log(s);' "$out/firmware.wasm")
    ;;
*) echo "run.sh: --target must be arm, riscv or wasm" >&2; exit 2 ;;
esac
cat "$work/board.txt"

board_line=$(grep '^crc32=' "$work/board.txt" | tail -1 || true)
if [ -z "$board_line" ]; then
    if grep -q '^error: ' "$work/board.txt"; then
        echo "run.sh: the board refused the file with a typed error (status $status)"
    else
        echo "run.sh: the board gave no result (status $status)"
    fi
    exit 1
fi

# The host's decode of the same file.
pare="${PARE:-}"
if [ -z "$pare" ]; then
    (cd "$root" && swift build -c release --product pare >&2)
    pare="$(cd "$root" && swift build -c release --show-bin-path)/pare"
fi
if ! "$pare" decode "$input" --scale "$scale" -o "$work/host.pnm" >"$work/host.txt" 2>&1; then
    cat "$work/host.txt"
    echo "run.sh: the host decode failed"
    exit 1
fi
# The pixel bytes follow three header lines ("P6", "W H", "255"); gzip's trailer holds their
# CRC-32 (zlib's), little-endian.
host_crc=$(tail -n +4 "$work/host.pnm" | gzip -c | tail -c 8 | head -c 4 | od -An -tx4 | tr -d ' \n' | tr a-f A-F)
board_crc=${board_line#crc32=}
board_crc=${board_crc%% *}
echo "host: crc32=$host_crc ($("$pare" --version 2>/dev/null | head -1), pare decode --scale $scale)"
if [ -n "$count" ]; then
    marks=$(sed -n 's/^instructions total=[0-9]* marks=//p' "$work/board.txt")
    first=${marks%%,*}
    second=${marks#*,}
    second=${second%%,*}
    width=$(echo "$board_line" | sed 's/.* width=\([0-9]*\).*/\1/')
    height=$(echo "$board_line" | sed 's/.* height=\([0-9]*\).*/\1/')
    size="$("$pare" inspect "$input" 2>/dev/null | awk '$1 == "width:" && !w {w = $2} $1 == "height:" && !h {h = $2} END {print w, h}')"
    awk -v n=$((second - first)) -v w="$width" -v h="$height" -v size="$size" \
        'BEGIN { split(size, s, " "); printf "instructions decode=%d perOutputPixel=%.1f perInputPixel=%.2f\n", n, n / (w * h), (s[1] * s[2] > 0 ? n / (s[1] * s[2]) : 0) }'
fi
echo "$board_line flash=$flash"
[ "$board_crc" = "$host_crc" ] && [ "$status" -eq 0 ]
