#!/usr/bin/env bash
# What `--colour srgb` adds to a thumbnail: a ~24 MP 4:2:0 JPEG with Adobe RGB (1998)
# embedded (colord-data's profile, by ExifTool) made into a 256-pixel thumbnail with
# `--colour keep` and with `--colour srgb`, in one run: callgrind instruction counts (exact,
# whatever else the machine runs) and hyperfine medians, and the ratio srgb / keep.
# Needs: valgrind, hyperfine, imagemagick, libjpeg-turbo-progs, exiftool, colord-data.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=../shared/corpus
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
runs=${RUNS:-11}
. Benchmarks/pare-binary.sh
photo=$corpus/exif/cameras/Apple_iPhone_5.jpg
if [ ! -f "$work/24mp-adobe.jpg" ]; then
    convert "$photo" -strip -resize 6000x4000! ppm:- | cjpeg -quality 90 -sample 2x2 > "$work/24mp.jpg"
    exiftool -q -q -o "$work/24mp-adobe.jpg" "-icc_profile<=/usr/share/color/icc/colord/AdobeRGB1998.icc" "$work/24mp.jpg"
fi
in=$work/24mp-adobe.jpg
echo "input $in; callgrind instruction counts, then $runs hyperfine runs each"
count() { # colour; prints the instructions of one thumbnail
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$PARE" thumbnail "$in" --size 256 \
        --colour "$1" -o "$work/c.png" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
keep=$(count keep)
srgb=$(count srgb)
python3 -c "print('callgrind: keep %d, srgb %d instructions; srgb / keep %.4f' % ($keep, $srgb, $srgb / $keep))"
hyperfine --style none --warmup 2 --runs "$runs" --export-json "$work/h.json" \
    "$PARE thumbnail $in --size 256 --colour keep -o $work/k.png" \
    "$PARE thumbnail $in --size 256 --colour srgb -o $work/s.png" > /dev/null 2>&1
python3 - "$work/h.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
k, s = (statistics.median(x["times"]) * 1000 for x in r)
print(f"hyperfine medians: keep {k:.1f} ms, srgb {s:.1f} ms; srgb / keep {s / k:.3f}")
PY
