#!/usr/bin/env bash
# LUT profiles against LittleCMS, over the images Fixtures/icc/make-cmyk-fixtures.py makes
# in a temporary directory (CMYK JPEGs through Debian's ghostscript CMYK profiles, tagged
# and untagged; RGB and gray JPEGs with hand-made lutAToB, lut16 and lut8 profiles):
#   1. `pare thumbnail --colour srgb` against LittleCMS (Pillow's ImageCms, relative
#      colorimetric) converting the whole image, resized like the thumbnail (decoded at
#      the DCT scale Pare chose, then Lanczos to the thumbnail's size); untagged CMYK files
#      with `--cmyk-profile` naming the profile they were made with.
#   2. CMYK files: the `--colour keep` thumbnail too, which must be converted the same way
#      (an RGB output cannot carry a CMYK profile).
#   3. `pare convert --colour srgb` (PNG, full size) against LittleCMS's full-size image.
#
# Two LittleCMS references: its exact evaluation of the profile's chain (cmsFLAGS_NOTPRECALC),
# and its default 8-bit transform (what Pillow's ImageCms and jpgicc give), which first
# resamples the whole chain onto a grid of 17 points per input (33 for RGB) in the output's
# encoding and interpolates that. Pare evaluates RGB and gray profiles' own chains and, like
# LittleCMS, resamples CMYK chains onto 17 points per ink (`CMYKCodeGrid`). Every figure
# against the default transform is held to MIN_DB dB PSNR and each column's mean to MEAN_DB;
# against the exact chain every figure too, except for ps_cmyk.icc, whose 5-point CLUT with
# clipped nodes the 17-point resampling departs from by up to 15 codes in deep shadows
# (LittleCMS's own two evaluations are then about 30 dB apart).
#
#   Tests/cli/lut-compare.sh PARE [MIN_DB MEAN_DB]
set -euo pipefail
cd "$(dirname "$0")/../.."
PARE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MIN_DB=${2:-40}
MEAN_DB=${3:-45}
# Pillow with ImageCms (LittleCMS) from Debian, and the CMYK profiles of libgs-common.
if ! dpkg -s python3-pil libgs-common >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 python3-pil libgs-common >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 Fixtures/icc/make-cmyk-fixtures.py "$work/fixtures" > /dev/null
/usr/bin/python3 - "$PARE" "$work" "$MIN_DB" "$MEAN_DB" <<'PY'
import io, json, os, subprocess, sys
from PIL import Image, ImageCms
sys.path.insert(0, "Tests/cli")
from colourcheck import arguments, psnr

pare, work, min_db, mean_db, fixtures, srgb = arguments()
failures = []

def run(arguments):
    result = subprocess.run([pare] + arguments, capture_output=True, text=True)
    if result.returncode != 0:
        failures.append(f"pare {' '.join(arguments)}: {result.stderr.strip()}")
        return None
    return result

EXACT, DEFAULT = ImageCms.FLAGS["NOTPRECALC"], 0
# Where the exact chain is not held to MIN_DB (see the header).
COARSE = ("ps_cmyk",)

def to_srgb(image, profile_path, kind, flags):
    # Gray to sRGB gives R = G = B; convert("L") keeps them.
    source = ImageCms.getOpenProfile(profile_path)
    result = ImageCms.profileToProfile(image, source, srgb, renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC,
                                       outputMode="RGB", flags=flags)
    return result.convert("L") if kind == "gray-lut" else result

def reference_for(path, profile, kind, chosen, flags):
    with Image.open(path) as full:
        if chosen.startswith("scaled-1/"):
            n = int(chosen.split("/")[1])
            full.draft(full.mode, ((full.width + n - 1) // n, (full.height + n - 1) // n))
        full.load()
        return to_srgb(full, profile, kind, flags)

LABELS = ["thumbnail srgb", "thumbnail keep", "convert srgb"]
rows = []
for line in open(os.path.join(fixtures, "list.tsv")):
    name, profile, kind = line.rstrip("\n").split("\t")
    path = os.path.join(fixtures, name)
    extra = ["--cmyk-profile", profile] if kind == "cmyk-untagged" else []
    # Per label: (against the exact chain, against the default transform), or None.
    figures = [None, None, None]
    for column, colour in enumerate(["srgb", "keep"]):
        if colour == "keep" and not kind.startswith("cmyk"):
            continue
        out = os.path.join(work, f"thumb-{colour}.png")
        made = run(["thumbnail", path, "--size", "256", "--colour", colour, "-o", out, "--json"] + extra)
        if made is None:
            continue
        chosen = json.loads(made.stdout)["source"]
        thumb = Image.open(out)
        pair = []
        for flags in (EXACT, DEFAULT):
            reference = reference_for(path, profile, kind, chosen, flags).resize(thumb.size, Image.LANCZOS)
            pair.append(psnr(thumb.convert(reference.mode), reference))
        figures[column] = tuple(pair)
    out = os.path.join(work, "convert.png")
    if run(["convert", path, "--colour", "srgb", "-o", out] + extra) is not None:
        converted = Image.open(out)
        with Image.open(path) as whole:
            pair = [psnr(converted.convert("L" if kind == "gray-lut" else "RGB"), to_srgb(whole, profile, kind, flags))
                    for flags in (EXACT, DEFAULT)]
        figures[2] = tuple(pair)
    rows.append((name, kind, figures))
    coarse = any(c in profile for c in COARSE)
    for label, pair in zip(LABELS, figures):
        if pair is None:
            continue
        if pair[0] < min_db and not coarse:
            failures.append(f"{name}: {label} {pair[0]:.2f} dB against LittleCMS's exact chain, below {min_db}")
        if pair[1] < min_db:
            failures.append(f"{name}: {label} {pair[1]:.2f} dB against LittleCMS's default transform, below {min_db}")

print("PSNR in dB against LittleCMS's exact chain / its default (precalculated) transform")
print(f"{'file':44} {'kind':14} {'thumbnail srgb':>15} {'thumbnail keep':>15} {'convert srgb':>15}")
for name, kind, figures in rows:
    cells = ["-" if f is None else f"{f[0]:.2f} / {f[1]:.2f}" for f in figures]
    print(f"{name:44} {kind:14} " + " ".join(f"{c:>15}" for c in cells))
for column, label in enumerate(LABELS):
    for which, reference in enumerate(["exact chain", "default transform"]):
        values = [r[2][column][which] for r in rows if r[2][column] is not None]
        if not values:
            failures.append(f"{label}: no figures")
            continue
        mean = sum(values) / len(values)
        print(f"{label} against LittleCMS's {reference}: {len(values)} files, min {min(values):.2f} dB, "
              f"mean {mean:.2f} dB")
        if which == 1 and mean < mean_db:
            failures.append(f"{label}: mean {mean:.2f} dB against the default transform, below {mean_db}")
if len(rows) < 20:
    failures.append(f"only {len(rows)} fixtures")
if failures:
    print("\n".join("FAIL " + f for f in failures))
    sys.exit(1)
print("lut-compare: all passed")
PY
