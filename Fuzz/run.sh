#!/usr/bin/env bash
# Builds one libFuzzer target and runs it.
#
#   Fuzz/run.sh TARGET SECONDS [--merge] [extra libFuzzer flags...]
#
# TARGET is png, webp, exif, jpeg, icc, gif, tiff, pipeline, encoder, differential-jpeg or
# differential-png; SECONDS 0 only builds. The modules are
# compiled once per sanitizer with swiftc (SwiftPM products cannot carry a fuzzer entry
# point) into $FUZZ_ROOT/modules-SANITIZER/ and reused by every target until a source file
# changes; each target is then one compile of Fuzz/TARGET.swift linked against them
# (FUZZ_ROOT defaults to /tmp/pare-fuzz). SANITIZER=address (default) or undefined.
# The fuzzer starts from the committed seeds (Fuzz/corpus/TARGET) and the committed
# regressions (Fixtures/regressions/TARGET), with Fuzz/dict/*.dict; what it finds goes to
# $FUZZ_ROOT/TARGET/corpus, and --merge afterwards adds the inputs that bring new coverage to
# Fuzz/corpus/TARGET (to commit). Crashes, timeouts and OOMs are written to
# $FUZZ_ROOT/TARGET/artifacts/; Fuzz/keep.sh turns one into a regression file. The script
# exits 1 on a finding, and also when the toolchain has no libFuzzer (FUZZ_OPTIONAL=1 makes
# that a skip).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

usage() { echo "usage: Fuzz/run.sh png|webp|exif|jpeg|icc|gif|tiff|pipeline|encoder|differential-jpeg|differential-png SECONDS [--merge] [libFuzzer flags...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
TARGET=$1; SECONDS_TO_RUN=$2; shift 2
MERGE=0
if [ "${1:-}" = --merge ]; then MERGE=1; shift; fi
SANITIZER=${SANITIZER:-address}
SWIFTC=${SWIFTC:-swiftc}

# The modules each target links, in dependency order. CZlib is the system zlib's module map,
# found through -I and linked with -lz.
ALL_MODULES="PareCore PareJPEG PareEXIF PareICC ParePNG PareWebP PareGIF PareTIFF Pare"
case "$TARGET" in
    png)      MODULES="PareCore ParePNG";            DICTS="png" ;;
    webp)     MODULES="PareCore PareWebP";           DICTS="webp" ;;
    exif)     MODULES="PareCore PareEXIF";           DICTS="tiff jpeg" ;;
    jpeg)     MODULES="PareCore PareJPEG";           DICTS="jpeg" ;;
    icc)      MODULES="PareCore PareICC";            DICTS="icc" ;;
    gif)      MODULES="PareCore PareGIF";            DICTS="gif" ;;
    tiff)     MODULES="PareCore PareJPEG PareEXIF PareTIFF"; DICTS="tiff" ;;
    encoder)  MODULES="PareCore PareJPEG";           DICTS="" ;;
    pipeline) MODULES="$ALL_MODULES";                DICTS="jpeg png tiff" ;;
    # The differential targets seed from the jpeg and png targets' corpora (SEED_CORPUS).
    differential-jpeg) MODULES="PareCore PareJPEG"; DICTS="jpeg" ;;
    differential-png)  MODULES="PareCore ParePNG";  DICTS="png" ;;
    *) usage ;;
esac

