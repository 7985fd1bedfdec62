#!/usr/bin/env bash
# PNG decode speed: `pare decode x.png -o x.pam` against libpng through Netpbm's
# `pngtopam x.png > /dev/null`, in the same run, on a ~12 MP RGB photo made from a corpus
# image (upscaled, with grain so it compresses like a photo). Two encodings: ImageMagick's
# adaptive filters, and Paeth on every row (the costliest filter to undo).
#
#   Benchmarks/png-decode.sh            # builds pare in release mode first
#   PARE=/path/to/pare Benchmarks/png-decode.sh
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=../shared/corpus/png/extra/ipng-kodim23.png
[ -f "$corpus" ] || { echo "missing $corpus" >&2; exit 1; }
if [ -z "${PARE:-}" ]; then
    scratch=${SCRATCH:-/tmp/build-png-bench}
    swift build -c release --product pare --scratch-path "$scratch" >&2
    PARE="$scratch/release/pare"
fi
work=$(mktemp -d /tmp/png-decode-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

convert "$corpus" -resize 4000x3000! -attenuate 0.4 +noise Gaussian -quality 75 "$work/adaptive.png"
convert "$work/adaptive.png" -define png:compression-filter=4 "$work/paeth.png"

for name in adaptive paeth; do
    png="$work/$name.png"
    echo "== $name: $(identify -format '%wx%h %[bit-depth]-bit %[type]' "$png"), $(stat -c %s "$png") bytes"
    # Same pixels as libpng first.
    "$PARE" decode "$png" -o "$work/pare.pam"
    pngtopam -alphapam "$png" > "$work/libpng.pam"
    cmp -s "$work/pare.pam" "$work/libpng.pam" && echo "output identical to pngtopam -alphapam"
    hyperfine --warmup 1 --runs 7 --export-json "$work/$name.json" \
        "$PARE decode $png -o $work/pare.pam" \
        "pngtopam $png > /dev/null"
    python3 - "$work/$name.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
pare, libpng = results[0]["median"], results[1]["median"]
print(f"median: pare {pare * 1000:.1f} ms, pngtopam {libpng * 1000:.1f} ms, ratio pare/pngtopam {pare / libpng:.2f}")
PY
done
