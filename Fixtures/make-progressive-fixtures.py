#!/usr/bin/env python3
"""Regenerate Fixtures/progressive/ from nothing.

    python3 Fixtures/make-progressive-fixtures.py

Needs: cjpeg, djpeg, jpegtran (apt: libjpeg-turbo-progs) and Pillow (pip: pillow). The
pictures are drawn here from fixed seeds; nothing is read from outside this script.

Progressive (SOF2) JPEGs for the decoder, each with djpeg references at every DCT scale
(<stem>.s<N>.png, N = 1, 2, 4, 8: `djpeg -scale 1/N -pnm` stored losslessly as PNG, mode L
for gray, RGB otherwise), named like the corpus's jpeg/ref:

  px-<sampling>        `cjpeg -progressive` (libjpeg's default script: DC with successive
                       approximation, luma 1-5 then 6-63, chroma 1-63, refinements) at
                       4:2:0, 4:2:2, 4:4:4, 4:4:0, 4:1:1 and gray on a 67x45 picture (no
                       edge a multiple of an MCU);
  px-size-<W>x<H>      odd sizes 1x1, 7x9, 17x33 (4:2:0);
  px-restart-*         restart intervals in MCU rows and in MCUs (`-restart 1`, `-restart 3B`);
  px-q95-photo         a 120x90 photo-like picture at quality 95;
  px-scans-<name>      `jpegtran -scans` scripts:
      spectral         DC first (interleaved), then AC spectral selection only (no successive
                       approximation), bands 1-5, 6-20, 21-63 for luma, 1-63 for chroma;
      successive       DC and AC with successive approximation, two refinement levels (Al 2,
                       1, 0) on every band;
      dc-last          DC first at Al=1, every AC band, and the DC refinement last of all;
      separate-dc      one DC scan per component (non-interleaved DC);
      bands            many narrow bands (1-1, 2-2, 3-5, 6-9, 10-27, 28-63) and refinements;
      high-al          DC at Al=4 with four refinements, AC at Al=3;
      restart          the successive script with a restart interval of 2 MCUs;
    each on 4:2:0, and spectral, successive and restart on 4:2:2, 4:4:4 and gray too;
  px-scans-no-chroma-ac-420, px-scans-unrefined-420
                       complete files whose progression never finishes: chroma gets DC only;
                       luma AC stops at bit position 1. djpeg estimates the missing low AC
                       coefficients (and, with no AC at all, the DC) from neighbouring blocks;
  px-cut-<where>-<kind> a progression cut short, as a truncated download: the successive
                       script on the 120x90 photo (4:2:0, also with restarts every 2 MCUs and
                       gray), cut in the DC scan, right after it, in the first AC scan and in a
                       late refinement scan.
"""

import os
import random
import shutil
import subprocess
import tempfile

from PIL import Image, ImageDraw, ImageFilter

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "progressive")


