#!/usr/bin/env python3
"""Regenerate every file under Fixtures/ from nothing.

    python3 Fixtures/make-fixtures.py

Needs: cjpeg, djpeg (apt: libjpeg-turbo-progs), exiftool (apt: libimage-exiftool-perl),
Pillow (pip: pillow). Every picture is drawn here from fixed seeds, so two runs with the
same tool versions give the same bytes. Nothing is read from outside this script.

What each group is for:

  jpeg/      Baseline JPEGs for the decoder, each with djpeg references at every DCT
             scale (<stem>.s<N>.png, N = 1, 2, 4, 8: `djpeg -scale 1/N -pnm` stored
             losslessly as PNG, mode L for gray, RGB otherwise), named like the corpus's
             jpeg/ref so the same test code reads both.
             - sampling: 4:4:4, 4:2:2, 4:2:0, 4:4:0, 4:1:1, 3x1, 4x2, per-component mixed
               (Y 2x2, Cb 1x2, Cr 2x1) and grayscale, on a 131x77 picture (no dimension
               a multiple of any MCU size, so every edge MCU is partial);
             - restart intervals in MCU rows (`-restart 1`, `-restart 2`) and in MCUs
               (`-restart 1B`, `3B`, `7B`);
             - odd sizes 1x1, 7x9, 17x33, 1023x1, 1x1023;
             - content at 300x200: a photo-like scene, a text-like glyph page (gray),
               sharp edges (4:4:4), colour bars (4:2:2);
             - quality 50, 90, 100; optimised Huffman tables (`-optimize`);
             - sequential multi-scan files (SOF0 with one scan per component, or luma
               then both chroma interleaved, one with restarts): non-interleaved scans
               cover ceil(W/8) x ceil(H/8) blocks of a component, not whole MCUs.
  sample.jpg The README's sample: a 2048x1536 4:2:0 photo-like picture, stored on its
             side (1536x2048) with EXIF
             (Make "Pare", Model "Fixture", DateTimeOriginal, Orientation 6,
             ExifImageWidth/Height) and a 120x160 IFD1 thumbnail stored the same way.
  exif/      EXIF and MPF containers, each with `exiftool -j -n -G1` JSON (<stem>.json,
             SourceFile "Fixtures/exif/<file>"), the IFD1 thumbnail as exiftool extracts
             it (<stem>.thumb.jpg, when there is one) and djpeg references
             (<stem>.s<N>.png, N = 1, 2, 4, 8).
             - fx-mpf: CIPA DC-007 MPF, APP2 MP Index IFD with two entries (baseline MP
               primary + representative; large thumbnail class 1, 640x480 appended after
               the primary's EOI), little-endian, plus an EXIF 160x120 thumbnail: three
               sources of different sizes in one file;
             - fx-mpf-MM: the same structure, big-endian MPF, smaller;
             - fx-letterbox: 3:2 main picture whose 160x120 thumbnail has black bars
               (aspect mismatch: an embedded thumbnail to refuse);
             - fx-thumb-II, fx-thumb-MM: both EXIF byte orders, 160x120 thumbnails,
               Orientation 3 and 8 (the MM one keeps a JFIF APP0 after the APP1);
             - fx-orientation-<n>, n = 1..8: one 96x64 picture stored so that applying
               Orientation n displays it upright; displayed results should all match.
"""

import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

from PIL import Image, ImageDraw, ImageFilter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCALES = (1, 2, 4, 8)


# ---------------------------------------------------------------- pictures

GLYPH_W, GLYPH_H = 5, 7


def glyph_bitmaps(rnd, count):
    """Random 5x7 bitmaps with a stem so they read as letters rather than noise."""
    glyphs = []
    for _ in range(count):
        bits = [[rnd.random() < 0.35 for _ in range(GLYPH_W)] for _ in range(GLYPH_H)]
        stem = rnd.randrange(GLYPH_W)
        for y in range(GLYPH_H):
            bits[y][stem] = True
        glyphs.append(bits)
    return glyphs


