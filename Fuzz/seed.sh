#!/usr/bin/env bash
# Rebuilds the committed seed corpus Fuzz/corpus/TARGET from scratch: candidate files of the
# right kind from Fixtures/ and ../shared/corpus, each cut to its first CUT bytes (1024 for
# JPEG and pipeline inputs, behind a request byte; 2048 for PNG, EXIF and GIF; ICC profiles whole
# when under 4 KiB), of which libFuzzer's set-cover merge on edges (-use_counters=0) keeps a small set
# covering the same edges, so that the committed corpora stay a few hundred KB in all. Needs the target built (Fuzz/run.sh TARGET 0). Campaigns then add to
# it with `Fuzz/run.sh TARGET SECONDS --merge`.
#
#   Fuzz/seed.sh TARGET
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${1:?usage: Fuzz/seed.sh png|exif|jpeg|icc|gif|pipeline|encoder}
BINARY=${FUZZ_ROOT:-/tmp/pare-fuzz}/modules-${SANITIZER:-address}/fuzz-$TARGET
[ -x "$BINARY" ] || { echo "seed: build it first: Fuzz/run.sh $TARGET 0" >&2; exit 1; }
CORPUS=../shared/corpus
CANDIDATES=$(mktemp -d)
candidates() {
    case "$TARGET" in
        png)  find Fixtures "$CORPUS/png" "$CORPUS/exif/png" -name '*.png' ;;
        exif) find Fixtures "$CORPUS/exif" "$CORPUS/jpeg/conformance" -type f \
                   \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.tif' -o -iname '*.tiff' \) ;;
        jpeg) find Fixtures "$CORPUS/jpeg/conformance" "$CORPUS/jpeg/malformed" "$CORPUS/jpeg/unsupported" \
                   "$CORPUS/exif/orientation" -type f \( -iname '*.jpg' -o -iname '*.jpeg' \) ;;
        gif)  find Fixtures "$CORPUS/gif" -name '*.gif' ;;
        icc)  find /usr/share/color/icc -type f \( -iname '*.icc' -o -iname '*.icm' \) -size -4k ;;
        pipeline) find Fixtures "$CORPUS/jpeg/conformance" "$CORPUS/exif" "$CORPUS/png" -type f \
                       \( -iname '*.jpg' -o -iname '*.png' -o -iname '*.tif' \) | grep -v '\.s[1248]\.png$' ;;
        encoder) ;;
    esac 2>/dev/null | grep -v '/regressions/' | sort
}
i=0
while IFS= read -r f; do
    case "$TARGET" in
        jpeg|pipeline) { printf "\\x$(printf %02x $((i % 128)))"; head -c 1023 "$f"; } > "$CANDIDATES/$i" ;;
        icc) cp "$f" "$CANDIDATES/$i" ;;
        *) head -c 2048 "$f" > "$CANDIDATES/$i" ;;
    esac
    i=$((i + 1))
done < <(candidates)
# The encoder reads no file: its seeds are requests over bytes of the sample photo as pixels.
if [ "$TARGET" = encoder ]; then
    for j in $(seq 0 31); do
        { for v in $((j * 7 % 256)) $((j * 13 % 256)) 0 $((j * 29 % 256)) $((j * 3)) $((j % 32)) $((j * 5 % 64)) 3; do
              printf "\\x$(printf %02x "$v")"
          done
          head -c $((2048 + j * 64)) Fixtures/sample.jpg | tail -c 192; } > "$CANDIDATES/$i"
        i=$((i + 1))
    done
fi
rm -rf "Fuzz/corpus/$TARGET"; mkdir -p "Fuzz/corpus/$TARGET"
SWIFT_BACKTRACE=enable=no nice -n 19 "$BINARY" -set_cover_merge=1 -use_counters=0 -rss_limit_mb=512 -timeout=2 -max_len=65536 \
    "Fuzz/corpus/$TARGET" "$CANDIDATES" > "$CANDIDATES.log" 2>&1 || { tail -20 "$CANDIDATES.log"; exit 1; }
echo "seed: $TARGET: $i candidates -> $(ls "Fuzz/corpus/$TARGET" | wc -l) files, $(cat "Fuzz/corpus/$TARGET"/* | wc -c) bytes"
rm -rf "$CANDIDATES" "$CANDIDATES.log"
