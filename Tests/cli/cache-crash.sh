#!/usr/bin/env bash
# `pare thumbnail DIR --cache C --out-dir O` killed with SIGKILL midway, then run again:
#   1. every output is a whole, valid PNG (chunk CRCs, zlib stream, IEND) and byte for byte
#      the thumbnail a run without the cache makes;
#   2. no damaged cache entry is served: two entries are damaged by hand before the rerun
#      (one truncated, one with a bit flipped), and the rerun decodes those inputs again;
#   3. the files already cached are not decoded again: the rerun's JSON says
#      "cached": true for exactly as many inputs as there were sound entries;
#   4. no temporary file of the killed run is left in the cache.
# Inputs: ~240 files copied from ../shared/corpus (camera JPEGs, conformance JPEGs, valid
# PngSuite files) under numbered names. Usage: Tests/cli/cache-crash.sh PATH/TO/pare.
# Prints "N passed, M failed".
set -u
name=cache-crash
source "$(dirname "$0")/common.sh"

mkdir -p "$work/in"
n=0
for copy in 1 2 3 4; do
    for f in "$corpus"/exif/cameras/*.jpg; do
        n=$((n + 1)); cp "$f" "$work/in/$(printf 'photo%04d' $n).jpg"
    done
done
for f in $(ls "$corpus"/jpeg/conformance/*.jpg | head -60) $(ls "$corpus"/png/pngsuite/[!x]*.png | head -40); do
    n=$((n + 1)); cp "$f" "$work/in/$(printf 'file%04d' $n).${f##*.}"
done
total=$(ls "$work/in" | wc -l)

# The reference: the same thumbnails without a cache.
"$pare" thumbnail "$work/in" --size 160 --format png --out-dir "$work/reference" --jobs 2 > /dev/null 2>&1
check "the reference run made every thumbnail" \
    $([ "$(ls "$work/reference" | wc -l)" = "$total" ]; echo $?)

# First run, killed with SIGKILL once a third of the outputs exist.
"$pare" thumbnail "$work/in" --size 160 --format png --cache "$work/cache" --out-dir "$work/out" --jobs 2 > /dev/null 2>&1 &
pid=$!
for _ in $(seq 2000); do
    [ "$(ls "$work/out" 2>/dev/null | grep -c '\.png$')" -ge $((total / 3)) ] && break
    sleep 0.005
done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
killed_after=$(ls "$work/out" | grep -c '\.png$')
entries=$(ls "$work/cache" | grep -c '\.pare$')
leftovers=$(ls -A "$work/cache" | grep -c '^\.tmp-')
echo "killed after $killed_after of $total outputs; $entries cache entries, $leftovers temporary files left"
check "the run was killed midway ($killed_after of $total)" $([ "$killed_after" -lt "$total" ] && [ "$entries" -ge 2 ]; echo $?)

# Damage two entries by hand: one cut in half, one with a bit flipped in its payload.
set -- "$work"/cache/*.pare
truncate -s $(( $(stat -c %s "$1") / 2 )) "$1"
python3 - "$2" <<'PY'
import sys
path = sys.argv[1]
data = bytearray(open(path, 'rb').read())
data[len(data) - 40] ^= 0x10
open(path, 'wb').write(data)
PY
sound=$((entries - 2))

# The same command again.
"$pare" thumbnail "$work/in" --size 160 --format png --cache "$work/cache" --out-dir "$work/out" --jobs 2 --json \
    > "$work/rerun.json" 2> "$work/rerun.err"
status=$?
check "the rerun succeeds (status $status)" $([ "$status" = 0 ]; echo $?)
outputs=$(ls "$work/out" | grep -c '\.png$')
check "every input has an output ($outputs of $total)" $([ "$outputs" = "$total" ]; echo $?)
invalid=$(python3 - "$work/out" <<'PY'
import os, struct, sys, zlib
bad = 0
directory = sys.argv[1]
for name in os.listdir(directory):
    if not name.endswith('.png') or name.startswith('.'):
        continue
    data = open(os.path.join(directory, name), 'rb').read()
    ok = data[:8] == b'\x89PNG\r\n\x1a\n'
    pos, idat, ended = 8, b'', False
    while ok and pos + 12 <= len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc = struct.unpack('>I', data[pos + 8 + length:pos + 12 + length])[0]
        ok = len(body) == length and zlib.crc32(kind + body) == crc
        if kind == b'IDAT':
            idat += body
        pos += 12 + length
        if kind == b'IEND':
            ended = True
            break
    try:
        zlib.decompress(idat)
    except zlib.error:
        ok = False
    if not (ok and ended and pos == len(data)):
        bad += 1
print(bad)
PY
)
check "every output is a valid PNG ($invalid invalid)" $([ "$invalid" = 0 ]; echo $?)
different=0
for f in "$work"/reference/*.png; do
    cmp -s "$f" "$work/out/${f##*/}" || different=$((different + 1))
done
check "every output equals the uncached thumbnail ($different differ)" $([ "$different" = 0 ]; echo $?)
cached=$(grep -c '"cached": true' "$work/rerun.json")
decoded=$(grep -c '"cached": false' "$work/rerun.json")
echo "rerun: $cached from the cache, $decoded decoded; $sound sound entries before it"
check "exactly the sound entries were served from the cache ($cached, expected $sound)" $([ "$cached" = "$sound" ]; echo $?)
check "every other input was decoded ($decoded, expected $((total - sound)))" $([ "$decoded" = $((total - sound)) ]; echo $?)
check "the cache now has every entry ($(ls "$work/cache" | grep -c '\.pare$') of $total)" \
    $([ "$(ls "$work/cache" | grep -c '\.pare$')" = "$total" ]; echo $?)
check "no temporary file is left in the cache" $([ "$(ls -A "$work/cache" | grep -c '^\.tmp-')" = 0 ]; echo $?)

report