def picture(width, height, seed):
    """A photo-like picture: gradients, shapes, soft edges and some grain."""
    rng = random.Random(seed)
    image = Image.new("RGB", (width, height))
    pixels = image.load()
    for y in range(height):
        for x in range(width):
            pixels[x, y] = (
                (x * 255) // max(1, width - 1),
                (y * 255) // max(1, height - 1),
                ((x + y) * 127) // max(1, width + height - 2) + 64,
            )
    draw = ImageDraw.Draw(image)
    for _ in range(12):
        x0, y0 = rng.randrange(width), rng.randrange(height)
        x1, y1 = x0 + rng.randrange(1, max(2, width // 2)), y0 + rng.randrange(1, max(2, height // 2))
        colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        if rng.random() < 0.5:
            draw.ellipse([x0, y0, x1, y1], fill=colour)
        else:
            draw.rectangle([x0, y0, x1, y1], fill=colour)
    image = image.filter(ImageFilter.GaussianBlur(0.8))
    pixels = image.load()
    for y in range(height):
        for x in range(width):
            r, g, b = pixels[x, y]
            n = rng.randrange(-12, 13)
            pixels[x, y] = (max(0, min(255, r + n)), max(0, min(255, g + n)), max(0, min(255, b - n)))
    for i in range(0, width, 9):
        draw = ImageDraw.Draw(image)
        draw.line([i, 0, i + height // 3, height], fill=(250, 250, 250) if i % 2 else (10, 10, 10))
    return image


SAMPLING = {"420": "2x2,1x1,1x1", "422": "2x1,1x1,1x1", "444": "1x1,1x1,1x1", "440": "1x2,1x1,1x1",
            "411": "4x1,1x1,1x1"}

SCRIPTS = {
    "spectral": ["0,1,2: 0-0, 0, 0;", "0: 1-5, 0, 0;", "1: 1-63, 0, 0;", "2: 1-63, 0, 0;", "0: 6-20, 0, 0;",
                 "0: 21-63, 0, 0;"],
    "successive": ["0,1,2: 0-0, 0, 2;", "0: 1-5, 0, 2;", "1: 1-63, 0, 1;", "2: 1-63, 0, 1;", "0: 6-63, 0, 2;",
                   "0,1,2: 0-0, 2, 1;", "0: 1-63, 2, 1;", "1: 1-63, 1, 0;", "2: 1-63, 1, 0;", "0,1,2: 0-0, 1, 0;",
                   "0: 1-63, 1, 0;"],
    "dc-last": ["0,1,2: 0-0, 0, 1;", "0: 1-63, 0, 1;", "1: 1-63, 0, 0;", "2: 1-63, 0, 0;", "0: 1-63, 1, 0;",
                "0,1,2: 0-0, 1, 0;"],
    "separate-dc": ["0: 0-0, 0, 0;", "1: 0-0, 0, 0;", "2: 0-0, 0, 0;", "1: 1-63, 0, 0;", "0: 1-63, 0, 1;",
                    "2: 1-63, 0, 0;", "0: 1-63, 1, 0;"],
    "bands": ["0,1,2: 0-0, 0, 1;", "0: 1-1, 0, 1;", "0: 2-2, 0, 1;", "0: 3-5, 0, 1;", "0: 6-9, 0, 0;",
              "0: 10-27, 0, 0;", "0: 28-63, 0, 0;", "1: 1-2, 0, 0;", "1: 3-63, 0, 0;", "2: 1-63, 0, 0;",
              "0: 1-5, 1, 0;", "0,1,2: 0-0, 1, 0;"],
    "high-al": ["0,1,2: 0-0, 0, 4;", "0: 1-63, 0, 3;", "1: 1-63, 0, 3;", "2: 1-63, 0, 3;", "0,1,2: 0-0, 4, 3;",
                "0,1,2: 0-0, 3, 2;", "0: 1-63, 3, 2;", "1: 1-63, 3, 2;", "2: 1-63, 3, 2;", "0,1,2: 0-0, 2, 1;",
                "0,1,2: 0-0, 1, 0;", "0: 1-63, 2, 1;", "0: 1-63, 1, 0;", "1: 1-63, 2, 1;", "1: 1-63, 1, 0;",
                "2: 1-63, 2, 1;", "2: 1-63, 1, 0;"],
}


def gray_script(lines):
    """The same progression for one component: component 0's scans, DC lists cut to 0."""
    result = []
    for line in lines:
        components, rest = line.split(":", 1)
        if "0" in components.split(","):
            result.append("0:" + rest)
    return result


def scan_offsets(data):
    """Offsets of the SOS markers of a JPEG, and of its EOI (or its end)."""
    offsets, i = [], 2
    while i + 4 <= len(data):
        if data[i] != 0xFF or data[i + 1] == 0xFF:
            i += 1
            continue
        marker, start = data[i + 1], i
        if marker == 0xD9:
            return offsets, i
        i += 2 + ((data[i + 2] << 8) | data[i + 3])
        if marker == 0xDA:
            offsets.append(start)
            # Entropy-coded data runs to the next marker other than a stuffed zero or RSTn.
            while i + 1 < len(data) and not (data[i] == 0xFF and data[i + 1] != 0 and not 0xD0 <= data[i + 1] <= 0xD7):
                i += 1
    return offsets, len(data)


def cut(source_jpg, name, where):
    """Writes the first bytes of a progressive JPEG, cut `where` in its scan sequence."""
    with open(source_jpg, "rb") as f:
        data = f.read()
    sos, eoi = scan_offsets(data)
    ends = sos[1:] + [eoi]
    if where == "in-dc":
        at = sos[0] + (ends[0] - sos[0]) * 6 // 10
    elif where == "after-dc":
        at = ends[0]
    elif where == "in-ac":
        at = sos[1] + (ends[1] - sos[1]) // 2
    else:  # in-refine: halfway through the third scan from the end
        at = sos[-3] + (ends[-3] - sos[-3]) // 2
    path = os.path.join(OUT, name + ".jpg")
    with open(path, "wb") as f:
        f.write(data[:at])
    references(path)


def run(*args, **kwargs):
    subprocess.run(args, check=True, **kwargs)


def references(path):
    stem = os.path.splitext(path)[0]
    for n in (1, 2, 4, 8):
        # Exit status 2 is djpeg's "decoded with warnings", as for a file cut short.
        decoded = subprocess.run(["djpeg", "-scale", f"1/{n}", "-pnm", path], capture_output=True)
        if decoded.returncode not in (0, 2):
            raise RuntimeError(f"djpeg failed on {path}: {decoded.stderr!r}")
        pnm = decoded.stdout
        with tempfile.NamedTemporaryFile(suffix=".pnm") as f:
            f.write(pnm)
            f.flush()
            Image.open(f.name).save(f"{stem}.s{n}.png", optimize=True)


def cjpeg(source_ppm, name, *options):
    path = os.path.join(OUT, name + ".jpg")
    run("cjpeg", *options, "-outfile", path, source_ppm)
    references(path)
    return path


def jpegtran(base_jpg, name, lines, *options):
    path = os.path.join(OUT, name + ".jpg")
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as script:
        script.write("\n".join(lines) + "\n")
    try:
        run("jpegtran", "-copy", "none", *options, "-scans", script.name, "-outfile", path, base_jpg)
    finally:
        os.unlink(script.name)
    references(path)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    work = tempfile.mkdtemp()
    try:
        colour = os.path.join(work, "colour.ppm")
        gray = os.path.join(work, "gray.pgm")
        photo = os.path.join(work, "photo.ppm")
        picture(67, 45, 1).save(colour)
        picture(67, 45, 2).convert("L").save(gray)
        picture(120, 90, 3).save(photo)

        for name, factors in SAMPLING.items():
            cjpeg(colour, f"px-{name}", "-progressive", "-quality", "85", "-sample", factors)
        cjpeg(gray, "px-gray", "-progressive", "-quality", "85", "-grayscale")
        for width, height, seed in ((1, 1, 4), (7, 9, 5), (17, 33, 6)):
            small = os.path.join(work, f"small-{width}x{height}.ppm")
            picture(width, height, seed).save(small)
            cjpeg(small, f"px-size-{width}x{height}", "-progressive", "-quality", "90", "-sample", SAMPLING["420"])
        cjpeg(colour, "px-restart-rows", "-progressive", "-quality", "85", "-restart", "1")
        cjpeg(colour, "px-restart-3b", "-progressive", "-quality", "85", "-restart", "3B", "-sample", SAMPLING["422"])
        cjpeg(photo, "px-q95-photo", "-progressive", "-quality", "95")

        # Sequential bases for jpegtran: it keeps the coefficients and rewrites the scans.
        bases = {}
        for name in ("420", "422", "444"):
            base = os.path.join(work, f"base-{name}.jpg")
            run("cjpeg", "-quality", "88", "-sample", SAMPLING[name], "-outfile", base, colour)
            bases[name] = base
        base_gray = os.path.join(work, "base-gray.jpg")
        run("cjpeg", "-quality", "88", "-grayscale", "-outfile", base_gray, gray)

        for name, lines in SCRIPTS.items():
            if name == "restart":
                continue
            jpegtran(bases["420"], f"px-scans-{name}-420", lines)
        jpegtran(bases["420"], "px-scans-restart-420", SCRIPTS["successive"], "-restart", "2B")
        for sampling in ("422", "444"):
            jpegtran(bases[sampling], f"px-scans-spectral-{sampling}", SCRIPTS["spectral"])
            jpegtran(bases[sampling], f"px-scans-successive-{sampling}", SCRIPTS["successive"])
            jpegtran(bases[sampling], f"px-scans-restart-{sampling}", SCRIPTS["successive"], "-restart", "1")
        jpegtran(base_gray, "px-scans-spectral-gray", gray_script(SCRIPTS["spectral"]))
        jpegtran(base_gray, "px-scans-successive-gray", gray_script(SCRIPTS["successive"]))
        jpegtran(base_gray, "px-scans-restart-gray", gray_script(SCRIPTS["successive"]), "-restart", "5B")
        jpegtran(bases["420"], "px-scans-no-chroma-ac-420",
                 ["0,1,2: 0-0, 0, 0;", "0: 1-5, 0, 0;", "0: 6-63, 0, 0;"])
        jpegtran(bases["420"], "px-scans-unrefined-420",
                 ["0,1,2: 0-0, 0, 0;", "0: 1-63, 0, 1;", "1: 1-63, 0, 0;", "2: 1-63, 0, 0;"])

        # Progressions cut short.
        base_photo = os.path.join(work, "base-photo.jpg")
        run("cjpeg", "-quality", "90", "-outfile", base_photo, photo)
        base_photo_gray = os.path.join(work, "base-photo-gray.jpg")
        run("cjpeg", "-quality", "90", "-grayscale", "-outfile", base_photo_gray, photo)
        whole = {}
        for kind, base, lines, options in (("420", base_photo, SCRIPTS["successive"], ()),
                                           ("restart", base_photo, SCRIPTS["successive"], ("-restart", "2B")),
                                           ("gray", base_photo_gray, gray_script(SCRIPTS["successive"]), ())):
            whole[kind] = os.path.join(work, f"whole-{kind}.jpg")
            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as script:
                script.write("\n".join(lines) + "\n")
            try:
                run("jpegtran", "-copy", "none", *options, "-scans", script.name, "-outfile", whole[kind], base)
            finally:
                os.unlink(script.name)
            for where in ("in-dc", "after-dc", "in-ac", "in-refine"):
                cut(whole[kind], f"px-cut-{where}-{kind}", where)
    finally:
        shutil.rmtree(work)
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"{len(os.listdir(OUT))} files, {total} bytes in {OUT}")


if __name__ == "__main__":
    main()