def draw_text(draw, rnd, box, scale, ink, paper):
    """Lines of small high-contrast glyphs filling box = (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    draw.rectangle(box, fill=paper)
    glyphs = glyph_bitmaps(rnd, 40)
    y = y0 + scale
    while y + GLYPH_H * scale <= y1:
        x = x0 + scale
        while x + GLYPH_W * scale <= x1:
            if rnd.random() < 0.18:
                x += 3 * scale  # a word gap
                continue
            g = glyphs[rnd.randrange(len(glyphs))]
            for gy in range(GLYPH_H):
                for gx in range(GLYPH_W):
                    if g[gy][gx]:
                        px, py = x + gx * scale, y + gy * scale
                        draw.rectangle((px, py, px + scale - 1, py + scale - 1), fill=ink)
            x += (GLYPH_W + 1) * scale
        y += (GLYPH_H + 3) * scale


BARS = [(235, 235, 235), (235, 235, 16), (16, 235, 235), (16, 235, 16),
        (235, 16, 235), (235, 16, 16), (16, 16, 235), (16, 16, 16)]


def draw_bars(draw, box):
    x0, y0, x1, y1 = box
    n = len(BARS)
    for i, c in enumerate(BARS):
        a = x0 + (x1 - x0 + 1) * i // n
        b = x0 + (x1 - x0 + 1) * (i + 1) // n - 1
        if b >= a:
            draw.rectangle((a, y0, b, y1), fill=c)


def gradient_rgb(w, h):
    """R across, G down, B from the centre outwards: smooth in every direction."""
    horiz = Image.linear_gradient("L").transpose(Image.Transpose.ROTATE_90)
    vert = Image.linear_gradient("L")
    radial = Image.radial_gradient("L")
    return Image.merge("RGB", [horiz.resize((w, h), Image.Resampling.BILINEAR),
                               vert.resize((w, h), Image.Resampling.BILINEAR),
                               radial.resize((w, h), Image.Resampling.BILINEAR)])


def noise(rnd, w, h, mode="RGB"):
    bands = 3 if mode == "RGB" else 1
    return Image.frombytes(mode, (w, h), rnd.randbytes(w * h * bands))


def scene(w, h, seed, with_noise=True):
    """Everything a decoder can get wrong in one picture: gradients, sharp edges,
    glyphs, colour bars and a noise patch, laid out in proportion to the size."""
    rnd = random.Random(seed)
    img = gradient_rgb(w, h)
    d = ImageDraw.Draw(img)
    # sharp-edged shapes
    d.ellipse((w * 0.55, h * 0.08, w * 0.95, h * 0.62), fill=(250, 210, 40), outline=(0, 0, 0))
    d.polygon([(w * 0.05, h * 0.95), (w * 0.30, h * 0.35), (w * 0.50, h * 0.95)], fill=(20, 90, 30))
    d.rectangle((w * 0.62, h * 0.70, w * 0.97, h * 0.97), fill=(255, 255, 255), outline=(200, 0, 0))
    # one-pixel lines, horizontal, vertical and diagonal
    for i in range(0, max(w // 6, 1), 2):
        d.line((w * 0.05 + i, h * 0.05, w * 0.05 + i, h * 0.30), fill=(0, 0, 0))
    d.line((0, h - 1, w - 1, 0), fill=(255, 0, 255))
    # colour bars, glyphs, noise
    draw_bars(d, (int(w * 0.02), int(h * 0.40), int(w * 0.52), int(h * 0.52)))
    draw_text(d, rnd, (int(w * 0.64), int(h * 0.72), int(w * 0.95), int(h * 0.95)),
              1 if w < 400 else 2, (0, 0, 0), (255, 255, 255))
    if with_noise:
        pw, ph = max(w // 8, 1), max(h // 6, 1)
        img.paste(noise(rnd, pw, ph), (int(w * 0.35), int(h * 0.05)))
    return img


def text_page(w, h, seed):
    rnd = random.Random(seed)
    img = Image.new("L", (w, h), 255)
    draw_text(ImageDraw.Draw(img), rnd, (0, 0, w - 1, h - 1), 1, 0, 255)
    return img


def edges(w, h, seed):
    """Checkerboards of several pitches, a star of lines and saturated blocks."""
    rnd = random.Random(seed)
    img = Image.new("RGB", (w, h), (128, 128, 128))
    d = ImageDraw.Draw(img)
    for band, pitch in enumerate((1, 2, 3, 5, 8)):
        y0 = band * h // 10
        for y in range(y0, y0 + h // 10):
            for x in range(w // 2):
                if ((x // pitch) + (y // pitch)) % 2:
                    img.putpixel((x, y), (255, 255, 255))
                else:
                    img.putpixel((x, y), (0, 0, 0))
    cx, cy = w * 3 // 4, h // 4
    for k in range(24):
        x = rnd.randrange(w // 2, w)
        y = rnd.randrange(0, h // 2)
        d.line((cx, cy, x, y), fill=(255, 255, 255) if k % 2 else (0, 0, 0))
    colours = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (0, 255, 255), (255, 0, 255)]
    for i, c in enumerate(colours):
        d.rectangle((i * w // 6, h // 2, (i + 1) * w // 6 - 1, h - 1), fill=c)
        d.rectangle((i * w // 6 + 4, h // 2 + 4, i * w // 6 + 12, h // 2 + 12), fill=colours[-1 - i])
    return img


def bars(w, h):
    img = gradient_rgb(w, h)
    draw_bars(ImageDraw.Draw(img), (0, 0, w - 1, h * 2 // 3))
    return img


def line_picture(w, h, seed):
    """Content for pictures one pixel wide or high, where proportional layout breaks:
    a ramp, then the colour bars, then noise, along the long side."""
    rnd = random.Random(seed)
    n = max(w, h)
    px = []
    for i in range(n):
        if i < n // 3:
            v = i * 255 // max(n // 3, 1)
            px.append((v, 255 - v, (v * 3) % 256))
        elif i < 2 * n // 3:
            px.append(BARS[(i - n // 3) * 8 // max(n // 3, 1) % 8])
        else:
            px.append(tuple(rnd.randrange(256) for _ in range(3)))
    img = Image.new("RGB", (w, h))
    img.putdata(px)
    return img


def landscape(w, h, seed):
    """A gentle photo-like picture: sky, sun, hills, a lake, a sign with glyphs."""
    rnd = random.Random(seed)
    sky = Image.linear_gradient("L").resize((w, h), Image.Resampling.BILINEAR)
    top, bottom = (40, 90, 170), (250, 200, 150)
    img = Image.merge("RGB", [sky.point(lambda v, a=a, b=b: a + (b - a) * v // 255)
                              for a, b in zip(top, bottom)])
    d = ImageDraw.Draw(img)
    d.ellipse((w * 0.68, h * 0.12, w * 0.80, h * 0.28), fill=(255, 240, 190))
    for layer, (colour, base, amp) in enumerate((((70, 110, 80), 0.55, 0.10),
                                                 ((40, 90, 50), 0.66, 0.08),
                                                 ((25, 70, 35), 0.76, 0.05))):
        pts = [(0, h)]
        phase = rnd.random() * 6.28
        steps = 64
        for i in range(steps + 1):
            x = w * i / steps
            t = i / steps * (3 + layer) + phase
            y = h * (base - amp * (0.6 * _tri(t) + 0.4 * _tri(2.3 * t + 1)))
            pts.append((x, y))
        pts.append((w, h))
        d.polygon(pts, fill=colour)
    # a lake and its ripples
    d.ellipse((w * 0.15, h * 0.80, w * 0.60, h * 0.96), fill=(70, 120, 180))
    for i in range(12):
        y = h * (0.83 + 0.011 * i)
        x0 = w * (0.22 + 0.02 * rnd.random())
        d.line((x0, y, x0 + w * (0.12 + 0.15 * rnd.random()), y), fill=(150, 190, 230), width=max(h // 400, 1))
    # trees
    for i in range(18):
        x = w * (0.62 + 0.35 * rnd.random())
        y = h * (0.70 + 0.2 * rnd.random())
        s = h * (0.03 + 0.03 * rnd.random())
        d.polygon([(x, y - 2.5 * s), (x - s, y), (x + s, y)], fill=(20 + rnd.randrange(30), 60 + rnd.randrange(40), 30))
        d.rectangle((x - s * 0.12, y, x + s * 0.12, y + s * 0.5), fill=(80, 50, 30))
    img = img.filter(ImageFilter.GaussianBlur(max(w // 1500, 1)))
    # a sign: sharp, with fine print and colour bars
    d = ImageDraw.Draw(img)
    sx0, sy0, sx1, sy1 = int(w * 0.05), int(h * 0.08), int(w * 0.32), int(h * 0.30)
    d.rectangle((sx0 - 4, sy0 - 4, sx1 + 4, sy1 + 4), fill=(90, 60, 40))
    draw_text(d, rnd, (sx0, sy0, sx1, int(sy0 + (sy1 - sy0) * 0.7)), max(w // 700, 1), (10, 10, 10), (245, 245, 235))
    draw_bars(d, (sx0, int(sy0 + (sy1 - sy0) * 0.72), sx1, sy1))
    return img


def _tri(t):
    """A smooth-enough periodic bump without importing math: a folded parabola."""
    f = t % 2.0
    f = f if f < 1.0 else 2.0 - f
    return 4 * f * (1 - f)


def orientation_picture(w, h):
    """Asymmetric in every direction: distinct corner colours and an arrow pointing up."""
    img = Image.new("RGB", (w, h), (200, 200, 200))
    d = ImageDraw.Draw(img)
    cw, ch = w // 4, h // 4
    d.rectangle((0, 0, cw - 1, ch - 1), fill=(220, 20, 20))
    d.rectangle((w - cw, 0, w - 1, ch - 1), fill=(20, 160, 20))
    d.rectangle((0, h - ch, cw - 1, h - 1), fill=(20, 40, 220))
    d.rectangle((w - cw, h - ch, w - 1, h - 1), fill=(240, 220, 20))
    d.polygon([(w // 2, h // 8), (w // 2 - w // 8, h // 2), (w // 2 + w // 8, h // 2)], fill=(0, 0, 0))
    d.rectangle((w // 2 - w // 24, h // 2, w // 2 + w // 24 - 1, h * 7 // 8), fill=(0, 0, 0))
    d.rectangle((w // 2 + w // 24, h * 3 // 4, w // 2 + w // 6, h * 7 // 8), fill=(0, 0, 0))
    return img


# ---------------------------------------------------------------- tools

def run(args, **kw):
    r = subprocess.run(args, capture_output=True, **kw)
    if r.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(args), r.stderr.decode(errors="replace")))
    return r


def cjpeg(img, tmp, options):
    """Encode img with cjpeg from PPM/PGM; returns the JPEG bytes."""
    src = os.path.join(tmp, "in.pgm" if img.mode == "L" else "in.ppm")
    img.save(src)
    args = ["cjpeg"] + options
    if img.mode == "L":
        args.append("-grayscale")
    dst = os.path.join(tmp, "out.jpg")
    run(args + ["-outfile", dst, src])
    with open(dst, "rb") as f:
        return f.read()


def write_scans(tmp, name, text):
    path = os.path.join(tmp, name + ".scans")
    with open(path, "w") as f:
        f.write(text)
    return path


def djpeg_refs(path, dest_dir, stem, tmp):
    pnm = os.path.join(tmp, "ref.pnm")
    for n in SCALES:
        run(["djpeg", "-scale", "1/%d" % n, "-pnm", "-outfile", pnm, path])
        with Image.open(pnm) as ref:
            assert ref.mode in ("L", "RGB"), ref.mode
            ref.save(os.path.join(dest_dir, "%s.s%d.png" % (stem, n)), optimize=True)


def segments(data):
    """(marker, offset, length) of each marker segment up to the first SOS, then the
    scans' SOS markers; enough to check what cjpeg produced."""
    assert data[:2] == b"\xff\xd8", "no SOI"
    out = []
    i = 2
    while i + 4 <= len(data):
        assert data[i] == 0xFF, "expected a marker at %d" % i
        m = data[i + 1]
        if m == 0xD9:
            out.append((m, i, 0))
            break
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        out.append((m, i, length))
        i += 2 + length
        if m == 0xDA:
            while not (data[i] == 0xFF and data[i + 1] != 0 and not 0xD0 <= data[i + 1] <= 0xD7):
                i += 1
    return out


