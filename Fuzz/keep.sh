#!/usr/bin/env bash
# Makes a fuzzer finding a regression input that the test suites replay.
#
#   Fuzz/keep.sh ARTIFACT TARGET [WHAT IT BROKE]
#
# Minimises ARTIFACT with the target's fuzzer when it is built (Fuzz/run.sh TARGET 0) and
# still fails, copies it to Fixtures/regressions/TARGET/ under a name made of its kind
# (crash, timeout, oom, slow-unit) and its hash, and adds a line to that folder's README.md.
# The replay test of TARGET (see Fuzz/README.md) picks every file in the folder up; run it
# after fixing the bug. jpeg and pipeline inputs keep their leading request byte (*.fuzz).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: Fuzz/keep.sh ARTIFACT png|webp|exif|jpeg|icc|gif|tiff|pipeline|encoder|differential-jpeg|differential-png [WHAT IT BROKE]" >&2; exit 2; }
ARTIFACT=$(realpath "$1"); TARGET=$2; WHAT=${3:-}
cd "$(dirname "$0")/.."
case "$TARGET" in png|webp|exif|jpeg|icc|gif|tiff|pipeline|encoder|differential-jpeg|differential-png) ;; *) echo "keep: unknown target $TARGET" >&2; exit 2 ;; esac
[ -f "$ARTIFACT" ] || { echo "keep: no file $ARTIFACT" >&2; exit 2; }

kind=$(basename "$ARTIFACT" | sed -E 's/^(crash|timeout|oom|slow-unit|leak)-.*/\1/; t; s/.*/input/')
INPUT=$ARTIFACT
BINARY=${FUZZ_ROOT:-/tmp/pare-fuzz}/modules-${SANITIZER:-address}/fuzz-$TARGET
if [ -x "$BINARY" ] && [ "$kind" = crash ]; then
    minimised=$(mktemp)
    if SWIFT_BACKTRACE=enable=no "$BINARY" -minimize_crash=1 -runs=10000 -exact_artifact_path="$minimised" \
            "$ARTIFACT" > "$minimised.log" 2>&1 && [ -s "$minimised" ]; then
        echo "keep: minimised $(wc -c < "$ARTIFACT") -> $(wc -c < "$minimised") bytes"
        INPUT=$minimised
    fi
fi
case "$TARGET" in jpeg|pipeline|encoder|differential-jpeg) ext=fuzz ;; png|differential-png) ext=png ;; webp) ext=webp ;; gif) ext=gif ;; tiff) ext=tif ;; icc) ext=icc ;; exif) ext=bin ;; esac
DIR=Fixtures/regressions/$TARGET
NAME=$kind-$(sha1sum "$INPUT" | cut -c1-12).$ext
mkdir -p "$DIR"
cp "$INPUT" "$DIR/$NAME"
[ -f "$DIR/README.md" ] || printf 'Inputs of the `%s` fuzz target that once failed; replayed by the suites named in Fuzz/README.md.\n\n' "$TARGET" > "$DIR/README.md"
echo "- \`$NAME\` ($(wc -c < "$DIR/$NAME") bytes, $kind, kept $(date -u +%Y-%m-%d)): ${WHAT:-(say what it broke)}" >> "$DIR/README.md"
case "$TARGET" in differential-*)
    # The replay test compares with reference pixels stored beside the input.
    bash Fixtures/regressions/make-differential-references.sh "$DIR/$NAME" ;;
esac
echo "keep: $DIR/$NAME; replay with: swift test -c release -Xswiftc -enable-testing --filter Regression"
