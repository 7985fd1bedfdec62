#!/usr/bin/env bash
# How much a reduced DCT scale costs a thumbnail, as a function of the factor left to the
# resampler (the "margin" of SourceChoice.swift). For each camera JPEG of the corpus, and for
# each ratio R of its long side to the thumbnail's, makes the thumbnail twice: from the DCT
# decode at SCALE (1/2 unless given; leaving the resampler R/2) and from the full decode
# (leaving it R), both through `pare thumbnail` on a PNG of the decode, and prints the PSNR
# between the two. At 1/2, R = 4 is a margin of 2, the smallest the source choice accepted
# before; R = 3.8 a margin of 1.9. At 1/4 the margin is R/4.
#
#   Benchmarks/scale-margin.sh                 # builds pare (release) first
#   PARE=/path/to/pare RATIOS="3 3.8 4" Benchmarks/scale-margin.sh
#   SCALE=1/4 RATIOS="5.8 6 8" Benchmarks/scale-margin.sh
#
# Needs python3 and pnmtopng (netpbm). Prints one line per file and ratio, then per ratio the minimum and median.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=../shared/corpus/exif/cameras
[ -d "$corpus" ] || { echo "no corpus at $corpus" >&2; exit 1; }
if [ -z "${PARE:-}" ]; then
    swift build -c release --product pare >&2
    PARE=$(swift build -c release --show-bin-path)/pare
fi
ratios=${RATIOS:-3 3.6 3.8 3.9 4}
scale=${SCALE:-1/2}
denominator=${scale#1/}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for f in "$corpus"/*.jpg ${EXTRA:-}; do
    # `pare decode` writes Netpbm; `pare thumbnail` reads JPEG, PNG and TIFF: PNG in between.
    "$PARE" decode "$f" --scale 1 -o "$work/full.ppm" 2>/dev/null || continue
    "$PARE" decode "$f" --scale "$scale" -o "$work/half.ppm" 2>/dev/null || continue
    pnmtopng "$work/full.ppm" > "$work/full.png"
    pnmtopng "$work/half.ppm" > "$work/half.png"
    long=$(head -c 64 "$work/full.ppm" | sed -n 2p | tr ' ' '\n' | sort -n | tail -1)
    for r in $ratios; do
        size=$(python3 -c "print(round($long / $r))")
        [ "$size" -ge 64 ] || continue
        "$PARE" thumbnail "$work/full.png" --size "$size" -o "$work/a.ppm"
        "$PARE" thumbnail "$work/half.png" --size "$size" -o "$work/b.ppm"
        python3 - "$work/a.ppm" "$work/b.ppm" "$(basename "$f")" "$r" "$size" <<'EOF'
import math, sys
def read(path):
    with open(path, 'rb') as f:
        assert f.readline().strip() in (b'P5', b'P6')
        w, h = map(int, f.readline().split())
        f.readline()
        return w, h, f.read()
wa, ha, a = read(sys.argv[1])
wb, hb, b = read(sys.argv[2])
if (wa, ha) != (wb, hb):
    print(f"{sys.argv[3]} R={sys.argv[4]} size {sys.argv[5]}: {wa}x{ha} against {wb}x{hb}, skipped")
    sys.exit(0)
mse = sum((x - y) ** 2 for x, y in zip(a, b)) / len(a)
psnr = 99.0 if mse == 0 else 10 * math.log10(255 * 255 / mse)
print(f"{sys.argv[3]} R={sys.argv[4]} size {sys.argv[5]}: PSNR {psnr:.1f} dB")
EOF
    done
done | tee "$work/lines.txt"
echo
python3 - "$work/lines.txt" "$denominator" <<'EOF'
import re, statistics, sys
by = {}
for line in open(sys.argv[1]):
    m = re.search(r"R=([0-9.]+) .*PSNR ([0-9.]+)", line)
    if m:
        by.setdefault(m.group(1), []).append(float(m.group(2)))
for r in sorted(by, key=float):
    v = by[r]
    print(f"R = {r} (margin {float(r) / float(sys.argv[2]):.2f}): {len(v)} files, minimum {min(v):.1f} dB, median {statistics.median(v):.1f} dB")
EOF