def describe(data):
    segs = segments(data)
    sofs = [m for m, _, _ in segs if 0xC0 <= m <= 0xCF and m not in (0xC4, 0xC8, 0xCC)]
    assert sofs == [0xC0], "expected one SOF0, found %s" % [hex(m) for m in sofs]
    off = [o for m, o, _ in segs if m == 0xC0][0]
    h, w, nc = struct.unpack(">HHB", data[off + 5:off + 10])
    samp = ",".join("%dx%d" % (data[off + 11 + 3 * c] >> 4, data[off + 11 + 3 * c] & 15) for c in range(nc))
    dri = [struct.unpack(">H", data[o + 4:o + 6])[0] for m, o, _ in segs if m == 0xDD]
    scans = sum(1 for m, _, _ in segs if m == 0xDA)
    return "SOF0 %dx%d %s scans=%d restart=%s" % (w, h, samp, scans, dri[-1] if dri else 0)


# ---------------------------------------------------------------- jpeg/

def jpeg_cases(tmp):
    scene_s = scene(131, 77, 1)
    gray_s = scene_s.convert("L")
    cases = []

    def add(stem, img, opts, scans=None):
        if scans is not None:
            opts = opts + ["-scans", write_scans(tmp, stem, scans)]
        cases.append((stem, img, opts))

    q = ["-quality", "85"]
    for name, samp in (("444", "1x1"), ("422", "2x1"), ("420", "2x2"), ("440", "1x2"),
                       ("411", "4x1"), ("311", "3x1"), ("421", "4x2"), ("mixed", "2x2,1x2,2x1")):
        add("fx-scene-" + name, scene_s, q + ["-sample", samp])
    add("fx-scene-gray", gray_s, q)

    add("fx-scene-420-rst1", scene_s, q + ["-sample", "2x2", "-restart", "1"])
    add("fx-scene-422-rst2", scene_s, q + ["-sample", "2x1", "-restart", "2"])
    add("fx-scene-420-rst3b", scene_s, q + ["-sample", "2x2", "-restart", "3B"])
    add("fx-scene-444-rst1b", scene_s, q + ["-sample", "1x1", "-restart", "1B"])
    add("fx-scene-gray-rst7b", gray_s, q + ["-restart", "7B"])

    for quality in (50, 90, 100):
        add("fx-scene-420-q%d" % quality, scene_s, ["-quality", str(quality), "-sample", "2x2"])
    add("fx-scene-420-opt", scene_s, q + ["-sample", "2x2", "-optimize"])

    add("fx-scene-420-multiscan", scene_s, q + ["-sample", "2x2"],
        "0: 0 63 0 0;\n1: 0 63 0 0;\n2: 0 63 0 0;\n")
    add("fx-scene-420-multiscan2", scene_s, q + ["-sample", "2x2"],
        "0: 0 63 0 0;\n1 2: 0 63 0 0;\n")
    add("fx-scene-422-multiscan-rst2b", scene_s, q + ["-sample", "2x1", "-restart", "2B"],
        "2: 0 63 0 0;\n0: 0 63 0 0;\n1: 0 63 0 0;\n")
    add("fx-scene-444-multiscan-opt", scene_s, q + ["-sample", "1x1", "-optimize"],
        "0: 0 63 0 0;\n1: 0 63 0 0;\n2: 0 63 0 0;\n")

    tiny = line_picture(1, 1, 2)
    add("fx-1x1-420", tiny, q + ["-sample", "2x2"])
    add("fx-1x1-444", tiny, q + ["-sample", "1x1"])
    add("fx-1x1-gray", tiny.convert("L"), q)
    s79 = scene(7, 9, 3)
    add("fx-7x9-420", s79, q + ["-sample", "2x2"])
    add("fx-7x9-411-rst1b", s79, q + ["-sample", "4x1", "-restart", "1B"])
    s1733 = scene(17, 33, 4)
    add("fx-17x33-420", s1733, q + ["-sample", "2x2"])
    add("fx-17x33-422-rst1b", s1733, q + ["-sample", "2x1", "-restart", "1B"])
    add("fx-1023x1-420", line_picture(1023, 1, 5), q + ["-sample", "2x2"])
    add("fx-1023x1-gray", line_picture(1023, 1, 6).convert("L"), q)
    add("fx-1x1023-420", line_picture(1, 1023, 7), q + ["-sample", "2x2"])

    add("fx-photo-300x200-420", scene(300, 200, 8), q + ["-sample", "2x2"])
    add("fx-photo-300x200-444-opt", scene(300, 200, 9, with_noise=False),
        ["-quality", "90", "-sample", "1x1", "-optimize"])
    add("fx-text-300x200-gray", text_page(300, 200, 10), ["-quality", "90"])
    add("fx-edges-300x200-444", edges(300, 200, 11), ["-quality", "90", "-sample", "1x1"])
    add("fx-bars-300x200-422", bars(300, 200), q + ["-sample", "2x1", "-restart", "4"])
    return cases


