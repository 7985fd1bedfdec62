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
#   3. `--gain-map keep`: libultrahdr (imagecodecs.ultrahdr_decode) opens the thumbnail, and its
#      HDR rendition is compared, in linear light (PSNR over the source rendition's peak) and in
#      10-bit PQ (SMPTE ST 2084, SDR white at 203 nits), with two references:
#        a. the source's HDR rendition resized (Lanczos, in linear light): the ideal. A
#           thumbnail resamples the SDR picture in its sRGB encoding and the gain map in its
#           log encoding, as every gain-map thumbnailer does, and on fine texture under a
#           boosted highlight that is not the same as resizing the product in linear light;
#           printed, and held to MIN_IDEAL_DB;
#        b. the same thumbnail made by other code: Pillow resizes the source's SDR picture and
#           gain map (Lanczos, in their encodings, the map to the thumbnail's size), writes
#           them at quality 95, Fixtures/gainmap/make-gainmap-files.py joins them with the
#           source's values, libultrahdr renders it. Held to MIN_DB in PQ (linear light weighs
#           an error by the boost on top of it: a 49x highlight's rounding outweighs the whole
#           rest of the picture): this is the check that the map is aligned, oriented,
#           resampled and labelled right. Both thumbnails at quality 95, so that JPEG's own
#           loss does not hide a wrong map.
#      ExifTool lists the thumbnail's MPF image and hdrgm XMP;
#      a PNG output and a file without a gain map give the plain thumbnail and a warning.
#
#   Tests/cli/gainmap-check.sh PARE [MIN_DB [MIN_IDEAL_DB]]
set -euo pipefail
name=gainmap-check
source "$(dirname "$0")/common.sh"
MIN_DB=${2:-35}
MIN_IDEAL_DB=${3:-32}
PARE=$(cd "$(dirname "$pare")" && pwd)/$(basename "$pare")
python3 Fixtures/gainmap/make-gainmap-files.py "$work/gm" "$corpus" > /dev/null
python3 - "$PARE" "$work" "$corpus" "$MIN_DB" "$MIN_IDEAL_DB" <<'PY'
import glob, importlib.util, io, json, math, os, subprocess, sys
import numpy as np
from PIL import Image
import imagecodecs, pyvips

pare, work, corpus, min_db, min_ideal_db = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
spec = importlib.util.spec_from_file_location("make_gainmap_files", "Fixtures/gainmap/make-gainmap-files.py")
maker = importlib.util.module_from_spec(spec)
spec.loader.exec_module(maker)
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

# 3. --gain-map keep: an HDR thumbnail that libultrahdr opens and renders like the source.
def oriented(a, orientation):
    if orientation in (5, 6, 7, 8):
        a = np.swapaxes(a, 0, 1)            # transpose: 5
        if orientation == 6: a = a[:, ::-1]
        if orientation == 7: a = a[::-1, ::-1]
        if orientation == 8: a = a[::-1]
    else:
        if orientation in (2, 3): a = a[:, ::-1]
        if orientation in (3, 4): a = a[::-1]
    return a

def pq10(linear):
    """Linear light (1.0 = SDR white, 203 nits) to 10-bit PQ code values."""
    y = np.clip(linear * 203.0 / 10000.0, 0, 1)
    m1, m2 = 2610 / 16384, 2523 / 4096 * 128
    c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
    p = y ** m1
    return ((c1 + c2 * p) / (1 + c3 * p)) ** m2 * 1023

def reference_thumbnail(path, width, height):
    """Reference b: Pillow resizes the SDR picture and the gain map, the fixture script joins
    them with the values of the source's ISO 21496-1 block (the -iso twin's, for -xmp files)."""
    primary, gainmap = maker.split(open(path.replace("-xmp.jpg", "-iso.jpg"), "rb").read())
    values = maker.iso_values(gainmap)
    sdr = Image.open(io.BytesIO(primary))
    picture = io.BytesIO()
    sdr.convert("RGB").resize((width, height), Image.LANCZOS).save(
        picture, "JPEG", quality=95, icc_profile=sdr.info.get("icc_profile"))
    gm = Image.open(io.BytesIO(gainmap))
    size = (min(width, gm.width), min(height, gm.height))
    mapped = io.BytesIO()
    gm.resize(size, Image.LANCZOS).save(mapped, "JPEG", quality=95, subsampling=0)
    joined = maker.assemble(picture.getvalue(), mapped.getvalue(), values)
    return imagecodecs.ultrahdr_decode(joined).astype(np.float32)[..., :3]