FUZZ_ROOT=${FUZZ_ROOT:-/tmp/pare-fuzz}
case "$FUZZ_ROOT" in /*) ;; *) FUZZ_ROOT=$ROOT/$FUZZ_ROOT ;; esac
WORK=$FUZZ_ROOT/$TARGET
mkdir -p "$WORK/corpus" "$WORK/artifacts"
# REV=<commit> builds the modules from that commit (git archive) instead of the working tree,
# to fuzz a committed state while the tree is being edited.
SRC=$ROOT
MODULE_BUILD=$FUZZ_ROOT/modules-$SANITIZER
if [ -n "${REV:-}" ]; then
    rev=$(git rev-parse --short "$REV")
    SRC=$FUZZ_ROOT/src-$rev
    MODULE_BUILD=$FUZZ_ROOT/modules-$SANITIZER-$rev
    if [ ! -d "$SRC/Sources" ]; then
        mkdir -p "$SRC"; git archive "$REV" Sources | tar -x -C "$SRC"
    fi
    echo "fuzz: modules from $rev"
fi

# A toolchain without libFuzzer (macOS Xcode toolchains, some distributions) cannot link
# -sanitize=fuzzer: that fails the run, unless FUZZ_OPTIONAL=1 asks for a skip.
no_fuzzer() {
    echo "fuzz: $1"
    if [ "${FUZZ_OPTIONAL:-0}" = 1 ]; then echo "fuzz: FUZZ_OPTIONAL=1: skipping $TARGET"; exit 0; fi
    exit 1
}
# One probe per run: runs started together would otherwise write the same file.
PROBE=$FUZZ_ROOT/probe-$$
printf '@_cdecl("LLVMFuzzerTestOneInput") public func f(_ d: UnsafePointer<UInt8>, _ n: Int) -> CInt { 0 }\n' > "$PROBE.swift"
if ! "$SWIFTC" -parse-as-library -sanitize=fuzzer "$PROBE.swift" -o "$PROBE" >/dev/null 2>&1; then
    no_fuzzer "this Swift toolchain ($("$SWIFTC" --version 2>&1 | head -1)) has no libFuzzer"
fi
if ! "$SWIFTC" -parse-as-library -sanitize=fuzzer,"$SANITIZER" "$PROBE.swift" -o "$PROBE" >/dev/null 2>&1; then
    no_fuzzer "this Swift toolchain does not accept -sanitize=$SANITIZER (see Fuzz/README.md)"
fi
rm -f "$PROBE" "$PROBE.swift"

FLAGS=(-O -wmo -swift-version 6 -parse-as-library -sanitize=fuzzer,"$SANITIZER" -g -I "$MODULE_BUILD" -I "$SRC/Sources/CZlib")
# The modules: rebuilt only when a source file or the flags changed (the stamp is a hash of
# both), so six targets cost one module build. A lock keeps two runs from building at once.
mkdir -p "$MODULE_BUILD"
STAMP_NOW=$( { echo "${FLAGS[*]}"; "$SWIFTC" --version 2>&1 | head -1
               for module in $ALL_MODULES; do find "$SRC/Sources/$module" -name '*.swift' | sort | xargs cat; done; } |
             sha256sum | cut -d' ' -f1)
exec 9> "$MODULE_BUILD/lock"
flock 9
if [ "$(cat "$MODULE_BUILD/stamp" 2>/dev/null)" != "$STAMP_NOW" ]; then
    rm -f "$MODULE_BUILD/stamp"
    for module in $ALL_MODULES; do
        echo "fuzz: compiling $module ($SANITIZER)"
        "$SWIFTC" "${FLAGS[@]}" -module-name "$module" -emit-module -emit-module-path "$MODULE_BUILD/$module.swiftmodule" \
            -c $(find "$SRC/Sources/$module" -name '*.swift' | sort) -o "$MODULE_BUILD/$module.o"
    done
    echo "$STAMP_NOW" > "$MODULE_BUILD/stamp"
fi
flock -u 9
BINARY=$MODULE_BUILD/fuzz-$TARGET
OBJECTS=()
for module in $MODULES; do OBJECTS+=("$MODULE_BUILD/$module.o"); done
# The encoder target reads its request with the replay test's EncoderFuzzRequest; the jpeg and
# gif targets share their row sink, and the two PNG targets their CRC repair.
SHARED=()
case "$TARGET" in
    encoder) SHARED=(Tests/TestSupport/EncoderFuzzRequest.swift) ;;
    jpeg|gif) SHARED=(Fuzz/shared/SequentialCheckingSink.swift) ;;
    png|differential-png) SHARED=(Fuzz/shared/FixedCRCs.swift) ;;
esac
# The differential targets call libjpeg-turbo or libpng through a C shim (setjmp cannot be
# written in Swift), compiled here with the toolchain's clang for the same sanitizer and
# linked into the harness alone.
REFERENCE=()
case "$TARGET" in
    differential-jpeg|differential-png)
        CLANG=${CLANG:-$(dirname "$(command -v "$SWIFTC")")/clang}
        LIBRARY=${TARGET#differential-}
        REFERENCE_OBJECT=$MODULE_BUILD/reference-$LIBRARY.o
        if [ ! -f "$REFERENCE_OBJECT" ] || [ "$REFERENCE_OBJECT" -ot "Fuzz/differential/reference-$LIBRARY.c" ] ||
                [ "$REFERENCE_OBJECT" -ot Fuzz/differential/reference.h ]; then
            "$CLANG" -O1 -g -fsanitize=fuzzer-no-link,"$SANITIZER" -c "Fuzz/differential/reference-$LIBRARY.c" -o "$REFERENCE_OBJECT"
        fi
        REFERENCE=(-I Fuzz/differential "$REFERENCE_OBJECT")
        case "$TARGET" in differential-jpeg) REFERENCE+=(-ljpeg) ;; *) REFERENCE+=(-lpng16) ;; esac ;;
esac
if [ ! -x "$BINARY" ] || [ "$BINARY" -ot "$MODULE_BUILD/stamp" ] || [ "$BINARY" -ot "Fuzz/$TARGET.swift" ] ||
        [ "$BINARY" -ot Tests/TestSupport/EncoderFuzzRequest.swift ] || [ "$BINARY" -ot Fuzz/shared/SequentialCheckingSink.swift ] ||
        [ "$BINARY" -ot Fuzz/shared/FixedCRCs.swift ] ||
        { [ ${#REFERENCE[@]} -gt 0 ] && [ "$BINARY" -ot "$REFERENCE_OBJECT" ]; }; then
    echo "fuzz: linking $BINARY"
    # gold warns about every ASan register thunk it cannot export; keep that noise out of sight.
    if ! "$SWIFTC" "${FLAGS[@]}" -module-name "Fuzz_${TARGET//-/_}" "Fuzz/$TARGET.swift" "${SHARED[@]}" "${OBJECTS[@]}" "${REFERENCE[@]}" -lz \
            -o "$BINARY" 2> "$WORK/link.log"; then
        grep -v 'Cannot export local symbol' "$WORK/link.log" >&2
        exit 1
    fi
fi

if [ "$SECONDS_TO_RUN" = 0 ]; then
    echo "fuzz: built $BINARY (SECONDS 0: not run)"
    exit 0
fi

# Seeds: the committed corpus and the committed regressions. Regressions of the jpeg and
# pipeline targets saved by Fuzz/keep.sh (*.fuzz) already carry their request byte; other
# files (plain JPEGs, and the other targets' regressions the pipeline also takes) get one.
# The differential targets have no committed corpus of their own: they start from the jpeg
# (same request byte) and png targets' seeds. Their regression folders also hold the
# reference images (*.pnm, *.pam), which are not inputs; their plain JPEGs get request byte 4
# (every scale).
SEEDS=$WORK/regression-seeds
case "$TARGET" in
    differential-jpeg) SEED_CORPUS=Fuzz/corpus/jpeg ;;
    differential-png) SEED_CORPUS=Fuzz/corpus/png ;;
    *) SEED_CORPUS=Fuzz/corpus/$TARGET ;;
esac
rm -rf "$SEEDS"; mkdir -p "$SEEDS" "$SEED_CORPUS"
REGRESSIONS=$(if [ "$TARGET" = pipeline ]; then find Fixtures/regressions -type f ! -name '*.md' ! -path '*/encoder/*' ! -path '*/differential-*';
              else find "Fixtures/regressions/$TARGET" -type f ! -name '*.md' ! -name '*.pnm' ! -name '*.pam' 2>/dev/null; fi || true)