def make_jpeg_group(tmp):
    out = os.path.join(HERE, "jpeg")
    os.makedirs(out)
    for stem, img, opts in jpeg_cases(tmp):
        data = cjpeg(img, tmp, ["-baseline"] + opts)
        path = os.path.join(out, stem + ".jpg")
        with open(path, "wb") as f:
            f.write(data)
        djpeg_refs(path, out, stem, tmp)
        print("jpeg/%-32s %7d  %s" % (stem + ".jpg", len(data), describe(data)))


# ---------------------------------------------------------------- TIFF / EXIF / MPF

BYTE, ASCII, SHORT, LONG, RATIONAL, UNDEFINED = 1, 2, 3, 4, 5, 7


class Ref:
    """A LONG whose value is the offset (from the TIFF header) of a named IFD or blob,
    known only once the block is laid out."""

    def __init__(self, name):
        self.name = name


class Len:
    """A LONG whose value is the length of a named blob."""

    def __init__(self, name):
        self.name = name


def encode_value(bo, typ, values):
    if typ == ASCII:
        raw = values.encode("ascii") + b"\0"
        return len(raw), raw
    if typ in (BYTE, UNDEFINED):
        return len(values), bytes(values)
    if typ == SHORT:
        return len(values), b"".join(struct.pack(bo + "H", v) for v in values)
    if typ == LONG:
        return len(values), b"".join(struct.pack(bo + "I", v) for v in values)
    if typ == RATIONAL:
        return len(values), b"".join(struct.pack(bo + "II", n, d) for n, d in values)
    raise ValueError(typ)


