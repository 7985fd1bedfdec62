#!/usr/bin/env bash
# Times PareTIFF's full decode (release: -O, whole-module) of the 12-megapixel RGB files
# Fixtures/make-tiff-corpus.sh makes (uncompressed, LZW, Deflate; 16-row strips), and
# tiff2rgba's for comparison when it is installed.
#
#   Benchmarks/tiff-decode.sh [FILES...]      # default: .build/made-corpus/tiff/bench-12mp-*.tif (Fixtures/make-tiff-corpus.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/pare-tiff-bench}
mkdir -p "$OUT"
FLAGS=(-O -wmo -parse-as-library -swift-version 6 -I "$OUT" -I Sources/CZlib)
for module in PareCore PareEXIF PareJPEG ParePNG PareTIFF; do
    swiftc "${FLAGS[@]}" -module-name "$module" -emit-module -emit-module-path "$OUT/$module.swiftmodule" \
        -c $(find "Sources/$module" -name '*.swift' | sort) -o "$OUT/$module.o"
done
swiftc -O -swift-version 6 -I "$OUT" -I Sources/CZlib Benchmarks/TIFFDecode/main.swift \
    "$OUT"/PareCore.o "$OUT"/PareEXIF.o "$OUT"/PareJPEG.o "$OUT"/ParePNG.o "$OUT"/PareTIFF.o -lz -o "$OUT/tiff-decode"
FILES=("$@")
[ ${#FILES[@]} -gt 0 ] || FILES=(.build/made-corpus/tiff/bench-12mp-none.tif .build/made-corpus/tiff/bench-12mp-lzw.tif
                                 .build/made-corpus/tiff/bench-12mp-deflate.tif)
"$OUT/tiff-decode" "${FILES[@]}"
if command -v tiff2rgba > /dev/null; then
    for f in "${FILES[@]}"; do
        start=$(date +%s.%N)
        tiff2rgba -c none "$f" "$OUT/oracle.tif"
        end=$(date +%s.%N)
        echo "tiff2rgba $(basename "$f"): $(echo "($end - $start) * 1000 / 1" | bc) ms (decode and write)"
    done
    rm -f "$OUT/oracle.tif"
fi
