#!/usr/bin/env bash
# Makes the colour test images in OUT_DIR (default: a new temporary directory, printed on
# the last line): corpus photos with ICC profiles from Debian's icc-profiles-free and
# colord-data embedded by ExifTool, plus files that name their colour space without a
# profile. Nothing here is committed; Tests/cli/icc-compare.sh runs this script and the
# comparison.
#
#   Fixtures/icc/make-icc-fixtures.sh [OUT_DIR]
#
# Needs exiftool, djpeg/cjpeg and the two profile packages (installed if missing and
# running as root). Writes OUT_DIR/list.tsv: file, profile (or "-"), kind (matrix, gray,
# implied-sRGB, adobe-R03, lut), one line per image.
set -euo pipefail
cd "$(dirname "$0")/../.."
CORPUS=../shared/corpus
[ -d "$CORPUS" ] || { echo "make-icc-fixtures: $CORPUS is missing" >&2; exit 1; }
if ! dpkg -s icc-profiles-free colord-data >/dev/null 2>&1; then
    apt-get install -y -o DPkg::Lock::Timeout=600 -qq icc-profiles-free colord-data >/dev/null
fi
OUT=${1:-$(mktemp -d)}
mkdir -p "$OUT"
ICC=/usr/share/color/icc
PHOTO=$CORPUS/exif/orientation/Landscape_1.jpg      # 1800x1200 baseline 4:2:0 photo, no profile
CAMERA=$CORPUS/exif/cameras/Nikon_D70.jpg           # 3008x2000 camera JPEG, ColorSpace 1, R98
PNG=$CORPUS/png/extra/ipng-kodim23.png              # 768x512 RGB photo
LIST=$OUT/list.tsv
: > "$LIST"

embed() { # source profile output kind
    rm -f "$3"
    exiftool -q -q -o "$3" "-icc_profile<=$2" "$1"
    printf '%s\t%s\t%s\n' "$(basename "$3")" "$2" "$4" >> "$LIST"
}

# Matrix/TRC RGB profiles (every one of both packages), in the photo and the PNG.
for profile in "$ICC"/colord/*.icc "$ICC"/sRGB.icc "$ICC"/compatibleWithAdobeRGB1998.icc "$ICC"/LStar-RGB.icc \
               "$ICC"/CineonLog_M.icc "$ICC"/CineonLog_M_Knee_30.icc; do
    name=$(basename "$profile" .icc)
    case "$profile" in */colord/*) ;; *) name=free-$name ;; esac
    case "$name" in Crayons|x11-colors) continue ;; esac   # named-colour profiles, not RGB
    embed "$PHOTO" "$profile" "$OUT/jpeg-$name.jpg" matrix
done
for name in AdobeRGB1998 ProPhotoRGB WideGamutRGB ECI-RGBv2 Rec709 sRGB; do
    embed "$PNG" "$ICC/colord/$name.icc" "$OUT/png-$name.png" matrix
done
# The camera file: a real EXIF block before the APP2 chunks.
embed "$CAMERA" "$ICC/colord/AdobeRGB1998.icc" "$OUT/camera-AdobeRGB1998.jpg" matrix

# Gray TRC profiles in a gray JPEG made from the photo.
djpeg -grayscale "$PHOTO" | cjpeg -quality 92 > "$OUT/gray-source.jpg"
for name in Gray Gray-CIE_L; do
    embed "$OUT/gray-source.jpg" "$ICC/$name.icc" "$OUT/gray-$name.jpg" gray
done
rm "$OUT/gray-source.jpg"

# A LUT-based (Lab) profile: read and carried, never applied.
embed "$PHOTO" "$ICC/ITULab.icc" "$OUT/lut-ITULab.jpg" lut

# No profile: EXIF ColorSpace 1 (sRGB), and ColorSpace 0xFFFF with Interop index R03
# (Adobe RGB as cameras write it).
cp "$CAMERA" "$OUT/implied-sRGB.jpg"
printf '%s\t-\timplied-sRGB\n' implied-sRGB.jpg >> "$LIST"
rm -f "$OUT/adobe-R03.jpg"
exiftool -q -q -o "$OUT/adobe-R03.jpg" -ExifIFD:ColorSpace#=65535 -InteropIFD:InteropIndex=R03 "$CAMERA"
printf '%s\t%s\tadobe-R03\n' adobe-R03.jpg "$ICC/compatibleWithAdobeRGB1998.icc" >> "$LIST"

echo "$OUT"