def tiff_block(byte_order, ifds, blobs=()):
    """A TIFF structure: header, IFDs in the order given (each followed by its values
    that do not fit in 4 bytes), then blobs. ifds: [(name, [(tag, type, values)], next
    IFD name or None)]; a LONG value may be Ref(name) or Len(name). byte_order: "II"/"MM"."""
    bo = "<" if byte_order == "II" else ">"
    blobs = list(blobs)
    offsets, lengths = {}, {name: len(data) for name, data in blobs}

    def resolve(typ, values):
        if typ == LONG:
            return [offsets[v.name] if isinstance(v, Ref) else lengths[v.name] if isinstance(v, Len) else v
                    for v in values]
        return values

    def size_of(entries):
        n = 2 + 12 * len(entries) + 4
        for tag, typ, values in entries:
            _, raw = encode_value(bo, typ, [0] * len(values) if typ == LONG else values)
            if len(raw) > 4:
                n += len(raw) + (len(raw) & 1)
        return n

    pos = 8
    for name, entries, _ in ifds:
        offsets[name] = pos
        pos += size_of(entries)
    for name, data in blobs:
        offsets[name] = pos
        pos += len(data)

    out = bytearray(byte_order.encode() + struct.pack(bo + "HI", 42, 8))
    for name, entries, nxt in ifds:
        start = offsets[name]
        entries = sorted(entries, key=lambda e: e[0])
        extra_at = start + 2 + 12 * len(entries) + 4
        body, extra = bytearray(struct.pack(bo + "H", len(entries))), bytearray()
        for tag, typ, values in entries:
            count, raw = encode_value(bo, typ, resolve(typ, values))
            if len(raw) <= 4:
                field = raw + b"\0" * (4 - len(raw))
            else:
                field = struct.pack(bo + "I", extra_at + len(extra))
                extra += raw + b"\0" * (len(raw) & 1)
            body += struct.pack(bo + "HHI", tag, typ, count) + field
        body += struct.pack(bo + "I", offsets[nxt] if nxt else 0)
        assert len(out) == start
        out += body + extra
    for name, data in blobs:
        assert len(out) == offsets[name]
        out += data
    return bytes(out)


