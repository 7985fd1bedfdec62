#!/usr/bin/env bash
# Thumbnails of the made WebP, GIF and TIFF corpora (.build/made-corpus/{webp,gif,tiff}, made by
# Fixtures/webp/make-corpus.sh, Fixtures/make-gif-fixtures.py --corpus and
# Fixtures/make-tiff-corpus.sh) against vipsthumbnail's at the same size: PSNR over the
# RGBA samples, colour premultiplied by alpha (gray repeated, opaque where a side has no
# alpha), both in their stored colours. A file passes at 35 dB or more; sizes must agree within a pixel (libvips rounds
# the short side its own way: the common part is compared). Files either tool refuses are
# counted apart. SIZE (default 256) sets the long side; neither tool enlarges ("256>").
# TIFFs of YCbCr without JPEG reach vipsthumbnail as tiff2rgba's RGBA (see below).
# Usage: Tests/cli/formats-vs-vips.sh PATH/TO/pare
set -u
name=formats-vs-vips
source "$(dirname "$0")/common.sh"
command -v vipsthumbnail >/dev/null || { echo "$name: FAIL: vipsthumbnail is not installed (Debian: libvips-tools)"; exit 1; }
size=${SIZE:-256}
list="$work/list"
made=${MADE_CORPUS:-$(cd "$(dirname "$0")/../.." && pwd)/.build/made-corpus}
for kind in webp gif tiff; do
    [ -d "$made/$kind" ] && find "$made/$kind" -maxdepth 2 -type f \( -name '*.webp' -o -name '*.gif' -o -name '*.tif' \)
done | sort > "$list"
refused=0
while IFS= read -r file; do
    base=$(basename "$file")
    if ! "$pare" thumbnail "$file" --size "$size" --format png -o "$work/pare.png" 2>/dev/null; then
        refused=$((refused + 1)); echo "pare refused: $base"; continue
    fi
    # libvips reads a TIFF's YCbCr stored without JPEG as if it were RGB (the samples
    # unconverted) and refuses it subsampled: it is given libtiff's RGBA of such a file.
    vips_input=$file
    if [ "${file%.tif}" != "$file" ] && tiffinfo "$file" 2>/dev/null | grep -q 'Photometric Interpretation: YCbCr' &&
        ! tiffinfo "$file" 2>/dev/null | grep -q 'Compression Scheme: JPEG'; then
        tiff2rgba -c none "$file" "$work/rgba.tif" && vips_input=$work/rgba.tif
    fi
    if ! vipsthumbnail "$vips_input" --size "${size}>" -o "$work/vips.png" 2>/dev/null; then
        refused=$((refused + 1)); echo "vips refused: $base"; continue
    fi
    verdict=$(python3 - "$work/pare.png" "$work/vips.png" "$file" <<'PY'
import sys, numpy as np
from PIL import Image
def rgba(path):
    im = Image.open(path)
    if im.mode not in ("RGBA", "RGB", "L", "LA"): im = im.convert("RGBA")
    p = np.asarray(im.convert("RGBA")).astype(np.float64)
    # Colour is compared premultiplied: under full transparency it is not seen, and
    # encoders keep what they like there.
    p[..., :3] *= p[..., 3:4] / 255
    return p
a, b = rgba(sys.argv[1]), rgba(sys.argv[2])
if abs(a.shape[0] - b.shape[0]) > 1 or abs(a.shape[1] - b.shape[1]) > 1:
    print(f"size {a.shape[1]}x{a.shape[0]} vs {b.shape[1]}x{b.shape[0]}"); sys.exit()
h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
def psnr(x, y):
    h, w = min(x.shape[0], y.shape[0]), min(x.shape[1], y.shape[1])
    mse = np.mean((x[:h, :w] - y[:h, :w]) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255 ** 2 / mse)
d = psnr(a, b)
if d >= 35:
    print("inf" if d == float("inf") else f"{d:.1f}")
    sys.exit()
# Below 35 dB, a third opinion: Pillow's own decode resized by its Lanczos filter to
# Pare's size, and how far each thumbnail is from it (printed beside the verdict).
try:
    ref = Image.open(sys.argv[3])
    ref.seek(0)
    ref = ref.convert("RGBA").resize((a.shape[1], a.shape[0]), Image.LANCZOS)
    r = np.asarray(ref).astype(np.float64)
    r[..., :3] *= r[..., 3:4] / 255
    print(f"{d:.1f} (Pillow's Lanczos: Pare {psnr(a, r):.1f} dB, vips {psnr(b, r):.1f} dB)")
except Exception as e:
    print(f"{d:.1f}")
PY
)
    echo "$verdict $base" >> "$work/results"
    case "$verdict" in
        inf) ok=0 ;;
        size*) ok=1 ;;
        *) ok=$(python3 -c "print(0 if float('${verdict%% *}') >= 35 else 1)") ;;
    esac
    check "$base: ${verdict%% *} dB${verdict#"${verdict%% *}"}" "$ok"
done < "$list"
[ -f "$work/results" ] && sort -g "$work/results" | head -5 | sed 's/^/lowest: /'
echo "$name: $refused refused by one of the tools"
report
