#!/usr/bin/env python3
"""Writes the hand-made regression inputs of Fixtures/regressions/ (the others are fuzzer
findings kept by Fuzz/keep.sh). Each is an input of one fuzz target that goes at a fixed
bug or a limit; see the README.md of each folder. Run from the package root:

    python3 Fixtures/regressions/make-regressions.py
"""
import struct
import zlib

OUT = "Fixtures/regressions"


def write(path, data):
    with open(f"{OUT}/{path}", "wb") as f:
        f.write(data)


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


# png: the metadata budgets. 400 empty tEXt chunks (the bytes-held total was once recomputed
# over all texts for each new chunk) and 6 zTXt chunks that each inflate to 1 MiB of zeros
# (a zTXt dropped for inflating past the budget once left the whole budget for the next).
ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
texts = b"".join(chunk(b"tEXt", b"k\0") for _ in range(400))
bomb = zlib.compress(b"\0" * (1 << 20), 9)
ztxts = b"".join(chunk(b"zTXt", b"Comment\0\0" + bomb) for _ in range(6))
idat = chunk(b"IDAT", zlib.compress(b"\0\x80"))
write("png/metadata-budget-400-texts-6-ztxt-bombs.png",
      b"\x89PNG\r\n\x1a\n" + ihdr + texts + ztxts + idat + chunk(b"IEND", b""))

# exif: an EXIF block whose IFD0 links back to itself and whose IFD1 thumbnail and EXIF
# sub-IFD point past the end, an MPF index whose images lie past the end, then stray bytes.
def ifd(entries, next_offset):
    out = struct.pack("<H", len(entries))
    for tag, typ, count, value in entries:
        out += struct.pack("<HHII", tag, typ, count, value)
    return out + struct.pack("<I", next_offset)

tiff = b"II*\0" + struct.pack("<I", 8)
tiff += ifd([(0x0112, 3, 1, 6), (0x8769, 4, 1, 0x7FFFFFF0), (0x0201, 4, 1, 0xFFFFFF00), (0x0202, 4, 1, 4096)], 8)
app1 = b"Exif\0\0" + tiff
mpf_tiff = b"II*\0" + struct.pack("<I", 8) + ifd([(0xB000, 7, 4, 0x30303130), (0xB001, 4, 1, 2),
                                                  (0xB002, 7, 32, 50)], 0)
mpf_tiff += struct.pack("<IIIHH", 0x20030000, 0xFFFFFFF0, 0, 0, 0) + struct.pack("<IIIHH", 0x00020002, 100, 0x7FFFFFFF, 0, 0)
app2 = b"MPF\0" + mpf_tiff
segments = b"".join(b"\xff" + m + struct.pack(">H", len(p) + 2) + p for m, p in ((b"\xe1", app1), (b"\xe2", app2)))
write("exif/ifd-loop-and-pointers-past-the-end.bin", b"\xff\xd8" + segments + b"\x00\xff" * 300 + b"\xff\xd9")

# icc: a v4 RGB display profile whose tag table holds a curv of 2^32-1 points, a para of an
# unknown function type, a tag inside the header, and colorants of the largest magnitude.
def icc_profile(tags):
    table = struct.pack(">I", len(tags))
    data = b""
    offset = 128 + 4 + 12 * len(tags)
    for sig, body, place in tags:
        if place is None:
            table += struct.pack(">4sII", sig, offset + len(data), len(body))
            data += body + b"\0" * (-len(body) % 4)
        else:
            table += struct.pack(">4sII", sig, place, len(body))
    size = 128 + len(table) + len(data)
    header = struct.pack(">I4sI4s4s4s", size, b"none", 0x04300000, b"mntr", b"RGB ", b"XYZ ")
    header += b"\0" * 12 + b"acsp" + b"\0" * (128 - 40)
    return header + table + data

