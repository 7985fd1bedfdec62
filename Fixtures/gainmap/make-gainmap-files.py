#!/usr/bin/env python3
"""Makes gain-map JPEGs (HDR photos) for Pare's tests with libultrahdr (PyPI `imagecodecs`).

    make-gainmap-files.py OUTDIR [CORPUS]     photos of the corpus, several sizes, gain-map
                                              scales and orientations, in both forms below
    make-gainmap-files.py --fixtures DIR      the two small synthetic files kept in Fixtures/gainmap

Each picture becomes an HDR one (linear light, highlights lifted to about 4x SDR white) and
goes through `imagecodecs.ultrahdr_encode`, which tone-maps it to the SDR primary, computes the
gain map and writes both in one JPEG: MPF image 1 (type "undefined") after the primary's EOI,
ISO 21496-1 metadata in APP2 of both images. That is the `-iso` file. The `-xmp` file is the
same two JPEG streams rewritten as Android 14's Ultra HDR v1 writes them: the ISO blocks
removed, the primary's APP1 XMP with `hdrgm:Version` and a GContainer directory, the gain
map's APP1 XMP with the `hdrgm` values (the ISO values converted), and a new MPF index.
Orientation tags are then set with exiftool (which moves the MPF offsets as it writes).

Needs: python3 with numpy, Pillow, imagecodecs; exiftool.
"""
import os
import struct
import subprocess
import sys

import imagecodecs
import numpy as np
from PIL import Image

ISO_ID = b"urn:iso:std:iso:ts:21496:-1\x00"
XMP_ID = b"http://ns.adobe.com/xap/1.0/\x00"


def hdr_from_srgb(rgb8):
    """sRGB 8-bit -> linear float16 RGBA, highlights lifted into HDR (up to 4x white)."""
    v = rgb8.astype(np.float32) / 255.0
    lin = np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)
    luma = (0.2126 * lin[..., 0] + 0.7152 * lin[..., 1] + 0.0722 * lin[..., 2])[..., None]
    lin = lin * (1.0 + 3.0 * np.clip((luma - 0.5) / 0.5, 0, 1) ** 2)
    alpha = np.ones(lin.shape[:2] + (1,), np.float32)
    return np.concatenate([lin, alpha], axis=2).astype(np.float16)


def segments(data, start):
    """(marker, offset, end) of each marker segment from SOI to SOS of the stream at start."""
    out = []
    i = start + 2
    while i + 4 <= len(data) and data[i] == 0xFF:
        marker = data[i + 1]
        if marker == 0xDA:
            break
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        out.append((marker, i, i + 2 + length))
        i += 2 + length
    return out


def split(data):
    """The primary and the gain map streams of a libultrahdr file (its MPF entry 2)."""
    mpf = data.find(b"MPF\x00")
    header = mpf + 4
    order = ">" if data[header:header + 2] == b"MM" else "<"
    ifd = header + struct.unpack(order + "I", data[header + 4:header + 8])[0]
    count = struct.unpack(order + "H", data[ifd:ifd + 2])[0]
    for k in range(count):
        e = ifd + 2 + 12 * k
        tag, _, n, value = struct.unpack(order + "HHII", data[e:e + 12])
        if tag == 0xB002:
            entries = header + value
            size, offset = struct.unpack(order + "II", data[entries + 16 + 4:entries + 16 + 12])
            start = header + offset
            return data[:start], data[start:start + size]
    raise SystemExit("no MP entry list")


def iso_values(gainmap):
    """The ISO 21496-1 values of the gain map stream (single or multi-channel)."""
    for marker, at, end in segments(gainmap, 0):
        if marker == 0xE2 and gainmap[at + 4:at + 4 + len(ISO_ID)] == ISO_ID:
            p = gainmap[at + 4 + len(ISO_ID):end]
            flags = p[4]
            channels = 3 if flags & 0x80 else 1
            i = 5
            def u32():
                nonlocal i
                i += 4
                return struct.unpack(">I", p[i - 4:i])[0]
            def s32():
                nonlocal i
                i += 4
                return struct.unpack(">i", p[i - 4:i])[0]
            if flags & 0x08:
                d = u32()
                base, alt = u32() / d, u32() / d
                ch = [[s32() / d, s32() / d, u32() / d, s32() / d, s32() / d] for _ in range(channels)]
            else:
                base = u32() / u32()
                alt = u32() / u32()
                ch = [[s32() / u32(), s32() / u32(), u32() / u32(), s32() / u32(), s32() / u32()]
                      for _ in range(channels)]
            return dict(base=base, alt=alt, ch=ch)
    raise SystemExit("gain map has no ISO 21496-1 block")


def without(stream, predicate):
    """The stream with the header segments for which predicate(marker, payload) is true removed."""
    out = bytearray(stream[:2])
    last = 2
    for marker, at, end in segments(stream, 0):
        out += stream[last:at]
        if not predicate(marker, stream[at + 4:end]):
            out += stream[at:end]
        last = end
    out += stream[last:]
    return bytes(out)


def app(marker, payload):
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def xmp_form(data):
    """A libultrahdr file rewritten with Ultra HDR v1's XMP in place of the ISO blocks."""
    primary, gainmap = split(data)
    is_iso = lambda m, p: m == 0xE2 and p.startswith(ISO_ID)
    prim = without(primary, lambda m, p: is_iso(m, p) or (m == 0xE2 and p.startswith(b"MPF\x00")))
    return assemble(prim, without(gainmap, is_iso), iso_values(gainmap))


