#!/usr/bin/env python3
"""Write the BigTIFF fixtures (Fixtures/bigtiff/) from nothing.

    python3 Fixtures/make-bigtiff-fixtures.py

Needs: exiftool (apt: libimage-exiftool-perl). Rewrites bigtiff/ only.

BigTIFF (TIFF version 43) is TIFF with 64-bit offsets: the header is the byte order, 43,
the offset size 8, two zero bytes and IFD0's 8-byte offset; an IFD is an 8-byte entry
count, 20-byte entries (tag, type, an 8-byte value count, an 8-byte value field that holds
the value when it fits in 8 bytes, else its offset) and an 8-byte next-IFD offset; the
types LONG8 (16), SLONG8 (17) and IFD8 (18) hold 64-bit integers and offsets.

One small RGB picture in each byte order, with the kinds of field a reader must get
right: values inline in the 8-byte field (one and three SHORTs, a RATIONAL, a LONG8) and
out of line (ASCII longer than 8 bytes), an Exif IFD reached through an IFD8 pointer, and
an IFD1 (a half-size copy) reached through IFD0's 8-byte next-IFD field:

  fx-bigtiff-II.tif  little-endian, Orientation 8, 48x32 (IFD1 24x16)
  fx-bigtiff-MM.tif  big-endian, Orientation 6, 40x24 (IFD1 20x12)

Each has `exiftool -j -n -G1` JSON beside it (<stem>.json, SourceFile
"Fixtures/bigtiff/<file>"), run from the repository root, as for exif/. ExifTool names
the Exif IFD of a BigTIFF file "ExifOffset" (not "ExifIFD") and gives no ExifByteOrder.
"""
import json
import os
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "bigtiff")

SHORT, LONG, RATIONAL, ASCII, LONG8, IFD8 = 3, 4, 5, 2, 16, 18
HEADER_SIZE = 16
ENTRY_SIZE = 20


def encode(bo, typ, values):
    """The count and the bytes of a value."""
    if typ == ASCII:
        raw = values.encode("ascii") + b"\0"
        return len(raw), raw
    fmt = {SHORT: "H", LONG: "I", LONG8: "Q", IFD8: "Q"}.get(typ)
    if fmt:
        return len(values), b"".join(struct.pack(bo + fmt, v) for v in values)
    if typ == RATIONAL:
        return len(values), b"".join(struct.pack(bo + "II", n, d) for n, d in values)
    raise ValueError(typ)


