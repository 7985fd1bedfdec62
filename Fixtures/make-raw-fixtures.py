#!/usr/bin/env python3
"""Make the RAW preview test files and what exiftool extracts from them.

    python3 Fixtures/make-raw-fixtures.py EXIFTOOL_IMAGES

EXIFTOOL_IMAGES is the t/images folder of an ExifTool source checkout
(https://github.com/exiftool/exiftool), whose tiny CanonRaw.cr2, DNG.dng, Nikon.nef and
Panasonic.rw2 keep each format's structure with placeholder previews. Needs exiftool (apt:
libimage-exiftool-perl), Pillow (pip: pillow) and the shared corpus's
png/extra/ipng-kodim23.png as the picture.

Into Fixtures/raw/ it writes:

- `x-*.{cr2,dng,nef,rw2}`: ExifTool's test files with real JPEG previews written by
  `exiftool -m -o OUT "-PreviewImage<=..." "-JpgFromRaw<=..." "-ThumbnailImage<=..."
  "-OtherImage<=..."` (ExifTool writes what each format has room for);
- `s-*.{orf,pef,arw,srw}`: skeleton files written by this script (a header, IFD0 with Make,
  Model and Orientation, and where each maker keeps its preview a start/length pair of
  zeros: Olympus CameraSettings in an "OLYMPUS\\0II" maker note for ORF, Pentax tags 3/4 in
  an "AOC\\0MM" maker note for PEF, IFD0's JPEGInterchangeFormat for ARW, a SubIFD's for
  SRW), then filled by the same exiftool command;
- `expected.txt`: per file, `name orientation N` (exiftool -n -Orientation, 0 when
  absent), then `name TAG length width height fnv1a64` for each of PreviewImage,
  JpgFromRaw, OtherImage and ThumbnailImage that `exiftool -b -TAG` extracts (fnv1a64: the
  64-bit FNV-1a hash, hex, of the extracted bytes).
"""
import io
import os
import struct
import subprocess
import sys
import tempfile

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
PICTURE = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "corpus", "png", "extra", "ipng-kodim23.png"))
TAGS = ["PreviewImage", "JpgFromRaw", "OtherImage", "ThumbnailImage"]


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


class IFDWriter:
    """A classic TIFF IFD at a known offset, values that do not fit in 4 bytes after it."""
    SIZES = {2: 1, 3: 2, 4: 4, 7: 1, 13: 4}
    FORMATS = {3: "H", 4: "I", 13: "I"}

    def __init__(self, order):
        self.order = order

    def ifd(self, at, entries, next_ifd=0):
        o = self.order
        table = bytearray(struct.pack(o + "H", len(entries)))
        data = bytearray()
        data_start = at + 2 + 12 * len(entries) + 4
        for tag, kind, value in sorted(entries):
            if isinstance(value, bytes):
                raw, count = value, len(value) // self.SIZES[kind]
            else:
                values = value if isinstance(value, list) else [value]
                raw = b"".join(struct.pack(o + self.FORMATS[kind], v) for v in values)
                count = len(values)
            if len(raw) <= 4:
                field = raw + bytes(4 - len(raw))
            else:
                if len(data) % 2:
                    data.append(0)
                field = struct.pack(o + "I", data_start + len(data))
                data += raw
            table += struct.pack(o + "HHI", tag, kind, count) + field
        table += struct.pack(o + "I", next_ifd)
        return bytes(table + data)

    def size(self, entries):
        return len(self.ifd(0, entries))


def text(value):
    return value.encode() + b"\0"


def with_exif(header, order, ifd0_entries, maker_note):
    """header + IFD0 at 8 (with an ExifIFD pointer) + ExifIFD holding `maker_note(exif_at)`."""
    w = IFDWriter(order)
    entries = ifd0_entries + [(0x8769, 4, 0)]
    exif_at = 8 + w.size(entries)
    exif_at += exif_at % 2
    out = bytearray(header + struct.pack(order + "I", 8))
    out += w.ifd(8, ifd0_entries + [(0x8769, 4, exif_at)])
    out += bytes(exif_at - len(out))
    out += w.ifd(exif_at, [(0x927C, 7, maker_note(exif_at + 2 + 12 + 4))])
    return bytes(out)