def exif_app1(byte_order, make, model, orientation, width, height, date, thumbnail=None):
    ifd0 = [(0x010F, ASCII, make), (0x0110, ASCII, model), (0x0112, SHORT, [orientation]),
            (0x011A, RATIONAL, [(72, 1)]), (0x011B, RATIONAL, [(72, 1)]), (0x0128, SHORT, [2]),
            (0x0131, ASCII, "make-fixtures.py"), (0x0132, ASCII, date), (0x0213, SHORT, [1]),
            (0x8769, LONG, [Ref("exif")])]
    exif = [(0x9000, UNDEFINED, b"0232"), (0x9003, ASCII, date), (0x9004, ASCII, date),
            (0x9101, UNDEFINED, b"\1\2\3\0"), (0xA000, UNDEFINED, b"0100"), (0xA001, SHORT, [1]),
            (0xA002, LONG, [width]), (0xA003, LONG, [height])]
    ifds = [("ifd0", ifd0, "ifd1" if thumbnail else None), ("exif", exif, None)]
    blobs = []
    if thumbnail:
        ifd1 = [(0x0103, SHORT, [6]), (0x011A, RATIONAL, [(72, 1)]), (0x011B, RATIONAL, [(72, 1)]),
                (0x0128, SHORT, [2]), (0x0201, LONG, [Ref("thumb")]), (0x0202, LONG, [Len("thumb")])]
        ifds.append(("ifd1", ifd1, None))
        blobs.append(("thumb", thumbnail))
    payload = b"Exif\0\0" + tiff_block(byte_order, ifds, blobs)
    assert len(payload) + 2 <= 0xFFFF, "APP1 too long"
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


