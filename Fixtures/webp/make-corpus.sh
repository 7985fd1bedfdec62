#!/usr/bin/env bash
# Recreates the WebP conformance corpus (.build/made-corpus/webp, or $MADE_CORPUS/webp; never
# committed) and its expected digests:
#   - libwebp's test vectors (vp80-*, lossless_vec_*, alpha_*, lossy_*, ...) copied from a
#     checkout of https://github.com/webmproject/libwebp-test-data (a work tree, or a bare git
#     directory: pass it as $1 or LIBWEBP_TEST_DATA);
#   - files made with cwebp / img2webp / gif2webp (libwebp 1.2.4 here) from the corpus's
#     JPEG and PNG pictures: lossy at several qualities and settings, lossless at every -z,
#     alpha with every -alpha_filter, animations, and one 12-megapixel photo for timing.
# Then `expected-dwebp.txt` lists, for every still that dwebp decodes, the SHA-256 of the
# pixels of `dwebp -pam` (RGBA, the PAM header left out), the SHA-256 of their RGB bytes alone
# (for images without alpha, which Pare hands out as RGB), the width, the height and the file
# name; files dwebp refuses are listed as `refused NAME`. `expected-pillow.txt` does the same
# for the animations with Pillow's first frame (`seek(0); convert("RGBA")`).
# DIGESTS_ONLY=1 rewrites only the digests of the files already there.
# Tools: apt-get install webp imagemagick; pip install pillow.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
corpus=$(cd "$here/../../.." && pwd)/shared/corpus
out="${MADE_CORPUS:-$here/../../.build/made-corpus}/webp"
testdata=${1:-${LIBWEBP_TEST_DATA:-}}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "${DIGESTS_ONLY:-}" = 1 ]; then cd "$out"; else
# 1. The libwebp test vectors.
if [ -n "$testdata" ]; then
    if [ -d "$testdata/objects" ]; then
        for name in $(git --git-dir="$testdata" ls-tree --name-only HEAD | grep '\.webp$'); do
            git --git-dir="$testdata" show "HEAD:$name" > "$out/$name" 2>/dev/null || rm -f "$out/$name"
        done
    else
        cp "$testdata"/*.webp "$out/"
    fi
fi

# 2. Pictures to encode: a few photos and drawings from the corpus, as PNG.
i=0
for src in "$corpus"/jpeg/ref/Canon_40D.s1.png "$corpus"/jpeg/ref/Pentax_K10D.s1.png \
           "$corpus"/jpeg/ref/Sony_Cybershot_3.s1.png "$corpus"/png/extra/ipng-kodim23.png; do
    i=$((i + 1))
    convert "$src" -resize '640x640>' "$tmp/photo$i.png"
done
convert -size 301x173 gradient:red-blue -swirl 90 "$tmp/drawing.png"
convert -size 97x61 xc:none -fill 'rgba(0,128,255,0.5)' -draw 'circle 48,30 48,5' \
    -fill 'rgba(255,0,0,0.8)' -draw 'rectangle 5,5 40,30' "$tmp/alpha.png"
convert "$tmp/photo1.png" \( +clone -alpha extract -sparse-color barycentric '0,0 white %w,%h black' \) \
    -alpha off -compose copy_opacity -composite "$tmp/photo-alpha.png"

# 3. Lossy stills.
for q in 0 10 50 75 90 100; do cwebp -quiet -q $q "$tmp/photo1.png" -o "$out/gen-lossy-q$q.webp"; done
for p in photo2 photo3 photo4 drawing; do
    [ -f "$tmp/$p.png" ] && cwebp -quiet -q 80 "$tmp/$p.png" -o "$out/gen-lossy-$p.webp"
done
cwebp -quiet -sharp_yuv "$tmp/photo1.png" -o "$out/gen-lossy-sharpyuv.webp"
for s in 0 100; do cwebp -quiet -sns $s "$tmp/photo2.png" -o "$out/gen-lossy-sns$s.webp"; done
for f in 0 30 100; do cwebp -quiet -f $f "$tmp/photo2.png" -o "$out/gen-lossy-f$f.webp"; done
cwebp -quiet -f 60 -nostrong "$tmp/photo2.png" -o "$out/gen-lossy-simple-filter.webp"
cwebp -quiet -f 60 -sharpness 7 "$tmp/photo2.png" -o "$out/gen-lossy-sharpness7.webp"
for s in 1 2 4; do cwebp -quiet -segments $s "$tmp/photo3.png" -o "$out/gen-lossy-segments$s.webp"; done
for p in 0 50 100; do cwebp -quiet -partition_limit $p "$tmp/photo3.png" -o "$out/gen-lossy-plimit$p.webp"; done
cwebp -quiet -q 60 -m 6 -pass 4 "$tmp/photo3.png" -o "$out/gen-lossy-m6.webp"
cwebp -quiet -q 70 -resize 33 17 "$tmp/photo1.png" -o "$out/gen-lossy-33x17.webp"
cwebp -quiet -q 70 -resize 1 1 "$tmp/photo1.png" -o "$out/gen-lossy-1x1.webp"
cwebp -quiet -q 70 -resize 1 40 "$tmp/photo1.png" -o "$out/gen-lossy-1x40.webp"
exifjpeg=$(find "$corpus/exif" -name "*.jpg" 2>/dev/null | head -1 || true)
[ -n "$exifjpeg" ] && cwebp -quiet -q 70 -metadata all "$exifjpeg" -o "$out/gen-lossy-metadata.webp"

# 4. Lossy with alpha.
for q in 0 50 100; do cwebp -quiet -alpha_q $q "$tmp/photo-alpha.png" -o "$out/gen-alpha-q$q.webp"; done
for f in none fast best; do cwebp -quiet -alpha_filter $f "$tmp/photo-alpha.png" -o "$out/gen-alpha-filter-$f.webp"; done
cwebp -quiet -alpha_method 0 "$tmp/alpha.png" -o "$out/gen-alpha-raw.webp"
cwebp -quiet -alpha_cleanup "$tmp/alpha.png" -o "$out/gen-alpha-cleanup.webp"
cwebp -quiet -exact -q 40 "$tmp/alpha.png" -o "$out/gen-alpha-exact.webp"

# 5. Lossless.
for z in 0 1 2 3 4 5 6 7 8 9; do cwebp -quiet -z $z "$tmp/photo2.png" -o "$out/gen-lossless-z$z.webp"; done
for z in 0 5 9; do cwebp -quiet -z $z "$tmp/drawing.png" -o "$out/gen-lossless-drawing-z$z.webp"; done
cwebp -quiet -lossless -exact "$tmp/alpha.png" -o "$out/gen-lossless-exact.webp"
cwebp -quiet -lossless "$tmp/photo-alpha.png" -o "$out/gen-lossless-alpha.webp"
for n in 0 40 80; do cwebp -quiet -near_lossless $n "$tmp/photo1.png" -o "$out/gen-near-lossless$n.webp"; done
convert "$tmp/photo3.png" -colors 16 "$tmp/pal16.png"; convert "$tmp/photo3.png" -colors 2 "$tmp/pal2.png"
convert "$tmp/photo3.png" -colors 4 "$tmp/pal4.png"; convert "$tmp/photo3.png" -colors 200 "$tmp/pal200.png"
for p in pal2 pal4 pal16 pal200; do cwebp -quiet -lossless "$tmp/$p.png" -o "$out/gen-lossless-$p.webp"; done

# 6. Animations (first frame checked against Pillow).
convert -size 64x48 xc:red "$tmp/f1.png"
convert -size 64x48 xc:none -fill 'rgba(0,0,255,0.5)' -draw 'circle 32,24 32,4' "$tmp/f2.png"
convert "$tmp/photo1.png" -resize 200x150! "$tmp/a1.png"; convert "$tmp/photo2.png" -resize 200x150! "$tmp/a2.png"
img2webp -loop 3 -lossless "$tmp/f2.png" -d 100 "$tmp/f1.png" -o "$out/gen-anim-lossless.webp" 2>/dev/null
img2webp -lossy -q 60 "$tmp/a1.png" "$tmp/a2.png" -o "$out/gen-anim-lossy.webp" 2>/dev/null
convert -delay 10 -dispose background "$tmp/alpha.png" \( "$tmp/alpha.png" -rotate 180 \) -loop 0 "$tmp/anim.gif"
gif2webp -quiet "$tmp/anim.gif" -o "$out/gen-anim-gif.webp"
gif2webp -quiet -lossy "$tmp/anim.gif" -o "$out/gen-anim-gif-lossy.webp"

# 7. A 12-megapixel photo for timing.
convert "$tmp/photo1.png" -resize 4000x3000! -attenuate 0.3 +noise Gaussian "$tmp/big.png"
cwebp -quiet -q 80 "$tmp/big.png" -o "$out/gen-12mp-q80.webp"
# The same width, twice as tall (24 MP): a thumbnail's memory must not grow with height.
convert "$tmp/photo1.png" -resize 4000x6000! -attenuate 0.3 +noise Gaussian "$tmp/tall.png"
cwebp -quiet -q 80 "$tmp/tall.png" -o "$out/gen-24mp-tall-q80.webp"

fi
# 8. Digests.
cd "$out"
: > expected-dwebp.txt
for f in *.webp; do
    if dwebp -quiet -pam "$f" -o "$tmp/out.pam" 2>/dev/null; then
        python3 - "$tmp/out.pam" "$f" >> expected-dwebp.txt <<'PY'
import hashlib, sys
data = open(sys.argv[1], 'rb').read()
end = data.index(b'ENDHDR\n') + 7
fields = dict(l.split(b' ', 1) for l in data[3:end - 7].split(b'\n') if b' ' in l)
px = data[end:]
rgb = b''.join(px[i:i + 3] for i in range(0, len(px), 4))
print(hashlib.sha256(px).hexdigest(), hashlib.sha256(rgb).hexdigest(), int(fields[b'WIDTH']), int(fields[b'HEIGHT']), sys.argv[2])
PY
    else
        echo "refused $f" >> expected-dwebp.txt
    fi
done
python3 - > expected-pillow.txt <<'PY'
import glob, hashlib
from PIL import Image
for f in sorted(glob.glob('*anim*.webp')):
    im = Image.open(f); im.seek(0); rgba = im.convert('RGBA')
    print(hashlib.sha256(rgba.tobytes()).hexdigest(), hashlib.sha256(rgba.convert('RGB').tobytes()).hexdigest(), rgba.width, rgba.height, f)
PY
echo "corpus: $(ls *.webp | wc -l) files in $out"