def picture(width, height, seed):
    """A gradient with a bright corner mark, so that turns are visible."""
    rows = bytearray()
    for y in range(height):
        for x in range(width):
            mark = x < width // 4 and y < height // 4
            rows += bytes((255, 255, 255) if mark else ((x * 255) // max(1, width - 1),
                                                        (y * 255) // max(1, height - 1), seed))
    return bytes(rows)


def bigtiff(byte_order, orientation, width, height):
    """Header, IFD0, ExifIFD, IFD1, then the two strips; every value that does not fit in
    an entry's 8-byte field follows its IFD."""
    bo = "<" if byte_order == "II" else ">"
    main, reduced = picture(width, height, 96), picture(width // 2, height // 2, 160)

    def ifd0(exif_at, ifd1_at, strip_at):
        return [
            (0x0100, SHORT, [width]),
            (0x0101, LONG8, [height]),
            (0x0102, SHORT, [8, 8, 8]),
            (0x0103, SHORT, [1]),
            (0x0106, SHORT, [2]),
            (0x010F, ASCII, "Pare"),
            (0x0110, ASCII, "BigTIFF fixture " + byte_order),
            (0x0111, LONG8, [strip_at]),
            (0x0112, SHORT, [orientation]),
            (0x0115, SHORT, [3]),
            (0x0116, LONG, [height]),
            (0x0117, LONG8, [len(main)]),
            (0x011A, RATIONAL, [(72, 1)]),
            (0x011B, RATIONAL, [(72, 1)]),
            (0x0128, SHORT, [2]),
            (0x0131, ASCII, "make-bigtiff-fixtures.py"),
            (0x0132, ASCII, "2024:05:17 10:42:00"),
            (0x8769, IFD8, [exif_at]),
        ], ifd1_at

    def exif():
        return [
            (0x9003, ASCII, "2024:05:17 10:42:00"),
            (0xA002, LONG, [width]),
            (0xA003, LONG, [height]),
        ], 0

    def ifd1(strip_at):
        return [
            (0x00FE, LONG, [1]),
            (0x0100, SHORT, [width // 2]),
            (0x0101, SHORT, [height // 2]),
            (0x0102, SHORT, [8, 8, 8]),
            (0x0103, SHORT, [1]),
            (0x0106, SHORT, [2]),
            (0x0111, LONG8, [strip_at]),
            (0x0115, SHORT, [3]),
            (0x0116, LONG, [height // 2]),
            (0x0117, LONG8, [len(reduced)]),
        ], 0

    def size(entries):
        n = 8 + ENTRY_SIZE * len(entries) + 8
        for _, typ, values in entries:
            _, raw = encode(bo, typ, values)
            if len(raw) > 8:
                n += len(raw) + (len(raw) & 1)
        return n

    # Lay out with placeholder offsets (sizes do not depend on them), then for real.
    a = HEADER_SIZE
    b = a + size(ifd0(0, 0, 0)[0])
    c = b + size(exif()[0])
    d = c + size(ifd1(0)[0])
    e = d + len(main)
    ifds = [(a, ifd0(b, c, d)), (b, exif()), (c, ifd1(e))]

    out = bytearray(byte_order.encode() + struct.pack(bo + "HHHQ", 43, 8, 0, a))
    for start, (entries, nxt) in ifds:
        assert len(out) == start
        entries = sorted(entries, key=lambda entry: entry[0])
        extra_at = start + 8 + ENTRY_SIZE * len(entries) + 8
        body, extra = bytearray(struct.pack(bo + "Q", len(entries))), bytearray()
        for tag, typ, values in entries:
            count, raw = encode(bo, typ, values)
            if len(raw) <= 8:
                field = raw + b"\0" * (8 - len(raw))
            else:
                field = struct.pack(bo + "Q", extra_at + len(extra))
                extra += raw + b"\0" * (len(raw) & 1)
            body += struct.pack(bo + "HHQ", tag, typ, count) + field
        body += struct.pack(bo + "Q", nxt)
        out += body + extra
    assert len(out) == d
    out += main + reduced
    return bytes(out)


def main():
    if shutil.which("exiftool") is None:
        sys.exit("exiftool not found (apt: libimage-exiftool-perl)")
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    for stem, order, orientation, width, height in (("fx-bigtiff-II", "II", 8, 48, 32),
                                                     ("fx-bigtiff-MM", "MM", 6, 40, 24)):
        data = bigtiff(order, orientation, width, height)
        rel = os.path.join("Fixtures", "bigtiff", stem + ".tif")
        with open(os.path.join(ROOT, rel), "wb") as f:
            f.write(data)
        js = subprocess.run(["exiftool", "-j", "-n", "-G1", "--FileModifyDate", "--FileAccessDate",
                             "--FileInodeChangeDate", "--FilePermissions", rel],
                            cwd=ROOT, check=True, capture_output=True).stdout
        with open(os.path.join(OUT, stem + ".json"), "wb") as f:
            f.write(js)
        tags = json.loads(js)[0]
        assert tags["File:FileType"] == "BTF", tags
        assert tags["IFD0:Orientation"] == orientation and tags["IFD0:ImageWidth"] == width, tags
        print("bigtiff/%s.tif %d bytes: %s, Orientation %s, %sx%s" % (
            stem, len(data), tags.get("File:ExifByteOrder"), tags["IFD0:Orientation"],
            tags["IFD0:ImageWidth"], tags["IFD0:ImageHeight"]))


if __name__ == "__main__":
    main()
