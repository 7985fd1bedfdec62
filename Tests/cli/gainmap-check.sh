#!/usr/bin/env bash
# Gain-map JPEGs (HDR photos): Fixtures/gainmap/make-gainmap-files.py makes Ultra HDR files
# from corpus photos with libultrahdr (ISO 21496-1 and XMP forms; several sizes, gain-map
# scales and orientations); the corpus files with MPF are added. For each:
#   1. at 128, 256 and 1024 px the thumbnail's source is never the gain map (nor any MPF image
#      that is not a Large Thumbnail), it is RGB, and it is at least MIN_DB from vipsthumbnail's
#      (`--size N>`: neither enlarges). vipsthumbnail never uses embedded images: where Pare
#      chose the EXIF thumbnail or a Large Thumbnail preview (a re-rendering by the camera, not
#      the same pixels), the comparison is made with `--embedded never`, and the embedded one's
#      figure is printed beside it. Sizes that round the other way (170 against 171 rows) are
#      compared on the rows and columns both have.
#   2. `pare exif --json`'s gainMap agrees with ExifTool (MPF start and length, the gain map's
#      XMP-hdrgm values) and with libvips 8.18 (pyvips: the ISO 21496-1 values, as boosts);
#   3. `--gain-map keep`: libultrahdr (imagecodecs.ultrahdr_decode) opens the thumbnail, its HDR
#      rendition (linear light, float) is at least MIN_DB from the source's HDR rendition resized
#      to the same size (PSNR over the source's peak), ExifTool lists its MPF image and hdrgm XMP;
#      a PNG output and a file without a gain map give the plain thumbnail and a warning.
#
#   Tests/cli/gainmap-check.sh PARE [MIN_DB]
set -euo pipefail
name=gainmap-check
source "$(dirname "$0")/common.sh"
MIN_DB=${2:-35}
PARE=$(cd "$(dirname "$pare")" && pwd)/$(basename "$pare")
python3 Fixtures/gainmap/make-gainmap-files.py "$work/gm" "$corpus" > /dev/null
python3 - "$PARE" "$work" "$corpus" "$MIN_DB" <<'PY'
import glob, json, math, os, subprocess, sys
import numpy as np
from PIL import Image
import imagecodecs, pyvips

pare, work, corpus, min_db = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
pyvips.cache_set_max(0)
failures, rows = [], []

def psnr(a, b, peak=255.0):
    a = np.asarray(a, np.float64); b = np.asarray(b, np.float64)
    mse = np.mean((a - b) ** 2)
    return 99.0 if mse == 0 else 10 * math.log10(peak * peak / mse)

def run(args):
    return subprocess.run(args, capture_output=True, text=True)

files = sorted(glob.glob(os.path.join(work, "gm", "*.jpg")))
mpf_corpus = []
for ref in sorted(glob.glob(os.path.join(corpus, "exif/ref/*.json"))):
    data = json.load(open(ref))[0]
    if "MPF0:NumberOfImages" in data:
        mpf_corpus.append(os.path.join(corpus, data["SourceFile"]) if not data["SourceFile"].startswith("/")
                          else data["SourceFile"])
mpf_corpus = [f for f in mpf_corpus if os.path.exists(f)]
if len(files) < 16 or len(mpf_corpus) < 2:
    sys.exit(f"gainmap-check: expected 16 made files and the corpus MPF files, found {len(files)} and {len(mpf_corpus)}")

# 1. Thumbnails: never a gain map, RGB, close to vipsthumbnail's.
for path in files + mpf_corpus:
    meta = json.loads(run([pare, "exif", path, "--json"]).stdout)
    large = {m["offset"] for m in meta["mpf"] if m["type"].startswith("large-thumbnail")}
    for size in (128, 256, 1024):
        ref = os.path.join(work, "v.png")
        subprocess.run(["vipsthumbnail", path, "--size", f"{size}>", "-o", ref], check=True)
        theirs = np.asarray(Image.open(ref).convert("RGB"))
        embedded_db = None
        for embedded in ("auto", "never"):
            out = os.path.join(work, "t.png")
            r = run([pare, "thumbnail", path, "--size", str(size), "--embedded", embedded, "-o", out, "--json"])
            if r.returncode != 0:
                failures.append(f"{path} {size}: pare failed: {r.stderr.strip()}"); break
            info = json.loads(r.stdout)
            ours = Image.open(out)
            if info["source"] == "mpf-preview" and not large:
                failures.append(f"{path} {size}: source mpf-preview, and no MPF image is a Large Thumbnail")
            if ours.mode != "RGB":
                failures.append(f"{path} {size}: thumbnail mode {ours.mode}, expected RGB")
            ours = np.asarray(ours.convert("RGB"))
            h, w = min(ours.shape[0], theirs.shape[0]), min(ours.shape[1], theirs.shape[1])
            if abs(ours.shape[0] - theirs.shape[0]) > 1 or abs(ours.shape[1] - theirs.shape[1]) > 1:
                failures.append(f"{path} {size}: {ours.shape[1]}x{ours.shape[0]}, vipsthumbnail's "
                                f"{theirs.shape[1]}x{theirs.shape[0]}")
            db = psnr(ours[:h, :w], theirs[:h, :w])
            if embedded == "auto" and info["source"] in ("exif-thumbnail", "mpf-preview"):
                embedded_db, source = db, info["source"]
                continue
            break
        else:
            pass
        if embedded_db is None:
            source = info["source"]
        rows.append((os.path.basename(path), size, source, db,
                     "" if embedded_db is None else f"(the {source} itself: {embedded_db:.1f} dB)"))
        if db < min_db:
            failures.append(f"{path} {size}: {db:.1f} dB from vipsthumbnail's (< {min_db})")

