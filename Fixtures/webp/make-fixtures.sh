#!/usr/bin/env bash
# Rewrites the small committed WebP fixtures in Fixtures/webp/ (a few KB each) and their
# digests, so that the PareWebP tests run without the corpus. The pictures are drawn here
# (ImageMagick, fixed content) and encoded by libwebp's tools (1.2.4 here):
#   fx-lossy-*.webp      cwebp lossy: a 4-segment normal-filter file, a simple-filter file, an
#                        odd size (37x23) with 2 partitions, sharp_yuv
#   fx-lossless-*.webp   cwebp -lossless at -z 0, 6 and 9 (predictor, cross-colour, subtract
#                        green, colour cache), a 3-colour palette (pixel bundling), -exact alpha
#   fx-alpha-*.webp      lossy with alpha: raw, lossless-compressed with each filter
#   fx-lossy-{small,tall,wide}.webp  32x32, 32x512 and 512x32 at q20, for the streaming test
#   fx-anim.webp         img2webp two-frame animation (first frame 40x30 at 0,0 on 40x30)
#   fx-meta.webp         lossy with ICCP, EXIF and XMP chunks (webpmux)
# expected.txt: SHA-256 of `dwebp -pam` pixels (RGBA), SHA-256 of their RGB bytes alone, width,
# height, name; the animation's
# line is Pillow's first frame (`seek(0); convert("RGBA")`).
# Tools: apt-get install webp imagemagick; pip install pillow.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -f fx-*.webp expected.txt
convert -size 64x48 plasma:red-blue -seed 7 "$tmp/p.png" 2>/dev/null || convert -size 64x48 gradient:red-blue "$tmp/p.png"
convert -size 64x48 gradient:red-blue -swirl 120 \( -size 64x48 gradient:yellow-green -rotate 90 \) -compose multiply -composite "$tmp/p.png"
convert "$tmp/p.png" -resize 37x23! "$tmp/odd.png"
convert -size 48x32 xc:none -fill 'rgba(0,128,255,0.6)' -draw 'circle 24,16 24,2' \
    -fill 'rgba(255,0,0,1)' -draw 'rectangle 2,2 14,12' "$tmp/alpha.png"
convert -size 33x17 xc:white -fill black -draw 'rectangle 3,3 20,10' -fill red -draw 'point 30,15' "$tmp/pal.png"

cwebp -quiet -q 60 -segments 4 -f 50 "$tmp/p.png" -o fx-lossy-segments.webp
cwebp -quiet -q 40 -nostrong -f 70 "$tmp/p.png" -o fx-lossy-simple.webp
cwebp -quiet -q 80 -partition_limit 50 "$tmp/odd.png" -o fx-lossy-odd.webp
cwebp -quiet -q 90 -sharp_yuv "$tmp/p.png" -o fx-lossy-sharp.webp
convert "$tmp/p.png" -resize 32x512! "$tmp/tall.png"; convert "$tmp/p.png" -resize 512x32! "$tmp/wide.png"
convert "$tmp/p.png" -resize 32x32! "$tmp/small.png"
cwebp -quiet -q 20 "$tmp/tall.png" -o fx-lossy-tall.webp
cwebp -quiet -q 20 "$tmp/wide.png" -o fx-lossy-wide.webp
cwebp -quiet -q 20 "$tmp/small.png" -o fx-lossy-small.webp
for z in 0 6 9; do cwebp -quiet -z $z "$tmp/p.png" -o fx-lossless-z$z.webp; done
cwebp -quiet -lossless "$tmp/pal.png" -o fx-lossless-palette.webp
cwebp -quiet -lossless -exact "$tmp/alpha.png" -o fx-lossless-alpha.webp
cwebp -quiet -alpha_method 0 "$tmp/alpha.png" -o fx-alpha-raw.webp
for f in none fast best; do cwebp -quiet -alpha_filter $f "$tmp/alpha.png" -o fx-alpha-$f.webp; done
convert -size 40x30 xc:'rgba(0,0,255,0.5)' "$tmp/f1.png"; convert -size 40x30 xc:green "$tmp/f2.png"
img2webp -loop 2 -lossless "$tmp/f1.png" -d 80 "$tmp/f2.png" -o fx-anim.webp 2>/dev/null
printf 'Exif\0\0II*\0\10\0\0\0\0\0' > "$tmp/exif.bin"
printf '<x:xmpmeta xmlns:x="adobe:ns:meta/"/>' > "$tmp/xmp.xml"
head -c 132 /dev/zero > "$tmp/icc.icc"
cwebp -quiet -q 50 "$tmp/odd.png" -o "$tmp/m0.webp"
webpmux -set icc "$tmp/icc.icc" "$tmp/m0.webp" -o "$tmp/m1.webp"
webpmux -set exif "$tmp/exif.bin" "$tmp/m1.webp" -o "$tmp/m2.webp"
webpmux -set xmp "$tmp/xmp.xml" "$tmp/m2.webp" -o fx-meta.webp

for f in fx-*.webp; do
    [ "$f" = fx-anim.webp ] && continue
    dwebp -quiet -pam "$f" -o "$tmp/out.pam"
    python3 - "$tmp/out.pam" "$f" >> expected.txt <<'PY'
import hashlib, sys
data = open(sys.argv[1], 'rb').read()
end = data.index(b'ENDHDR\n') + 7
fields = dict(l.split(b' ', 1) for l in data[3:end - 7].split(b'\n') if b' ' in l)
px = data[end:]
rgb = b''.join(px[i:i + 3] for i in range(0, len(px), 4))
print(hashlib.sha256(px).hexdigest(), hashlib.sha256(rgb).hexdigest(), int(fields[b'WIDTH']), int(fields[b'HEIGHT']), sys.argv[2])
PY
done
python3 - >> expected.txt <<'PY'
import hashlib
from PIL import Image
im = Image.open('fx-anim.webp'); im.seek(0); rgba = im.convert('RGBA')
print(hashlib.sha256(rgba.tobytes()).hexdigest(), hashlib.sha256(rgba.convert('RGB').tobytes()).hexdigest(), rgba.width, rgba.height, 'fx-anim.webp')
PY
ls -l fx-*.webp | awk '{s += $5} END {print NR " fixtures, " s " bytes"}'
