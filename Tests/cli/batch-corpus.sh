#!/usr/bin/env bash
# Batch thumbnails over a directory of 200 mixed files (good, malformed, unsupported),
# copied from ../shared/corpus, with --jobs 2:
#   1. every good file gives a thumbnail, every bad one a failure line on stderr, exit 1;
#   2. interrupted midway (SIGINT, then SIGTERM), no partial output file is left and every
#      thumbnail present is a whole PNG (alpha) or JPEG (opaque).
# Usage: Tests/cli/batch-corpus.sh PATH/TO/pare. Prints "N passed, M failed".
set -u
name=batch-corpus
source "$(dirname "$0")/common.sh"

# 200 inputs: the same mix copied into several folders (names keep relative paths apart).
mkdir -p "$work/in"
files=()
while IFS= read -r f; do files+=("$f"); done < <(
    { ls "$corpus"/jpeg/conformance/*.jpg | head -60
      ls "$corpus"/jpeg/malformed/* | head -40
      ls "$corpus"/jpeg/unsupported/* | head -10
      ls "$corpus"/png/pngsuite/*.png | head -60
      ls "$corpus"/png/malformed/* | head -10
      ls "$corpus"/exif/cameras/*.jpg | head -20; } )
# Names of the files that must make a thumbnail: valid baseline JPEGs and PNGs.
good="$work/good-names"
for f in "${files[@]}"; do
    case "$f" in
        */jpeg/conformance/*|*/exif/cameras/*|*/png/pngsuite/[!x]*) basename "$f" ;;
    esac
done > "$good"
copy=0
while [ $(find "$work/in" -type f | wc -l) -lt 200 ]; do
    mkdir -p "$work/in/set$copy"
    for f in "${files[@]}"; do
        [ $(find "$work/in" -type f | wc -l) -ge 200 ] && break
        cp "$f" "$work/in/set$copy/"
    done
    copy=$((copy + 1))
done
total=$(find "$work/in" -type f | wc -l)

"$pare" thumbnail "$work/in" --recursive --size 96 --out-dir "$work/out" --jobs 2 --json \
    > "$work/stdout" 2> "$work/stderr"
status=$?
made=$(grep -c '"source"' "$work/stdout")
reported=$(grep -c "^pare: $work/in" "$work/stderr")
# Opaque thumbnails are written as JPEG, those with alpha as PNG.
outputs=$(find "$work/out" -type f \( -name '*.png' -o -name '*.jpg' \) | wc -l)
check "exit status 1 when some inputs are bad (got $status)" $([ "$status" = 1 ]; echo $?)
check "every input is a thumbnail or a reported failure ($made + $reported of $total)" \
    $([ $((made + reported)) = "$total" ]; echo $?)
check "one output file per thumbnail ($outputs files, $made thumbnails)" $([ "$outputs" = "$made" ]; echo $?)
check "the summary line counts them" $(grep -q "pare: $made done, $reported failed" "$work/stderr"; echo $?)
bad_good=$(grep "^pare: $work/in" "$work/stderr" | grep -v 'unsupported' | while IFS= read -r line; do
    name=$(printf '%s' "${line#pare: }" | cut -d: -f1); name=${name##*/}
    grep -qxF "$name" "$good" && printf '%s\n' "$line"
done | head -3)
check "no good baseline file failed${bad_good:+: $bad_good}" $([ -z "$bad_good" ]; echo $?)
check "every failure names a byte offset or the reason" \
    $(grep "^pare: $work/in" "$work/stderr" | grep -v -q -E 'byte|unsupported|cannot read'; [ $? = 1 ]; echo $?)
check "outputs keep their relative paths" $([ -d "$work/out/set0" ]; echo $?)

# The same inputs as paths on standard input (`-`), one a line, with --jobs 8: the same
# thumbnails (each JSON line the directory run wrote, but for its output path and time).
find "$work/in" -type f | sort | "$pare" thumbnail - --size 96 --out-dir "$work/out-stdin" --jobs 8 --json \
    > "$work/stdout-stdin" 2> /dev/null
same_lines() { sed -e 's/"output": "[^"]*", //' -e 's/, "ms": [0-9.]*//' "$1" | sort; }
check "paths from standard input make the same thumbnails ($(grep -c '"source"' "$work/stdout-stdin") of $made)" \
    $(cmp -s <(same_lines "$work/stdout") <(same_lines "$work/stdout-stdin"); echo $?)

# Interrupted runs: whatever was written is whole, nothing half-written remains.
for signal in INT TERM; do
    rm -rf "$work/out"
    "$pare" thumbnail "$work/in" "$work/in" "$work/in" --recursive --size 1024 --out-dir "$work/out" --jobs 2 \
        > /dev/null 2>&1 &
    pid=$!
    for _ in $(seq 200); do
        [ "$(find "$work/out" -type f \( -name '*.png' -o -name '*.jpg' \) 2>/dev/null | wc -l)" -ge 5 ] && break
        sleep 0.01
    done
    kill -s "$signal" "$pid" 2>/dev/null
    wait "$pid"
    code=$?
    partial=$(find "$work/out" -name '*.partial-*' 2>/dev/null | wc -l)
    broken=0
    while IFS= read -r png; do
        tail -c 8 "$png" | od -An -c | grep -q 'I   E   N   D' || broken=$((broken + 1))
    done < <(find "$work/out" -type f -name '*.png' 2>/dev/null)
    while IFS= read -r jpg; do
        [ "$(tail -c 2 "$jpg" | od -An -tx1 | tr -d ' ')" = ffd9 ] || broken=$((broken + 1))
    done < <(find "$work/out" -type f -name '*.jpg' 2>/dev/null)
    done_count=$(find "$work/out" -type f \( -name '*.png' -o -name '*.jpg' \) 2>/dev/null | wc -l)
    echo "SIG$signal: status $code after $done_count files"
    check "SIG$signal: interrupted (status $code)" $([ "$code" -gt 128 ]; echo $?)
    check "SIG$signal: stopped with status $code after $done_count files, no partial file ($partial), no broken PNG or JPEG ($broken)" \
        $([ "$partial" = 0 ] && [ "$broken" = 0 ]; echo $?)
done

report
