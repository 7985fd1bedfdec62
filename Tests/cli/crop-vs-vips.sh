#!/usr/bin/env bash
# Boxes and crops against libvips 8.18 (PyPI pyvips-binary), over the corpus's camera and
# orientation photos and the bench-sized fixture:
#   1. `--size 256x256` gives exactly 256×256 under `--fit cover`, `contain` and `fill`, and
#      `--size 256x160` exactly 256×160, on every file (with `--enlarge`, so that the few
#      photos smaller than the box reach it too, as libvips's do by default);
#   2. the window `--crop attention` keeps overlaps the one libvips's `smartcrop` keeps
#      (attention, same box, same photo) with intersection over union ≥ 0.8 on at least
#      80 % of the camera photos; every file below 0.8 is listed with both windows.
# libvips's window is read from smartcrop's attention point on its own cover-sized
# picture; Pare's is found by sliding Pare's 256×256 thumbnail over that same picture
# along the axis that overflows (least mean squared difference), so that no window
# coordinates have to be exported.
#
#   Tests/cli/crop-vs-vips.sh PARE [EXTRA_PHOTOS...]
set -euo pipefail
name=crop-vs-vips
source "$(dirname "$0")/common.sh"
PARE=$(cd "$(dirname "$pare")" && pwd)/$(basename "$pare")
shift
python3 - "$PARE" "$work" "$corpus" "$@" <<'PY'
import glob, os, subprocess, sys
import numpy as np
from PIL import Image
import pyvips

pare, work, corpus, *extra = sys.argv[1:]
cameras = sorted(glob.glob(os.path.join(corpus, "exif/cameras/*.jpg"))) + ["Fixtures/sample.jpg"] + extra
orientations = sorted(glob.glob(os.path.join(corpus, "exif/orientation/*.jpg")))
failures, sizes_ok, sizes_all = [], 0, 0

def thumbnail(path, size, fit, crop="centre"):
    out = os.path.join(work, "t.png")
    r = subprocess.run([pare, "thumbnail", path, "--size", size, "--fit", fit, "--crop", crop, "--enlarge", "-o", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"{path} {size} {fit}: {r.stderr.strip()}")
        return None
    return Image.open(out).convert("RGB")

for path in cameras + orientations:
    for size, fit in [("256x256", "cover"), ("256x256", "contain"), ("256x256", "fill"), ("256x160", "cover")]:
        sizes_all += 1
        picture = thumbnail(path, size, fit)
        want = tuple(int(v) for v in size.split("x"))
        if picture is not None and picture.size == want:
            sizes_ok += 1
        elif picture is not None:
            failures.append(f"{path} --size {size} --fit {fit}: {picture.size[0]}×{picture.size[1]}")

def iou(a, b, side=256):
    ix = max(0, min(a[0], b[0]) + side - max(a[0], b[0]))
    iy = max(0, min(a[1], b[1]) + side - max(a[1], b[1]))
    inter = ix * iy
    return inter / (2 * side * side - inter)

good, rows = 0, []
for path in cameras:
    probe = pyvips.Image.thumbnail(path, 100000, height=100000, size="down")  # oriented size only
    w, h = probe.width, probe.height
    # The picture at the scale that covers 256×256, as vips_thumbnail makes it before cropping.
    big = pyvips.Image.thumbnail(path, 100000, height=256) if w >= h else pyvips.Image.thumbnail(path, 256, height=100000)
    big = big.copy_memory()
    _, opts = big.smartcrop(256, 256, interesting="attention", attention_x=True, attention_y=True)
    theirs = (min(max(0, opts["attention_x"] - 128), big.width - 256),
              min(max(0, opts["attention_y"] - 128), big.height - 256))
    ours_picture = thumbnail(path, "256x256", "cover", "attention")
    if ours_picture is None:
        continue
    reference = np.asarray(big.colourspace("srgb").extract_band(0, n=3).numpy(), np.float64)
    ours_pixels = np.asarray(ours_picture, np.float64)
    best, ours = None, (0, 0)
    for dx in range(big.width - 255):
        for dy in range(big.height - 255):
            error = np.mean((reference[dy:dy + 256, dx:dx + 256] - ours_pixels) ** 2)
            if best is None or error < best:
                best, ours = error, (dx, dy)
    overlap = iou(ours, theirs)
    good += overlap >= 0.8
    rows.append((overlap, os.path.basename(path), ours, theirs, big.width, big.height))

for overlap, name, ours, theirs, bw, bh in sorted(rows):
    if overlap < 0.8:
        print(f"  IoU {overlap:.2f} {name} ({bw}×{bh}): Pare's window at {ours}, libvips's at {theirs}")
share = good / max(1, len(rows))
print(f"sizes: {sizes_ok} of {sizes_all} exact")
print(f"attention: IoU ≥ 0.8 on {good} of {len(rows)} photos ({100 * share:.0f} %; goal ≥ 80 %)")
for f in failures:
    print("FAILED:", f)
sys.exit(0 if not failures and sizes_ok == sizes_all and share >= 0.8 else 1)
PY
