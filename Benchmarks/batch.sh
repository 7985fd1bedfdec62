#!/usr/bin/env bash
# Batch throughput: `pare thumbnail DIR --size 256 --jobs 2` against `--jobs 1` on the same
# 60 photos (corpus camera photos and 4 MP upscales of them), median of RUNS runs each.
# Prints the speed-up (jobs 1 time / jobs 2 time). Needs hyperfine and ImageMagick.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=../shared/corpus
work=${WORK:-$(mktemp -d)}
runs=${RUNS:-5}
if [ -z "${PARE:-}" ]; then
    swift build -c release --product pare >/dev/null
    PARE=$(swift build -c release --show-bin-path)/pare
fi
if [ ! -d "$work/in" ]; then
    mkdir -p "$work/in"
    i=0
    for f in "$corpus"/exif/cameras/*.jpg; do
        cp "$f" "$work/in/$(basename "$f")"
        convert "$f" -strip -resize 2400x1600! -quality 90 "$work/in/big-$(basename "$f")"
        i=$((i + 1))
        [ $i -ge 30 ] && break
    done
fi
echo "$(ls "$work/in" | wc -l) inputs in $work/in; $runs runs each"
hyperfine --style none --warmup 1 --runs "$runs" --export-json "$work/batch.json" \
    "$PARE thumbnail $work/in --size 256 --out-dir $work/out1 --jobs 1" \
    "$PARE thumbnail $work/in --size 256 --out-dir $work/out2 --jobs 2" >/dev/null
python3 - "$work/batch.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
one, two = (statistics.median(x["times"]) for x in r)
print("jobs 1: %.0f ms   jobs 2: %.0f ms   speed-up %.2fx" % (one * 1000, two * 1000, one / two))
PY