def assemble(prim, gm, v):
    """Joins a primary JPEG and a gain-map JPEG (neither with XMP or MPF) with the values v
    (as iso_values returns them) as Android 14's Ultra HDR v1 writes them."""
    def seq(k):
        values = [c[k] for c in v["ch"]]
        if len(values) == 1:
            return None, "%.6f" % values[0]
        return "".join("<rdf:li>%.6f</rdf:li>" % x for x in values), None
    attrs, elems = [], []
    for k, name in enumerate(["GainMapMin", "GainMapMax", "Gamma", "OffsetSDR", "OffsetHDR"]):
        s, one = seq(k)
        if one is not None:
            attrs.append('hdrgm:%s="%s"' % (name, one))
        else:
            elems.append("<hdrgm:%s><rdf:Seq>%s</rdf:Seq></hdrgm:%s>" % (name, s, name))
    gm_xmp = ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
              '<rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0" '
              + " ".join(attrs) + ' hdrgm:HDRCapacityMin="%.6f" hdrgm:HDRCapacityMax="%.6f" hdrgm:BaseRenditionIsHDR="False">'
              % (v["base"], v["alt"]) + "".join(elems) + "</rdf:Description></rdf:RDF></x:xmpmeta>").encode()
    gm = gm[:2] + app(0xE1, XMP_ID + gm_xmp) + gm[2:]
    prim_xmp = ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
                '<rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" '
                'xmlns:Container="http://ns.google.com/photos/1.0/container/" '
                'xmlns:Item="http://ns.google.com/photos/1.0/container/item/" hdrgm:Version="1.0">'
                '<Container:Directory><rdf:Seq>'
                '<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>'
                '<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" '
                'Item:Length="%d"/></rdf:li></rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>'
                % len(gm)).encode()
    head = prim[:2] + app(0xE1, XMP_ID + prim_xmp)
    # The MPF index (CIPA DC-007 5.2): big-endian TIFF header, an IFD of three entries, the
    # two 16-byte MP entries; offsets count from the TIFF header.
    ifd = struct.pack(">H", 3)
    ifd += struct.pack(">HHI4s", 0xB000, 7, 4, b"0100")
    ifd += struct.pack(">HHII", 0xB001, 4, 1, 2)
    entries_at = 8 + len(ifd) + 12 + 4
    ifd += struct.pack(">HHII", 0xB002, 7, 32, entries_at)
    ifd += struct.pack(">I", 0)
    mpf_len = 2 + 2 + 4 + 8 + len(ifd) + 32
    total_primary = len(head) + mpf_len + len(prim) - 2
    mpf_header = len(head) + 4 + 4
    entries = struct.pack(">IIIHH", 0x20030000, total_primary, 0, 0, 0)
    entries += struct.pack(">IIIHH", 0, len(gm), total_primary - mpf_header, 0, 0)
    mpf = b"MPF\x00" + b"MM\x00\x2a" + struct.pack(">I", 8) + ifd + entries
    out = head + app(0xE2, mpf) + prim[2:]
    assert len(out) == total_primary
    return out + gm


def encode(rgb8, path, scale):
    data = imagecodecs.ultrahdr_encode(hdr_from_srgb(rgb8), level=90, scale=scale)
    with open(path, "wb") as f:
        f.write(data)
    return data


def orient(path, orientation):
    if orientation != 1:
        subprocess.run(["exiftool", "-q", "-n", "-overwrite_original", "-Orientation=%d" % orientation, path],
                       check=True)


def main():
    if sys.argv[1] == "--fixtures":
        out = sys.argv[2]
        y, x = np.mgrid[0:64, 0:96]
        rgb = np.stack([x * 255 // 95, y * 255 // 63, (x + y) * 255 // 158], axis=2).astype(np.uint8)
        data = encode(rgb, os.path.join(out, "synthetic-iso.jpg"), 2)
        with open(os.path.join(out, "synthetic-xmp.jpg"), "wb") as f:
            f.write(xmp_form(data))
        return
    out = sys.argv[1]
    corpus = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "../../../shared/corpus")
    os.makedirs(out, exist_ok=True)
    # (photo, long side or None to keep it, gain-map scale, orientation)
    plan = [("Apple_iPhone_5", None, 4, 1), ("Nikon_D70", None, 2, 6), ("HTC_One", None, 1, 3),
            ("Canon_EOS_D60", None, 4, 8), ("Kodak_DX4330", 4000, 4, 1), ("Casio_EX-S1", None, 1, 6),
            ("FujiFilm_MX-2900Zoom", None, 2, 1), ("Panasonic_DMC-LC70_Lumix", 2560, 4, 3)]
    for stem, long_side, scale, orientation in plan:
        image = Image.open(os.path.join(corpus, "exif/cameras", stem + ".jpg")).convert("RGB")
        if long_side:
            w, h = image.size
            k = long_side / max(w, h)
            image = image.resize((round(w * k), round(h * k)), Image.LANCZOS)
        w, h = image.size
        image = image.crop((0, 0, w - w % 2, h - h % 2))
        rgb = np.asarray(image)
        name = "%s-%dx%d-gm%d-o%d" % (stem, image.size[0], image.size[1], scale, orientation)
        iso_path = os.path.join(out, name + "-iso.jpg")
        data = encode(rgb, iso_path, scale)
        xmp_path = os.path.join(out, name + "-xmp.jpg")
        with open(xmp_path, "wb") as f:
            f.write(xmp_form(data))
        orient(iso_path, orientation)
        orient(xmp_path, orientation)
        print(iso_path)
        print(xmp_path)


if __name__ == "__main__":
    main()
