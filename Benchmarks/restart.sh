#!/usr/bin/env bash
# Parallel decoding of restart intervals, release build, in one run against djpeg:
# a ~12 MP (4000x3000) 4:2:0 photo made from a corpus camera image, encoded with a restart
# marker after every MCU row (cjpeg -quality 90 -sample 2x2 -restart 1), and the same image
# without restart markers (same coefficients, so the same pixels; Pare decodes it serially).
#   pare decode --scale 1/8 and --scale 1   vs  djpeg -scale 1/8 / djpeg -dct int (same file)
#   pare thumbnail --size 256               on both files
# Prints medians, the ratios, user+sys CPU time per run (the machine is shared) and uptime.
#
#   Benchmarks/restart.sh                  # builds pare in release mode first
#   PARE=/path/to/pare Benchmarks/restart.sh
set -euo pipefail
cd "$(dirname "$0")/.."
photo=../shared/corpus/exif/cameras/Panasonic_Lumix_DMC-LX7.jpg
[ -f "$photo" ] || { echo "missing $photo" >&2; exit 1; }
if [ -z "${PARE:-}" ]; then
    scratch=${SCRATCH:-/tmp/build-restart-bench}
    swift build -c release --product pare --scratch-path "$scratch" >&2
    PARE="$scratch/release/pare"
fi
work=$(mktemp -d /tmp/restart-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

convert "$photo" -resize '4000x3000!' -attenuate 0.3 +noise Gaussian ppm:- > "$work/photo.ppm"
cjpeg -quality 90 -sample 2x2 -restart 1 "$work/photo.ppm" > "$work/rst.jpg"
cjpeg -quality 90 -sample 2x2 "$work/photo.ppm" > "$work/plain.jpg"
rm "$work/photo.ppm"
echo "== 4000x3000 4:2:0: -restart 1 $(stat -c %s "$work/rst.jpg") bytes, no restarts $(stat -c %s "$work/plain.jpg") bytes"
for scale in 1/1 1/8; do
    "$PARE" decode "$work/rst.jpg" --scale $scale -o "$work/pare-rst.ppm"
    "$PARE" decode "$work/plain.jpg" --scale $scale -o "$work/pare-plain.ppm"
    djpeg -dct int -scale $scale -pnm -outfile "$work/djpeg.ppm" "$work/rst.jpg"
    cmp -s "$work/pare-rst.ppm" "$work/pare-plain.ppm" && echo "scale $scale: parallel decode identical to serial decode" \
        || echo "scale $scale: parallel decode DIFFERS from serial decode"
    cmp -s "$work/pare-rst.ppm" "$work/djpeg.ppm" && echo "scale $scale: parallel decode identical to djpeg" \
        || echo "scale $scale: parallel decode differs from djpeg"
done
echo "load before: $(uptime)"
hyperfine -N --warmup 2 --runs 11 --export-json "$work/bench.json" \
    "$PARE decode $work/rst.jpg --scale 1/8 -o $work/p8.ppm" \
    "djpeg -scale 1/8 -pnm -outfile $work/d8.ppm $work/rst.jpg" \
    "$PARE decode $work/plain.jpg --scale 1/8 -o $work/s8.ppm" \
    "$PARE decode $work/rst.jpg --scale 1 -o $work/p1.ppm" \
    "djpeg -dct int -pnm -outfile $work/d1.ppm $work/rst.jpg" \
    "$PARE decode $work/plain.jpg --scale 1 -o $work/s1.ppm" \
    "$PARE thumbnail $work/rst.jpg --size 256 -o $work/t.png" \
    "$PARE thumbnail $work/plain.jpg --size 256 -o $work/t.png"
echo "load after: $(uptime)"
python3 - "$work/bench.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
names = ["pare 1/8 (restarts, parallel)", "djpeg -scale 1/8", "pare 1/8 (no restarts, serial)",
         "pare 1/1 (restarts, parallel)", "djpeg -dct int", "pare 1/1 (no restarts, serial)",
         "pare thumbnail 256 (restarts)", "pare thumbnail 256 (no restarts)"]
for name, x in zip(names, r):
    print(f"{name:34s} median {x['median']*1e3:7.1f} ms  min {x['min']*1e3:7.1f}  max {x['max']*1e3:7.1f}"
          f"  user+sys {(x['user'] + x['system'])*1e3:7.1f} ms")
m = [x["median"] for x in r]
print(f"pare/djpeg 1/8: {m[0]/m[1]:.2f} (serial pare/djpeg 1/8: {m[2]/m[1]:.2f}; parallel/serial {m[0]/m[2]:.2f})")
print(f"pare/djpeg 1/1: {m[3]/m[4]:.2f} (serial pare/djpeg 1/1: {m[5]/m[4]:.2f}; parallel/serial {m[3]/m[5]:.2f})")
print(f"thumbnail parallel/serial: {m[6]/m[7]:.2f}; thumbnail (restarts) / djpeg -scale 1/8: {m[6]/m[1]:.2f}")
PY