hdr_rows = []
for path in files:
    orientation = json.loads(run([pare, "exif", path, "--json"]).stdout)["orientation"]
    source = imagecodecs.ultrahdr_decode(open(path, "rb").read()).astype(np.float32)[..., :3]
    peak = float(source.max())
    for size in (256, 1024):
        out = os.path.join(work, "hdr.jpg")
        r = run([pare, "thumbnail", path, "--size", str(size), "--gain-map", "keep", "--quality", "95", "-o", out])
        if r.returncode != 0 or r.stderr.strip():
            failures.append(f"{path} {size} keep: exit {r.returncode} {r.stderr.strip()}"); continue
        ours = imagecodecs.ultrahdr_decode(open(out, "rb").read()).astype(np.float32)[..., :3]
        h, w = ours.shape[:2]
        def resized(a):
            return np.stack([np.asarray(Image.fromarray(np.ascontiguousarray(a[..., c])).resize((w, h), Image.LANCZOS))
                             for c in range(3)], axis=2)
        ideal = resized(oriented(source, orientation))
        ideal_db, ideal_pq = psnr(ours, ideal, peak), psnr(pq10(ours), pq10(ideal), 1023)
        stored = (h, w) if orientation < 5 else (w, h)
        reference = oriented(reference_thumbnail(path, stored[1], stored[0]), orientation)
        ref_db, ref_pq = psnr(ours, reference, peak), psnr(pq10(ours), pq10(reference), 1023)
        tool = json.loads(run(["exiftool", "-j", "-G1", "-MPF:all", "-XMP-hdrgm:all", out]).stdout)[0]
        if tool.get("MPF0:NumberOfImages") != 2 or str(tool.get("XMP-hdrgm:Version")) not in ("1.0", "1"):
            failures.append(f"{path} {size} keep: ExifTool finds no MPF image 2 or hdrgm XMP in the thumbnail")
        # How far the other code's thumbnail is from the ideal: what resampling the picture
        # and the map apart costs, whoever does it.
        ref_ideal_db = psnr(reference, ideal, peak)
        hdr_rows.append((os.path.basename(path), size, f"{w}x{h}", ref_db, ref_pq, ideal_db, ideal_pq, ref_ideal_db))
        if ref_pq < min_db:
            failures.append(f"{path} {size} keep: {ref_pq:.1f} dB (PQ) from the reference thumbnail (< {min_db})")
        if ideal_db < min_ideal_db:
            failures.append(f"{path} {size} keep: {ideal_db:.1f} dB from the source's HDR resized (< {min_ideal_db})")
# PNG output and a file without a gain map: the plain thumbnail and a warning.
plain = os.path.join(corpus, "exif/cameras/Casio_EX-S1.jpg")
for path, out, expect in ((files[0], "hdr.png", "PNG cannot carry one"), (plain, "plain.jpg", "the source has none")):
    r = run([pare, "thumbnail", path, "--size", "128", "--gain-map", "keep", "-o", os.path.join(work, out)])
    if r.returncode != 0 or expect not in r.stderr:
        failures.append(f"{path} keep as {out}: exit {r.returncode}, stderr {r.stderr.strip()!r}, expected a warning '{expect}'")

for row in hdr_rows:
    print("keep %-47s %5d %-9s reference %5.1f dB linear %5.1f PQ; source resized %5.1f dB linear %5.1f PQ "
          "(the reference: %5.1f dB linear)" % row)
for row in rows:
    print("%-52s %5d %-14s %6.1f dB %s" % row)
print(f"gainmap-check: {len(rows)} thumbnails, worst {min(r[3] for r in rows):.1f} dB; "
      f"{len(hdr_rows)} HDR thumbnails, worst {min(r[4] for r in hdr_rows):.1f} dB (PQ) from the reference, "
      f"{min(r[5] for r in hdr_rows):.1f} dB (linear) from the source resized; "
      f"{sum(r[5] >= 35 for r in hdr_rows)} of {len(hdr_rows)} at 35 dB or more "
      f"(the reference thumbnails: worst {min(r[7] for r in hdr_rows):.1f} dB, "
      f"{sum(r[7] >= 35 for r in hdr_rows)} of {len(hdr_rows)} at 35 dB or more)")
if failures:
    print("\n".join("FAILED: " + f for f in failures))
    sys.exit(1)
print("gainmap-check: all passed")
PY
