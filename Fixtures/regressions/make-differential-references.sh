#!/usr/bin/env bash
# Writes the reference pixels the differential replay tests compare Pare with, beside each
# input of Fixtures/regressions/differential-jpeg/ and differential-png/ (or of the files
# named as arguments):
#
#   differential-jpeg/STEM.jpg or STEM.fuzz -> STEM.s1.pnm STEM.s2.pnm STEM.s4.pnm STEM.s8.pnm
#       djpeg -scale 1/N -dct int -pnm (libjpeg-turbo's defaults otherwise, as the fuzz
#       target decodes); a *.fuzz input loses its request byte first. A scale djpeg refuses
#       gets no file.
#   differential-png/STEM.png -> STEM.pam
#       first the input's chunk CRCs are recomputed in place (the fuzz target decodes the
#       input that way, so the stored file is what both decoders read), then libpng's decode
#       through Fuzz/differential/reference-png.c (png_set_expand, Adam7 deinterlaced,
#       16 bits big-endian), written by Fuzz/differential/png-reference.c.
#
# Needs djpeg (libjpeg-turbo-progs), a C compiler, libpng-dev and python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ $# -eq 0 ]; then
    set -- $(find Fixtures/regressions/differential-jpeg Fixtures/regressions/differential-png -type f \
                  \( -name '*.jpg' -o -name '*.fuzz' -o -name '*.png' \) 2>/dev/null | sort)
fi
TOOL=
for input in "$@"; do
    stem=${input%.*}
    case "$input" in
    */differential-jpeg/*)
        jpeg=$input
        if [ "${input##*.}" = fuzz ]; then jpeg=$(mktemp); tail -c +2 "$input" > "$jpeg"; fi
        for n in 1 2 4 8; do
            # Exit status 2 is djpeg's "decoded with warnings": the image is whole.
            status=0
            djpeg -scale "1/$n" -dct int -pnm -outfile "$stem.s$n.pnm" "$jpeg" 2>/dev/null || status=$?
            if [ $status -eq 1 ]; then rm -f "$stem.s$n.pnm"; echo "$input: djpeg refuses 1/$n"; fi
        done
        [ "$jpeg" = "$input" ] || rm -f "$jpeg" ;;
    */differential-png/*)
        python3 - "$input" <<'PY'
import struct, sys, zlib
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
position = 8
while position + 12 <= len(data):
    length = struct.unpack(">I", data[position:position + 4])[0]
    if length > len(data) - position - 12:
        break
    at = position + 8 + length
    data[at:at + 4] = struct.pack(">I", zlib.crc32(data[position + 4:at]))
    position = at + 4
open(path, "wb").write(data)
PY
        if [ -z "$TOOL" ]; then
            TOOL=$(mktemp)
            cc -O1 -o "$TOOL" Fuzz/differential/png-reference.c Fuzz/differential/reference-png.c -lpng16
        fi
        "$TOOL" "$input" > "$stem.pam" || { rm -f "$stem.pam"; echo "$input: libpng refuses it"; } ;;
    *) echo "$input: not in a differential regression folder" >&2; exit 2 ;;
    esac
    echo "references for $input"
done
[ -z "$TOOL" ] || rm -f "$TOOL"