# 2. gainMap against ExifTool and libvips 8.18.
for path in files:
    gm = json.loads(run([pare, "exif", path, "--json"]).stdout)["gainMap"]
    if gm is None:
        failures.append(f"{path}: no gainMap"); continue
    tool = json.loads(run(["exiftool", "-j", "-n", "-G1", "-MPF:all", path]).stdout)[0]
    if (tool.get("MPImage2:MPImageStart"), tool.get("MPImage2:MPImageLength")) != (gm["offset"], gm["length"]):
        failures.append(f"{path}: gainMap at {gm['offset']}+{gm['length']}, ExifTool's MPImage2 at "
                        f"{tool.get('MPImage2:MPImageStart')}+{tool.get('MPImage2:MPImageLength')}")
    if path.endswith("-xmp.jpg"):
        extracted = os.path.join(work, "gm.jpg")
        with open(extracted, "wb") as f:
            f.write(subprocess.run(["exiftool", "-b", "-MPImage2", path], capture_output=True, check=True).stdout)
        x = json.loads(run(["exiftool", "-j", "-n", "-XMP-hdrgm:all", extracted]).stdout)[0]
        pairs = [("GainMapMin", "gainMapMin"), ("GainMapMax", "gainMapMax"), ("Gamma", "gamma"),
                 ("OffsetSDR", "offsetSDR"), ("OffsetHDR", "offsetHDR"), ("HDRCapacityMin", "hdrCapacityMin"),
                 ("HDRCapacityMax", "hdrCapacityMax")]
        if gm["standard"] != "ultra-hdr":
            failures.append(f"{path}: standard {gm['standard']}, expected ultra-hdr")
    else:
        v = pyvips.Image.new_from_file(path)
        x = {"max": v.get("gainmap-max-content-boost"), "min": v.get("gainmap-min-content-boost"),
             "cmin": v.get("gainmap-hdr-capacity-min"), "cmax": v.get("gainmap-hdr-capacity-max"),
             "gamma": v.get("gainmap-gamma"), "osdr": v.get("gainmap-offset-sdr"), "ohdr": v.get("gainmap-offset-hdr")}
        first = lambda value: value[0] if isinstance(value, list) else value
        x = {"GainMapMax": math.log2(first(x["max"])), "GainMapMin": math.log2(first(x["min"])),
             "HDRCapacityMin": math.log2(x["cmin"]), "HDRCapacityMax": math.log2(x["cmax"]),
             "Gamma": first(x["gamma"]), "OffsetSDR": first(x["osdr"]), "OffsetHDR": first(x["ohdr"])}
        pairs = [("GainMapMin", "gainMapMin"), ("GainMapMax", "gainMapMax"), ("Gamma", "gamma"),
                 ("OffsetSDR", "offsetSDR"), ("OffsetHDR", "offsetHDR"), ("HDRCapacityMin", "hdrCapacityMin"),
                 ("HDRCapacityMax", "hdrCapacityMax")]
        if gm["standard"] != "iso-21496-1":
            failures.append(f"{path}: standard {gm['standard']}, expected iso-21496-1")
    for theirs, ours in pairs:
        a = gm[ours][0] if isinstance(gm[ours], list) else gm[ours]
        b = x.get(theirs)
        b = b[0] if isinstance(b, list) else b
        if b is None or abs(a - b) > 1e-4:
            failures.append(f"{path}: gainMap {ours} {a}, oracle's {theirs} {b}")

for row in rows:
    print("%-52s %5d %-14s %6.1f dB %s" % row)
print(f"gainmap-check: {len(rows)} thumbnails, worst {min(r[3] for r in rows):.1f} dB")
if failures:
    print("\n".join("FAILED: " + f for f in failures))
    sys.exit(1)
print("gainmap-check: all passed")
PY
