#!/usr/bin/env bash
# Builds one libFuzzer target and runs it.
#
#   Fuzz/run.sh TARGET SECONDS [extra libFuzzer flags...]
#
# TARGET is png, exif, jpeg, icc, pipeline or encoder; SECONDS 0 only builds. The module sources are
# compiled straight with swiftc (SwiftPM products cannot carry a fuzzer entry point) with
# coverage and a sanitizer, together with Fuzz/TARGET.swift, into $FUZZ_ROOT/TARGET/
# (FUZZ_ROOT defaults to /tmp/pare-fuzz). SANITIZER=address (default) or SANITIZER=undefined
# picks the sanitizer paired with the fuzzer. The seed corpus (files of the right kind from
# Fixtures/ and ../shared/corpus) is copied into the work dir; inputs the fuzzer finds
# accumulate in $FUZZ_ROOT/TARGET/corpus across runs; crashes, timeouts and OOMs are written
# to $FUZZ_ROOT/TARGET/artifacts/. The script exits 1 when the fuzzer reports a finding, and
# 0 with a message when the toolchain has no libFuzzer.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

usage() { echo "usage: Fuzz/run.sh png|exif|jpeg|icc|pipeline|encoder SECONDS [libFuzzer flags...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
TARGET=$1; SECONDS_TO_RUN=$2; shift 2
SANITIZER=${SANITIZER:-address}
SWIFTC=${SWIFTC:-swiftc}

# In dependency order. CZlib is the system zlib's module map, found through -I and linked
# with -lz; the others are compiled from every .swift file under Sources/MODULE.
case "$TARGET" in
    png)      MODULES="CZlib PareCore ParePNG" ;;
    exif)     MODULES="PareCore PareEXIF" ;;
    jpeg)     MODULES="PareCore PareJPEG" ;;
    icc)      MODULES="PareCore PareICC" ;;
    encoder)  MODULES="PareCore PareJPEG" ;;
    pipeline) MODULES="CZlib PareCore PareJPEG PareEXIF PareICC ParePNG Pare" ;;
    *) usage ;;
esac