i=0
for f in $REGRESSIONS; do
    case "$TARGET:$f" in
        jpeg:*.fuzz|differential-jpeg:*.fuzz|pipeline:*/pipeline/*) cp "$f" "$SEEDS/$i" ;;
        jpeg:*|pipeline:*) { printf '\000'; cat "$f"; } > "$SEEDS/$i" ;;
        differential-jpeg:*) { printf '\004'; cat "$f"; } > "$SEEDS/$i" ;;
        *) cp "$f" "$SEEDS/$i" ;;
    esac
    i=$((i + 1))
done
DICT_ARGS=()
if [ -n "$DICTS" ]; then
    for d in $DICTS; do cat "Fuzz/dict/$d.dict"; done > "$WORK/all.dict"
    DICT_ARGS=(-dict="$WORK/all.dict")
fi
echo "fuzz: $(ls "$SEED_CORPUS" | wc -l) committed seeds, $i regressions, $(ls "$WORK/corpus" | wc -l) found before; running $TARGET for $SECONDS_TO_RUN s"

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
nice -n 19 "$BINARY" "$WORK/corpus" "$SEED_CORPUS" "$SEEDS" "${DICT_ARGS[@]}" \
    -rss_limit_mb=512 -timeout=2 -max_len=65536 -max_total_time="$SECONDS_TO_RUN" \
    -print_final_stats=1 -artifact_prefix="$WORK/artifacts/" "$@" > "$LOG" 2>&1
STATUS=$?
set -e
echo "fuzz: log $LOG"
grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$LOG" | tail -2 || true
# -fork=N (with -ignore_timeouts=1 etc., to keep going past findings) logs its own lines.
grep -E '^#[0-9]+: cov:' "$LOG" | tail -1 || true
grep -E '^stat::' "$LOG" || true
echo "fuzz: $(ls "$WORK/corpus" | wc -l) inputs in $WORK/corpus"
# libFuzzer keeps an input that ran over 10 s as slow-unit-* and goes on: not a finding by
# itself (at nice 19 a busy machine starves the run), but named here, to be replayed by hand.
SLOW=$(find "$WORK/artifacts" -type f -name 'slow-unit-*' -newer "$STAMP" | wc -l)
if [ "$SLOW" -ne 0 ]; then
    echo "fuzz: $SLOW input(s) ran over 10 s (slow-unit-* in $WORK/artifacts); replay each by hand:" \
         "$BINARY FILE, as a finding if it is slow alone"
fi
NEW=$(find "$WORK/artifacts" -type f ! -name 'slow-unit-*' -newer "$STAMP" | wc -l)
if [ $STATUS -ne 0 ] || [ "$NEW" -ne 0 ]; then
    find "$WORK/artifacts" -type f ! -name 'slow-unit-*' -newer "$STAMP"
    grep -E 'ERROR|SUMMARY|Fatal error|Test unit written' "$LOG" | head -20
    echo "fuzz: $TARGET FOUND A PROBLEM (exit $STATUS); see $LOG; keep it with Fuzz/keep.sh ARTIFACT $TARGET"
    exit 1
fi
echo "fuzz: $TARGET: no findings"

# --merge: the committed corpus is rebuilt as the smallest set of its own files and this and
# earlier runs' inputs (those under 4 KiB) that covers every edge they cover together
# (libFuzzer's set-cover merge on edges alone, -use_counters=0: merging on every feature kept
# ten times as many files), so that it grows with coverage and stays a few hundred KB.
if [ $MERGE = 1 ] && [ "$SEED_CORPUS" != "Fuzz/corpus/$TARGET" ]; then
    echo "fuzz: --merge: $TARGET seeds from $SEED_CORPUS, which its own target merges; nothing merged"
elif [ $MERGE = 1 ]; then
    before=$(ls "Fuzz/corpus/$TARGET" | wc -l)
    SMALL=$WORK/merge-candidates MERGED=$WORK/merged
    rm -rf "$SMALL" "$MERGED"; mkdir -p "$SMALL" "$MERGED"
    find "$WORK/corpus" -type f -size -4097c -exec cp {} "$SMALL/" \;
    nice -n 19 "$BINARY" -set_cover_merge=1 -use_counters=0 -rss_limit_mb=512 -timeout=10 -max_len=4096 \
        "$MERGED" "Fuzz/corpus/$TARGET" "$SMALL" > "$WORK/merge.log" 2>&1 ||
        { tail -20 "$WORK/merge.log"; echo "fuzz: merge failed"; exit 1; }
    rm -f "Fuzz/corpus/$TARGET"/*
    cp "$MERGED"/* "Fuzz/corpus/$TARGET/"
    echo "fuzz: merge: Fuzz/corpus/$TARGET $before -> $(ls "Fuzz/corpus/$TARGET" | wc -l) files," \
         "$(cat "Fuzz/corpus/$TARGET"/* | wc -c) bytes; $(grep -oE '[0-9]+ new coverage edges' "$WORK/merge.log")"
fi
