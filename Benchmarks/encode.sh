#!/usr/bin/env bash
# The JPEG encoder's benchmark (issue 17): Pare against cjpeg -dct int, timed in one run.
#   1. encode the 12 MP photo from PPM to /dev/null: pare convert vs cjpeg -dct int
#      (target ≤ 1.3), with the outputs compared byte for byte first;
#   2. pare thumbnail of the 24 MP photo to 256 px writing JPEG vs writing PNG (target ≤ 1.0);
#   3. the 256-px thumbnail's bytes, JPEG at the default quality vs PNG, for each photo
#      (target ≤ 1/3).
# Inputs are made in WORK (default: a new /tmp/pare-encode.XXXXXX) as Benchmarks/compare.sh
# makes them: camera photos of ../shared/corpus upscaled with a little grain, 4:2:0 JPEGs at
# quality 90. Timing: hyperfine -N, both commands in one invocation, RUNS runs each
# (default 30: the run-to-run spread of a 30–40 ms process on this machine moves a median
# of 10 by ±0.1 in the ratio), one warm-up. CALLGRIND=1 adds instruction counts of row 1 and 2.
#   Benchmarks/encode.sh                       # builds pare (release, /tmp/build-bench) first
#   PARE=/path/to/pare RUNS=20 Benchmarks/encode.sh
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-30}
cameras=../shared/corpus/exif/cameras
photos=(Panasonic_Lumix_DMC-LX7 Nikon_D70 HTC_One Kodak_DX4330 Canon_EOS_D60)
for tool in hyperfine convert cjpeg; do
    command -v "$tool" >/dev/null || { echo "$tool is needed" >&2; exit 1; }
done
if [ -z "${PARE:-}" ]; then
    scratch=${SCRATCH:-/tmp/build-bench}
    swift build -c release --product pare --scratch-path "$scratch" >&2
    PARE="$scratch/release/pare"
fi
work=${WORK:-$(mktemp -d /tmp/pare-encode.XXXXXX)}
mkdir -p "$work/out"
if [ ! -f "$work/done" ]; then
    echo "making inputs in $work" >&2
    convert "$cameras/${photos[0]}.jpg" -strip -resize '4000x3000!' -attenuate 0.3 +noise Gaussian "ppm:$work/12.ppm"
    cjpeg -quality 90 -sample 2x2 -outfile "$work/12-420.jpg" "$work/12.ppm"
    for i in 0 1 2 3 4; do
        convert "$cameras/${photos[$i]}.jpg" -strip -resize '6000x4000!' -attenuate 0.3 +noise Gaussian ppm:- \
            | cjpeg -quality 90 -sample 2x2 -outfile "$work/24-$i.jpg"
    done
    touch "$work/done"
fi

ratio() { # hyperfine JSON -> "mean1 mean2 ratio"
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; a,b=r[0]["median"],r[1]["median"]; print("%.1f ms  %.1f ms  ratio %.2f" % (a*1e3, b*1e3, a/b))' "$1"
}

echo "== 1. encode 12 MP PPM -> JPEG (quality 75, 4:2:0), Pare vs cjpeg -dct int"
"$PARE" convert "$work/12.ppm" -o "$work/out/p.jpg"
cjpeg -dct int -outfile "$work/out/c.jpg" "$work/12.ppm"
cmp -s "$work/out/p.jpg" "$work/out/c.jpg" && echo "outputs identical" || echo "OUTPUTS DIFFER"
hyperfine -N -w 1 -r "$runs" --export-json "$work/encode.json" \
    "$PARE convert $work/12.ppm -o /dev/null --format jpeg" "cjpeg -dct int -outfile /dev/null $work/12.ppm" > /dev/null
echo "median: $(ratio "$work/encode.json")   (target ≤ 1.3)"

echo "== 2. pare thumbnail 24 MP -> 256 px, writing JPEG vs PNG"
hyperfine -N -w 1 -r "$runs" --export-json "$work/thumb.json" \
    "$PARE thumbnail $work/24-0.jpg --size 256 -o $work/out/t.jpg" \
    "$PARE thumbnail $work/24-0.jpg --size 256 -o $work/out/t.png" > /dev/null
echo "median: $(ratio "$work/thumb.json")   (target ≤ 1.0)"

echo "== 3. 256-px thumbnail bytes, JPEG (default quality) vs PNG"
for f in "$work/12-420.jpg" "$work"/24-?.jpg; do
    "$PARE" thumbnail "$f" --size 256 -o "$work/out/s.jpg"
    "$PARE" thumbnail "$f" --size 256 -o "$work/out/s.png"
    j=$(stat -c %s "$work/out/s.jpg"); p=$(stat -c %s "$work/out/s.png")
    python3 -c "import sys; j,p=int(sys.argv[2]),int(sys.argv[3]); print('%-12s JPEG %6d B  PNG %7d B  %.3f%s' % (sys.argv[1], j, p, j/p, '' if 3*j <= p else '  OVER 1/3'))" \
        "$(basename "$f")" "$j" "$p"
done

if [ "${CALLGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
    echo "== callgrind (instructions)"
    for cmd in "$PARE convert $work/12.ppm -o /dev/null --format jpeg" "cjpeg -dct int -outfile /dev/null $work/12.ppm" \
               "$PARE thumbnail $work/24-0.jpg --size 256 -o $work/out/t.jpg" \
               "$PARE thumbnail $work/24-0.jpg --size 256 -o $work/out/t.png"; do
        n=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null $cmd 2>&1 | sed -n 's/.*I *refs: *//p')
        echo "$n  $cmd"
    done
fi