MP_PRIMARY = 0x20030000      # representative image flag + baseline MP primary image
MP_LARGE_THUMB_VGA = 0x00010001  # large thumbnail, class 1 (VGA equivalent)


def mpf_app2(byte_order, entries):
    """CIPA DC-007 5.2: APP2 "MPF\\0", then a TIFF header, the MP Index IFD (MPFVersion,
    NumberOfImages, MPEntry), and the primary image's MP Attribute IFD (MPFVersion,
    MPIndividualNum). entries: [(attribute, size, offset)], offsets relative to the
    TIFF header; dependent image entry numbers are 0."""
    bo = "<" if byte_order == "II" else ">"
    mp_entry = b"".join(struct.pack(bo + "IIIHH", a, s, o, 0, 0) for a, s, o in entries)
    index = [(0xB000, UNDEFINED, b"0100"), (0xB001, LONG, [len(entries)]), (0xB002, UNDEFINED, mp_entry)]
    attribute = [(0xB000, UNDEFINED, b"0100"), (0xB101, LONG, [1])]
    payload = b"MPF\0" + tiff_block(byte_order, [("index", index, "attr"), ("attr", attribute, None)])
    return b"\xff\xe2" + struct.pack(">H", len(payload) + 2) + payload


def with_segments(jpeg, segs, keep_jfif=False):
    """SOI, the given segments, then the rest of jpeg (its JFIF APP0 dropped unless kept)."""
    assert jpeg[:2] == b"\xff\xd8"
    rest = jpeg[2:]
    if not keep_jfif and rest[:2] == b"\xff\xe0" and rest[4:9] == b"JFIF\0":
        rest = rest[2 + struct.unpack(">H", rest[2:4])[0]:]
    return b"\xff\xd8" + b"".join(segs) + rest


def thumb_jpeg(img, tmp):
    """An IFD1-style thumbnail: baseline 4:2:0, no APP0, as cameras store them."""
    return with_segments(cjpeg(img, tmp, ["-baseline", "-quality", "80", "-sample", "2x2"]), [])


