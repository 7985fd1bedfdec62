#!/usr/bin/env bash
# The disk cache and the pipeline on a folder of 1,000 photos: the bench photos of
# thumbnail.sh (12 MP and 24 MP JPEGs, a 12 MP PNG) and the corpus's camera JPEGs, copied
# under different names.
#   1. `pare thumbnail DIR --size 256 --cache C --out-dir O`: first run (empty cache) against
#      a second run over the unchanged folder (every thumbnail from the cache); the target
#      is second ≤ 5% of first.
#   2. A simulated scroll over the same folder (Benchmarks/ScrollSimulation: a 4-column
#      grid, 6 rows on screen, one row every 8 frames at 60 Hz, 60 rows): the pipeline
#      (cancelling cells that leave, prefetching 2 rows) against a plain loop of
#      `ImageSource.thumbnail` calls: time to first visible thumbnail, cells whose thumbnail
#      came while they were on screen, latency, peak resident memory.
# Needs: imagemagick, libjpeg-turbo-progs. RUNS (default 3) runs of each cache timing.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=../shared/corpus
work=${WORK:-$(mktemp -d)}
runs=${RUNS:-3}

if [ -z "${PARE:-}" ]; then
    swift build -c release --product pare >/dev/null
    PARE=$(swift build -c release --show-bin-path)/pare
fi
pare=$PARE

photo=$corpus/exif/cameras/Apple_iPhone_5.jpg
if [ ! -f "$work/bench/12mp.jpg" ]; then
    mkdir -p "$work/bench"
    convert "$photo" -strip -resize 4000x3000! ppm:- | cjpeg -quality 90 -sample 2x2 > "$work/bench/12mp.jpg"
    convert "$photo" -strip -resize 6000x4000! ppm:- | cjpeg -quality 90 -sample 2x2 > "$work/bench/24mp.jpg"
    convert "$photo" -strip -resize 4000x3000! "$work/bench/12mp.png"
fi
if [ ! -d "$work/photos" ]; then
    mkdir -p "$work/photos"
    sources=("$work"/bench/* "$corpus"/exif/cameras/*.jpg)
    for i in $(seq 0 999); do
        f=${sources[$((i % ${#sources[@]}))]}
        cp "$f" "$work/photos/$(printf 'IMG_%04d' "$i").${f##*.}"
    done
fi

seconds() { # command...; prints the wall time in seconds
    local start end
    start=$(date +%s.%N)
    "$@" > /dev/null 2>&1
    end=$(date +%s.%N)
    python3 -c "print('%.3f' % ($end - $start))"
}

first=() second=()
for run in $(seq "$runs"); do
    rm -rf "$work/cache" "$work/out"
    first+=("$(seconds "$pare" thumbnail "$work/photos" --size 256 --cache "$work/cache" --out-dir "$work/out")")
    second+=("$(seconds "$pare" thumbnail "$work/photos" --size 256 --cache "$work/cache" --out-dir "$work/out")")
done
"$pare" thumbnail "$work/photos" --size 256 --cache "$work/cache" --out-dir "$work/out" --json > "$work/second.json" 2>/dev/null
cached=$(grep -c '"cached": true' "$work/second.json")
python3 - "${first[*]}" "${second[*]}" "$cached" <<'PY'
import statistics, sys
first = [float(x) for x in sys.argv[1].split()]
second = [float(x) for x in sys.argv[2].split()]
f, s = statistics.median(first), statistics.median(second)
print('1000 photos → 256 px: first run %.2f s (runs %s), second run with --cache %.3f s (runs %s): %.1f%% of the first; %s of 1000 from the cache'
      % (f, ' '.join(sys.argv[1].split()), s, ' '.join(sys.argv[2].split()), 100 * s / f, sys.argv[3]))
PY

driver_scratch=${DRIVER_SCRATCH:-.build/scroll-simulation}
swift build -c release --package-path Benchmarks/ScrollSimulation --scratch-path "$driver_scratch" >/dev/null
driver=$(swift build -c release --package-path Benchmarks/ScrollSimulation --scratch-path "$driver_scratch" --show-bin-path)/scroll-simulation
"$driver" "$work/photos" --mode pipeline --rows 60 --frames-per-row 8
"$driver" "$work/photos" --mode loop --rows 60 --frames-per-row 8