FUZZ_ROOT=${FUZZ_ROOT:-/tmp/pare-fuzz}
case "$FUZZ_ROOT" in /*) ;; *) FUZZ_ROOT=$ROOT/$FUZZ_ROOT ;; esac
WORK=$FUZZ_ROOT/$TARGET
# REV=<commit> builds the modules from that commit (git archive) instead of the working tree,
# to fuzz a committed state while the tree is being edited.
SRC=$ROOT
if [ -n "${REV:-}" ]; then
    SRC=$WORK/src
    rm -rf "$SRC"; mkdir -p "$SRC"
    git archive "$REV" Sources | tar -x -C "$SRC"
    echo "fuzz: modules from $(git rev-parse --short "$REV")"
fi
BUILD=$WORK/build-$SANITIZER
mkdir -p "$BUILD" "$WORK/corpus" "$WORK/artifacts"

# A toolchain without libFuzzer (macOS Xcode toolchains, some distributions) cannot link
# -sanitize=fuzzer; say so and succeed, so CI can run this unconditionally.
PROBE=$WORK/probe
printf '@_cdecl("LLVMFuzzerTestOneInput") public func f(_ d: UnsafePointer<UInt8>, _ n: Int) -> CInt { 0 }\n' > "$PROBE.swift"
if ! "$SWIFTC" -parse-as-library -sanitize=fuzzer "$PROBE.swift" -o "$PROBE" >/dev/null 2>&1; then
    echo "fuzz: this Swift toolchain ($("$SWIFTC" --version 2>&1 | head -1)) has no libFuzzer; skipping $TARGET"
    exit 0
fi
if ! "$SWIFTC" -parse-as-library -sanitize=fuzzer,"$SANITIZER" "$PROBE.swift" -o "$PROBE" >/dev/null 2>&1; then
    echo "fuzz: this Swift toolchain does not accept -sanitize=$SANITIZER; skipping $TARGET (see Fuzz/README.md)"
    exit 0
fi

FLAGS=(-O -wmo -swift-version 6 -parse-as-library -sanitize=fuzzer,"$SANITIZER" -g -I "$BUILD" -I "$SRC/Sources/CZlib")
OBJECTS=()
for module in $MODULES; do
    [ "$module" = CZlib ] && continue
    echo "fuzz: compiling $module ($SANITIZER)"
    "$SWIFTC" "${FLAGS[@]}" -module-name "$module" -emit-module -emit-module-path "$BUILD/$module.swiftmodule" \
        -c $(find "$SRC/Sources/$module" -name '*.swift' | sort) -o "$BUILD/$module.o"
    OBJECTS+=("$BUILD/$module.o")
done
echo "fuzz: linking $BUILD/fuzz-$TARGET"
# gold warns about every ASan register thunk it cannot export; keep that noise out of sight.
if ! "$SWIFTC" "${FLAGS[@]}" -module-name "Fuzz_$TARGET" Fuzz/"$TARGET".swift "${OBJECTS[@]}" -lz \
        -o "$BUILD/fuzz-$TARGET" 2> "$BUILD/link.log"; then
    grep -v 'Cannot export local symbol' "$BUILD/link.log" >&2
    exit 1
fi

if [ "$SECONDS_TO_RUN" = 0 ]; then
    echo "fuzz: built $BUILD/fuzz-$TARGET (SECONDS 0: not run)"
    exit 0
fi

# Seeds: copied fresh each run (never committed). JPEG and pipeline seeds, regressions
# included (they are stored as plain files), get a leading request byte (see the targets).
SEEDS=$WORK/seeds
rm -rf "$SEEDS"; mkdir -p "$SEEDS"
CORPUS=$ROOT/../shared/corpus
[ -d "$CORPUS" ] || echo "fuzz: $CORPUS is missing; seeding from Fixtures/ only"
seed_files() {
    case "$TARGET" in
        png)  find Fixtures "$CORPUS/png" "$CORPUS/exif/png" -name '*.png' -size -256k 2>/dev/null ;;
        exif) find Fixtures "$CORPUS/exif" "$CORPUS/jpeg/conformance" -type f \
                   \( -name '*.jpg' -o -name '*.jpeg' -o -name '*.tif' -o -name '*.tiff' -o -name '*.JPG' \) 2>/dev/null ;;
        jpeg) find Fixtures "$CORPUS/jpeg/conformance" "$CORPUS/jpeg/malformed" "$CORPUS/jpeg/unsupported" \
                   "$CORPUS/exif/orientation" -type f \( -name '*.jpg' -o -name '*.jpeg' -o -name '*.JPG' \) -size -256k 2>/dev/null ;;
        # The profiles Debian installs, and each corpus file's embedded profile.
        icc) find /usr/share/color/icc -type f \( -iname '*.icc' -o -iname '*.icm' \) -size -64k 2>/dev/null
             find "$CORPUS" -type f \( -name '*.jpg' -o -name '*.png' -o -name '*.tif*' \) 2>/dev/null |
                 while IFS= read -r f; do
                     out=$WORK/profiles/$(basename "$f").icc
                     mkdir -p "$WORK/profiles"
                     exiftool -q -q -b -icc_profile "$f" > "$out" 2>/dev/null || true
                     [ -s "$out" ] && echo "$out" || rm -f "$out"
                 done ;;
        # Every kind the pipeline sniffs: JPEG (baseline, progressive, with EXIF and MPF), PNG, TIFF.
        pipeline) find Fixtures "$CORPUS/jpeg/conformance" "$CORPUS/jpeg/malformed" "$CORPUS/exif" "$CORPUS/png" \
                       -type f \( -name '*.jpg' -o -name '*.jpeg' -o -name '*.JPG' -o -name '*.png' -o -name '*.tif' \
                       -o -name '*.tiff' \) -size -256k 2>/dev/null | grep -v '\.s[1248]\.png$' ;;
    esac
    if [ "$TARGET" = pipeline ]; then
        find Fixtures/regressions -type f 2>/dev/null || true
    else
        find "Fixtures/regressions/$TARGET" -type f 2>/dev/null || true
    fi
}
i=0
while IFS= read -r f; do
    case "$TARGET" in
        # Metadata sits in the first 64 KiB; the rest of a camera photo is only slow to mutate.
        exif) head -c 65536 "$f" > "$SEEDS/$i" ;;
        jpeg|pipeline) { printf "\\x$(printf %02x $((i % 128)))"; cat "$f"; } > "$SEEDS/$i" ;;
        *) cp "$f" "$SEEDS/$i" ;;
    esac
    i=$((i + 1))
done < <(seed_files)
# The encoder reads no file: its seeds are requests (size, quality, format, sampling,
# coding) over bytes of the sample photo as pixels.
if [ "$TARGET" = encoder ]; then
    for j in $(seq 0 31); do
        { for v in $((j * 7 % 256)) $((j * 13 % 256)) 0 $((j * 29 % 256)) $((j * 3)) $((j % 32)) $((j * 5 % 64)) 3; do
              printf "\\x$(printf %02x "$v")"
          done
          head -c $((2048 + j * 64)) Fixtures/sample.jpg | tail -c 2048; } > "$SEEDS/$i"
        i=$((i + 1))
    done
fi
echo "fuzz: $i seed files; running $TARGET for $SECONDS_TO_RUN s"

LOG=$WORK/fuzz-$SANITIZER.log
# ASan's default 256 MiB quarantine of freed blocks counts toward the RSS limit; a smaller one
# keeps -rss_limit_mb about the decoder's own memory.
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=32:malloc_context_size=20}
# Swift's own crash backtracer takes a runtime trap's signal before libFuzzer can, and under
# ASan its memory server reads trip a heap-buffer-overflow report (or it hangs) that hides
# the trap; without it, libFuzzer reports the trap ("deadly signal") with the Swift frame.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
STAMP=$WORK/started
touch "$STAMP"
set +e
nice -n 19 "$BUILD/fuzz-$TARGET" "$WORK/corpus" "$SEEDS" \
    -rss_limit_mb=512 -timeout=2 -max_len=65536 -max_total_time="$SECONDS_TO_RUN" \
    -print_final_stats=1 -artifact_prefix="$WORK/artifacts/" "$@" > "$LOG" 2>&1
STATUS=$?
set -e
echo "fuzz: log $LOG"
grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$LOG" | tail -2 || true
# -fork=N (with -ignore_timeouts=1 etc., to keep going past findings) logs its own lines.
grep -E '^#[0-9]+: cov:' "$LOG" | tail -1 || true
grep -E '^stat::' "$LOG" || true
NEW=$(find "$WORK/artifacts" -type f -newer "$STAMP" | wc -l)
if [ $STATUS -ne 0 ] || [ "$NEW" -ne 0 ]; then
    find "$WORK/artifacts" -type f -newer "$STAMP"
    grep -E 'ERROR|SUMMARY|Fatal error|Test unit written' "$LOG" | head -20
    echo "fuzz: $TARGET FOUND A PROBLEM (exit $STATUS); see $LOG"
    exit 1
fi
echo "fuzz: $TARGET: no findings"