def letterboxed(img, w, h):
    fit = img.copy()
    fit.thumbnail((w, h), Image.Resampling.LANCZOS)
    box = Image.new("RGB", (w, h), (0, 0, 0))
    box.paste(fit, ((w - fit.width) // 2, (h - fit.height) // 2))
    return box


def mpf_file(tmp, main, preview, exif_order, mpf_order):
    primary_body = cjpeg(main, tmp, ["-baseline", "-quality", "85", "-sample", "2x2"])
    second = with_segments(cjpeg(preview, tmp, ["-baseline", "-quality", "85", "-sample", "2x2"]), [])
    app1 = exif_app1(exif_order, "Pare", "Fixture MPF", 1, main.width, main.height, "2024:05:17 10:42:00",
                     thumb_jpeg(main.resize((160, 120), Image.Resampling.LANCZOS), tmp))
    # The APP2 length does not depend on the entry values, so lay out once with zeros.
    draft = mpf_app2(mpf_order, [(MP_PRIMARY, 0, 0), (MP_LARGE_THUMB_VGA, 0, 0)])
    primary_len = len(with_segments(primary_body, [app1, draft]))
    tiff_start = 2 + len(app1) + 4 + 4  # SOI, APP1, APP2 marker+length, "MPF\0"
    app2 = mpf_app2(mpf_order, [(MP_PRIMARY, primary_len, 0),
                                (MP_LARGE_THUMB_VGA, len(second), primary_len - tiff_start)])
    assert len(app2) == len(draft)
    primary = with_segments(primary_body, [app1, app2])
    assert len(primary) == primary_len
    return primary + second, second


def make_exif_group(tmp):
    out = os.path.join(HERE, "exif")
    os.makedirs(out)
    files = {}
    date = "2024:05:17 10:42:00"

    main = landscape(1024, 768, 20)
    data, second = mpf_file(tmp, main, main.resize((640, 480), Image.Resampling.LANCZOS), "II", "II")
    files["fx-mpf"] = data
    small = landscape(480, 360, 21)
    data_mm, second_mm = mpf_file(tmp, small, small.resize((320, 240), Image.Resampling.LANCZOS), "MM", "MM")
    files["fx-mpf-MM"] = data_mm

    wide = landscape(720, 480, 22)
    files["fx-letterbox"] = with_segments(
        cjpeg(wide, tmp, ["-baseline", "-quality", "85", "-sample", "2x2"]),
        [exif_app1("II", "Pare", "Fixture Letterbox", 1, 720, 480, date, thumb_jpeg(letterboxed(wide, 160, 120), tmp))])

    for stem, order, orientation, seed in (("fx-thumb-II", "II", 3, 23), ("fx-thumb-MM", "MM", 8, 24)):
        pic = landscape(480, 360, seed)
        files[stem] = with_segments(
            cjpeg(pic, tmp, ["-baseline", "-quality", "85", "-sample", "2x2"]),
            [exif_app1(order, "Pare", "Fixture " + order, orientation, 480, 360, date,
                       thumb_jpeg(pic.resize((160, 120), Image.Resampling.LANCZOS), tmp))],
            keep_jfif=(order == "MM"))

    # Stored pixels = inverse of the display transform, so every file displays upright.
    upright = orientation_picture(96, 64)
    inverse = {1: None, 2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
               4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
               6: Image.Transpose.ROTATE_90, 7: Image.Transpose.TRANSVERSE,
               8: Image.Transpose.ROTATE_270}
    for n in range(1, 9):
        stored = upright if inverse[n] is None else upright.transpose(inverse[n])
        order = "II" if n % 2 else "MM"
        files["fx-orientation-%d" % n] = with_segments(
            cjpeg(stored, tmp, ["-baseline", "-quality", "90", "-sample", "2x2"]),
            [exif_app1(order, "Pare", "Fixture Orientation", n, stored.width, stored.height, date)])

    for stem, data in files.items():
        rel = os.path.join("Fixtures", "exif", stem + ".jpg")
        with open(os.path.join(ROOT, rel), "wb") as f:
            f.write(data)
        js = run(["exiftool", "-j", "-n", "-G1", "--FileModifyDate", "--FileAccessDate",
                  "--FileInodeChangeDate", "--FilePermissions", rel], cwd=ROOT).stdout
        with open(os.path.join(out, stem + ".json"), "wb") as f:
            f.write(js)
        thumb = run(["exiftool", "-b", "-ThumbnailImage", rel], cwd=ROOT).stdout
        if thumb:
            with open(os.path.join(out, stem + ".thumb.jpg"), "wb") as f:
                f.write(thumb)
        djpeg_refs(os.path.join(ROOT, rel), out, stem, tmp)
        tags = json.loads(js)[0]
        print("exif/%-20s %7d  %s  %s orientation=%s thumb=%s mpf=%s" % (
            stem + ".jpg", len(data), describe(data), tags.get("File:ExifByteOrder"),
            tags.get("IFD0:Orientation"), len(thumb) or "-", tags.get("MPF0:NumberOfImages", "-")))

    # exiftool must find the second MPF image where the entries say it is (exiftool names
    # a large-thumbnail entry's image MPImage2:PreviewImage).
    for stem, expected in (("fx-mpf", second), ("fx-mpf-MM", second_mm)):
        extracted = run(["exiftool", "-b", "-MPImage2:PreviewImage", os.path.join(out, stem + ".jpg")]).stdout
        assert extracted == expected, stem + ": MPImage2 differs from the appended image"


# ---------------------------------------------------------------- sample.jpg

def make_sample(tmp):
    # Stored as a camera held on its side stores it: turned a quarter counter-clockwise,
    # with Orientation 6 saying to turn it back, so the upright view is the landscape.
    pic = landscape(2048, 1536, 30).transpose(Image.Transpose.ROTATE_90)
    body = cjpeg(pic, tmp, ["-baseline", "-quality", "85", "-sample", "2x2", "-optimize"])
    thumb = thumb_jpeg(pic.resize((120, 160), Image.Resampling.LANCZOS), tmp)
    data = with_segments(body, [exif_app1("II", "Pare", "Fixture", 6, 1536, 2048,
                                          "2024:05:17 10:42:00", thumb)])
    with open(os.path.join(HERE, "sample.jpg"), "wb") as f:
        f.write(data)
    print("sample.jpg %d  %s" % (len(data), describe(data)))


def main():
    for tool in ("cjpeg", "djpeg", "exiftool"):
        if shutil.which(tool) is None:
            sys.exit("%s not found (apt: libjpeg-turbo-progs libimage-exiftool-perl)" % tool)
    for group in ("jpeg", "exif"):
        shutil.rmtree(os.path.join(HERE, group), ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        make_jpeg_group(tmp)
        make_sample(tmp)
        make_exif_group(tmp)


if __name__ == "__main__":
    main()
