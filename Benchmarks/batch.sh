#!/usr/bin/env bash
# Batch throughput: `pare thumbnail DIR --recursive --size 256 --jobs 2` against `--jobs 1`,
# median of RUNS runs each (hyperfine), on two directories:
#   mixed:  200 corpus files, the mix of Tests/cli/batch-corpus.sh (conformance, malformed
#           and unsupported JPEGs, PngSuite, malformed PNGs, camera photos; 44 of them fail,
#           as they must, so the exit status is 1 and hyperfine ignores it);
#   photos: 60 photos, 30 corpus camera photos and 4 MP re-encodes of them.
# Prints each speed-up (jobs 1 time / jobs 2 time) and the load average around the runs.
# Needs hyperfine and ImageMagick. PARE=path/to/pare skips the build; WORK keeps the inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=../shared/corpus
work=${WORK:-$(mktemp -d)}
runs=${RUNS:-10}
if [ -z "${PARE:-}" ]; then
    swift build --scratch-path /tmp/build-bench -c release --product pare >/dev/null
    PARE=$(swift build --scratch-path /tmp/build-bench -c release --show-bin-path)/pare
fi
if [ ! -d "$work/mixed" ]; then
    mkdir -p "$work/mixed"
    { ls "$corpus"/jpeg/conformance/*.jpg | head -60
      ls "$corpus"/jpeg/malformed/* | head -40
      ls "$corpus"/jpeg/unsupported/* | head -10
      ls "$corpus"/png/pngsuite/*.png | head -60
      ls "$corpus"/png/malformed/* | head -10
      ls "$corpus"/exif/cameras/*.jpg | head -20; } | while IFS= read -r f; do cp "$f" "$work/mixed/"; done
fi
if [ ! -d "$work/photos" ]; then
    mkdir -p "$work/photos"
    for f in $(ls "$corpus"/exif/cameras/*.jpg | head -30); do
        cp "$f" "$work/photos/"
        convert "$f" -strip -resize 2400x1600! -quality 90 "$work/photos/big-$(basename "$f")" 2>/dev/null
    done
fi
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for set in mixed photos; do
    hyperfine --style none --ignore-failure --warmup 2 --runs "$runs" --export-json "$work/$set.json" \
        "$PARE thumbnail $work/$set --recursive --size 256 --out-dir $work/out1 --jobs 1" \
        "$PARE thumbnail $work/$set --recursive --size 256 --out-dir $work/out2 --jobs 2" >/dev/null
    python3 - "$work/$set.json" "$set" "$(ls "$work/$set" | wc -l)" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
one, two = (statistics.median(x["times"]) for x in r)
print("%-6s (%s files): jobs 1 %.0f ms, jobs 2 %.0f ms, speed-up %.2fx" % (sys.argv[2], sys.argv[3], one * 1000, two * 1000, one / two))
PY
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
