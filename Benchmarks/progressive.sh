#!/usr/bin/env bash
# Progressive JPEG at 1/8: Pare against djpeg on a 24 MP 4:2:0 file made with
# `cjpeg -progressive` (libjpeg's default script: DC scans first). Prints the ratio, the PSNR
# of Pare's output against djpeg's, and the share of the file before the first scan Pare
# does not need (luma's last refinement), which is where its decoder stops reading.
# Needs hyperfine, cjpeg/djpeg, Python with Pillow and numpy. Inputs go to /tmp.
set -euo pipefail
cd "$(dirname "$0")/.."
work=/tmp/pare-bench-progressive
mkdir -p "$work"
swift build -c release --product pare >/dev/null
pare=.build/release/pare
if [ ! -f "$work/p24.jpg" ]; then
    python3 - "$work" <<'PY'
import sys
from PIL import Image, ImageFilter
work = sys.argv[1]
small = Image.new("RGB", (600, 400))
px = small.load()
for y in range(400):
    for x in range(600):
        px[x, y] = ((x * 3 + y) % 256, (y * 2) % 256, (x + 2 * y) % 256)
big = small.resize((6000, 4000), Image.BICUBIC).filter(ImageFilter.GaussianBlur(1))
noise = Image.effect_noise((6000, 4000), 20).convert("RGB")
Image.blend(big, noise, 0.15).save(f"{work}/src.ppm")
PY
    cjpeg -progressive -quality 90 -outfile "$work/p24.jpg" "$work/src.ppm"
    rm "$work/src.ppm"
fi
hyperfine -N -w 2 -r 10 \
    "$pare decode $work/p24.jpg --scale 1/8 -o $work/pare.ppm" \
    "djpeg -scale 1/8 -pnm -outfile $work/djpeg.ppm $work/p24.jpg"
python3 - "$work" <<'PY'
import sys
import numpy as np
from PIL import Image
work = sys.argv[1]
a = np.asarray(Image.open(f"{work}/pare.ppm"), dtype=float)
b = np.asarray(Image.open(f"{work}/djpeg.ppm"), dtype=float)
mse = ((a - b) ** 2).mean()
print("PSNR against djpeg: %s dB" % ("inf" if mse == 0 else "%.1f" % (10 * np.log10(255 ** 2 / mse))))
data = open(f"{work}/p24.jpg", "rb").read()
sos = [i for i in range(len(data) - 1) if data[i] == 0xFF and data[i + 1] == 0xDA]
print("scans: %d; the last one (luma 1-63, Ah=1 Al=0) starts at %.1f%% of %d bytes"
      % (len(sos), 100 * sos[-1] / len(data), len(data)))
PY