xyz_max = b"XYZ \0\0\0\0" + struct.pack(">iii", 0x7FFFFFFF, -0x80000000, 0x7FFFFFFF)
write("icc/curv-2e32-points-para-type-9-tag-in-header.icc", icc_profile([
    (b"rTRC", b"curv\0\0\0\0" + struct.pack(">I", 0xFFFFFFFF) + b"\x01\x00", None),
    (b"gTRC", b"para\0\0\0\0" + struct.pack(">HH", 9, 0) + b"\0\1\0\0", None),
    (b"bTRC", b"curv\0\0\0\0\0\0\0\1\x02\x33", 16),
    (b"rXYZ", xyz_max, None), (b"gXYZ", xyz_max, None), (b"bXYZ", xyz_max, None),
]))

# pipeline: the progressive file that once stalled the JPEG decoder (193×31423, data cut off
# in the first DC scan), as an upload asking for a 400-pixel lanczos thumbnail with the
# embedded policy `never` (request byte 0x07), and a PNG of 1×65535 rows of one pixel
# (request 0x00: 8 pixels), so that the resampler's vertical pass folds 8192 rows into one.
with open(f"{OUT}/jpeg/slow-progressive-193x31423-truncated-dc.jpg", "rb") as f:
    write("pipeline/slow-progressive-193x31423-truncated-dc.size400-never.fuzz", b"\x07" + f.read())
tall = chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 65535, 8, 2, 0, 0, 0))
tall += chunk(b"IDAT", zlib.compress(b"\0\x10\x20\x30" * 65535, 9))
write("pipeline/png-1x65535-rgb.size8.fuzz", b"\x00\x89PNG\r\n\x1a\n" + tall + chunk(b"IEND", b""))

# encoder: a 128×1 rgb16 image (an odd 7-byte pixel pattern) at quality 1, 4:2:0 on an
# image one row high, optimized + progressive + a restart every MCU and an ICC profile,
# which must all decode to the baseline encode's pixels.
request = bytes([0x00, 0x7F, 0x00, 0x00, 0x00, 0x04 | 2 << 3, 0x01 | 0x02 | 0x04 | 0x20, 1])
write("encoder/rgb16-128x1-q1-420-progressive-optimized-restart1-icc.fuzz", request + bytes([0, 255, 17, 128, 3, 250, 77]))

# tiff: a classic TIFF whose IFD0 is its own next IFD (the page count must stop with a
# warning), an LZW strip that uses the code being defined (KwKwK) and then runs past its
# strip's size, and a 4096x4096 Deflate strip whose zlib stream would give 32 MiB: the
# strip's 16 MiB bounds it (a bomb against the ledger's 64 MiB in the fuzz target).
def tiff(entries, data, next_ifd=0):
    entries = sorted(entries)
    start = 8 + 2 + 12 * len(entries) + 4
    out = b"II*\0" + struct.pack("<I", 8) + struct.pack("<H", len(entries))
    for tag, typ, value in entries:
        out += struct.pack("<HHII", tag, typ, 1, value if value != "data" else start)
    return out + struct.pack("<I", next_ifd) + data


def gray_tags(width, height, compression, count):
    return [(256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, compression), (262, 3, 1),
            (273, 4, "data"), (278, 4, height), (279, 4, count)]


write("tiff/ifd-loop-pages.tif", tiff(gray_tags(2, 2, 1, 4), b"\x01\x02\x03\x04", next_ifd=8))
# LZW, 9-bit codes: Clear, 'a', 258 (= "aa", the code being defined), 259, 260, ... never EOI.
codes = [256, 97] + list(range(258, 300))
bits = "".join(format(c, "09b") for c in codes)
bits += "0" * (-len(bits) % 8)
lzw = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))
write("tiff/lzw-kwkwk-overrun.tif", tiff(gray_tags(16, 4, 5, len(lzw)), lzw))
bomb = zlib.compress(b"\0" * (32 << 20), 9)
write("tiff/deflate-bomb-4096.tif", tiff(gray_tags(4096, 4096, 8, len(bomb)), bomb))
