#!/usr/bin/env bash
# Placeholders against the reference encoders and decoders (PyPI thumbhash and blurhash-python;
# ThumbHash decodes against PyPI fast-thumbhash, the Rust port's bindings, because thumbhash
# 0.1.2's decoder reuses the cosines of the first pixel for every pixel),
# over the corpus's camera and orientation photos, the bench-sized fixture and the gain-map
# fixtures: Pare's placeholder is computed from `pare thumbnail IN --size 100 --colour srgb`'s
# pixels (what `ImageSource.placeholder` computes it from); the references get the same
# pixels, losslessly through PNG.
#   1. ThumbHash bytes equal the reference's (and fast-thumbhash's), on every file;
#   2. BlurHash strings (4×3) equal on at least 99 % of the files and never more than one
#      character apart (the reference sums in single precision through the C library's
#      cosf and powf);
#   3. each hash drawn by `pare placeholder decode` is at least 30 dB from the reference
#      decoder's drawing of the same hash.
#
#   Tests/cli/placeholder-check.sh PARE
set -euo pipefail
name=placeholder-check
source "$(dirname "$0")/common.sh"
PARE=$(cd "$(dirname "$pare")" && pwd)/$(basename "$pare")
python3 - "$PARE" "$work" "$corpus" <<'PY'
import base64, glob, json, math, os, subprocess, sys
import numpy as np
from PIL import Image
import thumbhash, blurhash, fast_thumbhash

pare, work, corpus = sys.argv[1:]
files = sorted(glob.glob(os.path.join(corpus, "exif/cameras/*.jpg")) + glob.glob(os.path.join(corpus, "exif/orientation/*.jpg"))
               + ["Fixtures/sample.jpg"] + glob.glob("Fixtures/gainmap/*.jpg"))
failures, thumb_equal, blur_equal, blur_one_off, decodes = [], 0, 0, 0, []

def psnr(a, b):
    a = np.asarray(a, np.float64); b = np.asarray(b, np.float64)
    mse = np.mean((a - b) ** 2)
    return 99.0 if mse == 0 else 10 * math.log10(255 * 255 / mse)

def hashes(path, kind):
    out = os.path.join(work, "p.png")
    r = subprocess.run([pare, "thumbnail", path, "--size", "100", "--colour", "srgb", "-o", out, "--json",
                        "--placeholder", kind], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"{path}: {r.stderr.strip()}")
        return None, None
    return json.loads(r.stdout)[kind], Image.open(out)

for path in files:
    ours, picture = hashes(path, "thumbhash")
    if ours is None:
        continue
    rgba = picture.convert("RGBA")
    reference = bytes(thumbhash.rgba_to_thumb_hash(rgba.width, rgba.height, list(rgba.tobytes())))
    rust = bytes(fast_thumbhash.rgba_to_thumb_hash(rgba.width, rgba.height, rgba.tobytes()))
    if base64.b64decode(ours) == reference == rust:
        thumb_equal += 1
    else:
        failures.append(f"{path}: ThumbHash {base64.b64decode(ours).hex()}, reference {reference.hex()}, "
                        f"fast-thumbhash {rust.hex()}")
    drawn = os.path.join(work, "th.png")
    subprocess.run([pare, "placeholder", "decode", ours, "-o", drawn], check=True)
    w, h, ref_rgba = fast_thumbhash.thumb_hash_to_rgba(reference)
    mine = np.asarray(Image.open(drawn).convert("RGBA"))
    theirs = np.asarray(ref_rgba, np.uint8).reshape(h, w, 4)
    if mine.shape != theirs.shape:
        failures.append(f"{path}: ThumbHash drawn {mine.shape}, reference {theirs.shape}")
    else:
        decodes.append(("thumbhash", psnr(mine, theirs)))

    ours, picture = hashes(path, "blurhash")
    if ours is None:
        continue
    reference = blurhash.encode(picture.convert("RGB"), 4, 3)
    differing = sum(a != b for a, b in zip(ours, reference)) + abs(len(ours) - len(reference))
    if differing == 0:
        blur_equal += 1
    elif differing == 1:
        blur_one_off += 1
        print(f"{os.path.basename(path)}: BlurHash {ours} vs reference {reference} (one character)")
    else:
        failures.append(f"{path}: BlurHash {ours} != reference {reference}")
    drawn = os.path.join(work, "bh.png")
    subprocess.run([pare, "placeholder", "decode", ours, "-o", drawn, "--size", "32x32"], check=True)
    mine = np.asarray(Image.open(drawn).convert("RGB"))
    theirs = np.asarray(blurhash.decode(ours, 32, 32), np.uint8).reshape(32, 32, 3)
    decodes.append(("blurhash", psnr(mine, theirs)))

n = len(files)
worst = {k: min(d for kk, d in decodes if kk == k) for k in ("thumbhash", "blurhash")}
print(f"placeholder-check: {n} files; ThumbHash equal on {thumb_equal}; BlurHash equal on {blur_equal}, "
      f"one character off on {blur_one_off}; decodes worst {worst['thumbhash']:.1f} dB (ThumbHash), "
      f"{worst['blurhash']:.1f} dB (BlurHash)")
if blur_equal < 0.99 * n:
    failures.append(f"BlurHash equal on {blur_equal} of {n} files (< 99 %)")
for kind, db in decodes:
    if db < 30:
        failures.append(f"a {kind} decode {db:.1f} dB from the reference's (< 30)")
if n < 50:
    failures.append(f"only {n} files")
if failures:
    print("\n".join("FAILED: " + f for f in failures))
    sys.exit(1)
print("placeholder-check: all passed")
PY