def skeleton_orf():
    def maker_note(at):
        w = IFDWriter("<")
        settings_at = 12 + w.size([(0x2020, 13, 0)])
        main = w.ifd(12, [(0x2020, 13, settings_at)])
        settings = w.ifd(settings_at, [(0x100, 4, 1), (0x101, 4, 0), (0x102, 4, 0)])
        return b"OLYMPUS\0II\x03\0" + main + settings
    return with_exif(b"IIRO", "<", [(0x10F, 2, text("OLYMPUS IMAGING CORP.")), (0x110, 2, text("E-M5")),
                                    (0x112, 3, 6)], maker_note)


def skeleton_pef():
    def maker_note(at):
        # "AOC\0MM", then an IFD whose offsets count from the file's TIFF header.
        return b"AOC\0MM" + IFDWriter(">").ifd(at + 6, [(0x3, 4, 0), (0x4, 4, 0)])
    return with_exif(b"MM\0\x2a", ">", [(0x10F, 2, text("PENTAX Corporation")), (0x110, 2, text("PENTAX K10D")),
                                        (0x112, 3, 8)], maker_note)


def skeleton_arw():
    w = IFDWriter("<")
    return b"II\x2a\0" + struct.pack("<I", 8) + w.ifd(8, [(0x10F, 2, text("SONY")), (0x110, 2, text("DSLR-A700")),
                                                          (0x112, 3, 1), (0x201, 4, 0), (0x202, 4, 0)])


def skeleton_srw():
    w = IFDWriter("<")
    entries = [(0x10F, 2, text("SAMSUNG")), (0x110, 2, text("NX100")), (0x112, 3, 3)]
    sub_at = 8 + w.size(entries + [(0x14A, 4, 0)])
    sub_at += sub_at % 2
    out = bytearray(b"II\x2a\0" + struct.pack("<I", 8))
    out += w.ifd(8, entries + [(0x14A, 4, sub_at)])
    out += bytes(sub_at - len(out))
    out += w.ifd(sub_at, [(0xFE, 4, 1), (0x103, 3, 6), (0x201, 4, 0), (0x202, 4, 0)])
    return bytes(out)


def jpegs(tmp):
    picture = Image.open(PICTURE).convert("RGB")
    paths = {}
    for name, size, quality in [("thumb", (80, 60), 70), ("preview", (192, 128), 75), ("big", (360, 240), 80),
                                ("other", (120, 80), 75)]:
        path = os.path.join(tmp, name + ".jpg")
        picture.resize(size, Image.LANCZOS).save(path, quality=quality)
        paths[name] = path
    return paths


def fill(source, target, images):
    if os.path.exists(target):
        os.remove(target)
    subprocess.run(["exiftool", "-m", "-q", "-o", target, "-PreviewImage<=" + images["preview"],
                    "-JpgFromRaw<=" + images["big"], "-ThumbnailImage<=" + images["thumb"],
                    "-OtherImage<=" + images["other"], source], check=True)


def describe(path):
    name = os.path.basename(path)
    orientation = subprocess.run(["exiftool", "-n", "-s3", "-Orientation", path], capture_output=True,
                                 text=True).stdout.split("\n")[0].strip() or "0"
    lines = ["%s orientation %s" % (name, orientation)]
    for tag in TAGS:
        data = subprocess.run(["exiftool", "-b", "-" + tag, path], capture_output=True).stdout
        if data:
            width, height = Image.open(io.BytesIO(data)).size
            lines.append("%s %s %d %d %d %s" % (name, tag, len(data), width, height, fnv1a64(data)))
    return lines


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    originals = sys.argv[1]
    out = os.path.join(HERE, "raw")
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        images = jpegs(tmp)
        made = []
        for original in ["CanonRaw.cr2", "DNG.dng", "Nikon.nef", "Panasonic.rw2"]:
            target = os.path.join(out, "x-" + original)
            fill(os.path.join(originals, original), target, images)
            made.append(target)
        for name, skeleton in [("s-olympus.orf", skeleton_orf), ("s-pentax.pef", skeleton_pef),
                               ("s-sony.arw", skeleton_arw), ("s-samsung.srw", skeleton_srw)]:
            source = os.path.join(tmp, name)
            with open(source, "wb") as f:
                f.write(skeleton())
            target = os.path.join(out, name)
            fill(source, target, images)
            made.append(target)
    lines = []
    for path in made:
        lines += describe(path)
    with open(os.path.join(out, "expected.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%d files in %s" % (len(made), out))


if __name__ == "__main__":
    main()
