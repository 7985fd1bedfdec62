#!/usr/bin/env bash
# JPEG decode speed, release build, in one run against libjpeg-turbo's djpeg:
#   full decode:  pare decode --scale 1   vs  djpeg -dct int -pnm
#   1/8 decode:   pare decode --scale 1/8 vs  djpeg -scale 1/8 -pnm
#   and pare 1/8 against pare 1/1,
# on ~12 MP (4000x3000) and ~24 MP (6000x4000) 4:2:0 photos made from a corpus camera image
# (upscaled with grain so that they compress like photos, cjpeg -quality 90 -sample 2x2).
#
#   Benchmarks/jpeg-decode.sh             # builds pare in release mode first
#   PARE=/path/to/pare Benchmarks/jpeg-decode.sh
set -euo pipefail
cd "$(dirname "$0")/.."
photo=../shared/corpus/exif/cameras/Panasonic_Lumix_DMC-LX7.jpg
[ -f "$photo" ] || { echo "missing $photo" >&2; exit 1; }
if [ -z "${PARE:-}" ]; then
    scratch=${SCRATCH:-/tmp/build-jpeg-bench}
    swift build -c release --product pare --scratch-path "$scratch" >&2
    PARE="$scratch/release/pare"
fi
work=$(mktemp -d /tmp/jpeg-decode-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

for size in 4000x3000 6000x4000; do
    jpg="$work/photo-$size.jpg"
    convert "$photo" -resize "$size!" -attenuate 0.3 +noise Gaussian ppm:- | cjpeg -quality 90 -sample 2x2 > "$jpg"
    echo "== $size 4:2:0, $(stat -c %s "$jpg") bytes"
    "$PARE" decode "$jpg" -o "$work/pare.ppm"
    djpeg -dct int -pnm -outfile "$work/djpeg.ppm" "$jpg"
    cmp -s "$work/pare.ppm" "$work/djpeg.ppm" && echo "full decode identical to djpeg -dct int"
    "$PARE" decode "$jpg" --scale 1/8 -o "$work/pare8.ppm"
    djpeg -scale 1/8 -pnm -outfile "$work/djpeg8.ppm" "$jpg"
    cmp -s "$work/pare8.ppm" "$work/djpeg8.ppm" && echo "1/8 decode identical to djpeg -scale 1/8"
    hyperfine -N --warmup 1 --runs 7 --export-json "$work/$size.json" \
        "$PARE decode $jpg --scale 1 -o $work/pare.ppm" \
        "djpeg -dct int -pnm -outfile $work/djpeg.ppm $jpg" \
        "$PARE decode $jpg --scale 1/8 -o $work/pare8.ppm" \
        "djpeg -scale 1/8 -pnm -outfile $work/djpeg8.ppm $jpg"
    python3 - "$work/$size.json" <<'PY'
import json, sys
r = [x["median"] for x in json.load(open(sys.argv[1]))["results"]]
print(f"median ms: pare 1/1 {r[0]*1e3:.1f}, djpeg 1/1 {r[1]*1e3:.1f}, pare 1/8 {r[2]*1e3:.1f}, djpeg 1/8 {r[3]*1e3:.1f}")
print(f"pare/djpeg full {r[0]/r[1]:.2f}; pare/djpeg 1/8 {r[2]/r[3]:.2f}; pare 1/1 / pare 1/8 {r[0]/r[2]:.2f}x")
PY
done
