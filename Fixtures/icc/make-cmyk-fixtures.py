#!/usr/bin/env python3
"""Makes the LUT-profile test images in OUT_DIR (nothing here is committed;
Tests/cli/lut-compare.sh runs this script, then the comparison):

- CMYK JPEGs: corpus photos converted from sRGB to CMYK by LittleCMS (Pillow's ImageCms,
  relative colorimetric) through each CMYK profile Debian ships in libgs-common
  (ghostscript's default_cmyk.icc, a v2 lut16 with a Lab PCS, and ps_cmyk.icc, a v4 lut16
  with an XYZ PCS), saved at quality 90 with the profile embedded (Pillow writes Adobe's
  inverted CMYK), and the same files with no profile, for --cmyk-profile.
- Gray and RGB JPEGs with LUT profiles this script writes by hand, so that every LUT type
  and PCS encoding is read by LittleCMS too: lutAToBType RGB with every element (A curves,
  CLUT, M curves, matrix, B curves) and a Lab PCS; lutAToBType gray with an XYZ PCS;
  lut16Type RGB with the v2 Lab encoding; lut8Type gray with a Lab PCS.

    Fixtures/icc/make-cmyk-fixtures.py OUT_DIR [--big]

Writes OUT_DIR/list.tsv: file, profile, kind (cmyk, cmyk-untagged, rgb-lut, gray-lut).
With --big it makes only OUT_DIR/big-tagged.jpg and OUT_DIR/big-untagged.jpg: a 24 MP
(6000 x 4000) CMYK photo through default_cmyk.icc, quality 90, with and without its profile.
"""
import io, math, os, struct, sys
from PIL import Image, ImageCms

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/corpus")
GHOSTSCRIPT = "/usr/share/color/icc/ghostscript"
PHOTOS = ["exif/orientation/Landscape_1.jpg", "exif/cameras/Nikon_D70.jpg", "exif/cameras/Canon_40D.jpg",
          "exif/cameras/Pentax_K10D.jpg", "exif/cameras/Samsung_SM-J327T1.jpg"]
CMYK_PROFILES = ["default_cmyk.icc", "ps_cmyk.icc"]
SRGB = ImageCms.createProfile("sRGB")
D50 = (0.9642, 1.0, 0.8249)


def be16(v): return struct.pack(">H", v)
def be32(v): return struct.pack(">I", v)
def s15(v): return struct.pack(">i", int(round(v * 65536)))
def pad4(b): return b + b"\0" * (-len(b) % 4)


def profile(space, pcs, version, tags):
    """An ICC profile (ICC.1 7.2 header, 7.3 tag table), tags padded to four bytes."""
    table_end = 128 + 4 + 12 * len(tags)
    data, entries = b"", []
    for signature, body in tags:
        entries.append((signature, table_end + len(data), len(body)))
        data += pad4(body)
    size = table_end + len(data)
    header = (be32(size) + b"lcms" + bytes([version, 0x10 if version == 2 else 0x30, 0, 0]) + b"mntr" + space + pcs
              + b"\0" * 12 + b"acsp" + b"\0" * 24 + be32(0) + s15(D50[0]) + s15(D50[1]) + s15(D50[2]) + b"test")
    header += b"\0" * (128 - len(header))
    table = be32(len(entries)) + b"".join(s + be32(o) + be32(n) for s, o, n in entries)
    return header + table + data


def description(text, version):
    if version == 2:
        ascii_text = text.encode() + b"\0"
        return b"desc" + b"\0" * 4 + be32(len(ascii_text)) + ascii_text + b"\0" * (12 + 67)
    units = text.encode("utf-16-be")
    return b"mluc" + b"\0" * 4 + be32(1) + be32(12) + b"enUS" + be32(len(units)) + be32(28) + units


def xyz_tag(x, y, z): return b"XYZ " + b"\0" * 4 + s15(x) + s15(y) + s15(z)
def para(gamma): return b"para" + b"\0" * 4 + be16(0) + b"\0\0" + s15(gamma)


def lab_of_linear_rgb(r, g, b):
    """sRGB's primaries adapted to D50 (as an sRGB profile's colorants), linear RGB to Lab."""
    x = 0.4360747 * r + 0.3850649 * g + 0.1430804 * b
    y = 0.2225045 * r + 0.7168786 * g + 0.0606169 * b
    z = 0.0139322 * r + 0.0971045 * g + 0.7141733 * b
    def f(t): return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29
    fx, fy, fz = f(x / D50[0]), f(y / D50[1]), f(z / D50[2])
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def mab_rgb():
    """lutAToBType (ICC.1 10.12), RGB to Lab, every element: A curves gamma 2.2, a 9-point
    CLUT of the Lab of linear sRGB-like primaries (16-bit), M curves gamma 1.1, a matrix
    near the identity with offsets, B curves gamma 1/1.1."""
    grid = 9
    clut = b""
    for i in range(grid):
        for j in range(grid):
            for k in range(grid):
                L, a, b = lab_of_linear_rgb(i / (grid - 1), j / (grid - 1), k / (grid - 1))
                for v in (L / 100, (a + 128) / 255, (b + 128) / 255):
                    clut += be16(max(0, min(65535, round(v * 65535))))
    clut_element = bytes([grid] * 3 + [0] * 13) + bytes([2, 0, 0, 0]) + clut
    matrix = b"".join(s15(v) for v in (0.97, 0.01, 0.0, 0.0, 0.98, 0.01, 0.0, 0.01, 0.97, 0.01, 0.005, 0.01))
    b_curves = pad4(para(1 / 1.1)) * 3
    m_curves = pad4(para(1.1)) * 3
    a_curves = pad4(para(2.2)) * 3
    offset_b = 32
    offset_matrix = offset_b + len(b_curves)
    offset_m = offset_matrix + len(matrix)
    offset_clut = offset_m + len(m_curves)
    offset_a = offset_clut + len(pad4(clut_element))
    tag = (b"mAB " + b"\0" * 4 + bytes([3, 3, 0, 0]) + be32(offset_b) + be32(offset_matrix) + be32(offset_m)
           + be32(offset_clut) + be32(offset_a) + b_curves + matrix + m_curves + pad4(clut_element) + a_curves)
    return profile(b"RGB ", b"Lab ", 4, [(b"desc", description("Pare test mAB RGB", 4)),
                                         (b"wtpt", xyz_tag(*D50)), (b"A2B0", tag)])


def mab_gray():
    """lutAToBType gray to XYZ: A curve gamma 1.8, a 17-point CLUT of D50 times Y (u1Fixed15
    in 16 bits, ICC.1 6.3.4.3), B curves identity."""
    grid = 17
    clut = b""
    for i in range(grid):
        y = (i / (grid - 1)) ** 1.2
        for w in D50:
            clut += be16(round(w * y * 32768))
    clut_element = bytes([grid] + [0] * 15) + bytes([2, 0, 0, 0]) + clut
    b_curves = pad4(para(1.0)) * 3
    a_curves = pad4(para(1.8))
    offset_clut = 32 + len(b_curves)
    offset_a = offset_clut + len(pad4(clut_element))
    tag = (b"mAB " + b"\0" * 4 + bytes([1, 3, 0, 0]) + be32(32) + be32(0) + be32(0) + be32(offset_clut)
           + be32(offset_a) + b_curves + pad4(clut_element) + a_curves)
    return profile(b"GRAY", b"XYZ ", 4, [(b"desc", description("Pare test mAB gray", 4)),
                                         (b"wtpt", xyz_tag(*D50)), (b"A2B0", tag)])


def lut16_rgb():
    """lut16Type (ICC.1 10.8) RGB to Lab in the v2 encoding (L* 0…100 as 0…0xFF00, a*, b*
    as (v + 128)·256): 1024-entry gamma 2.2 input tables, a 9-point CLUT, two-entry identity
    output tables."""
    grid, entries = 9, 1024
    head = b"mft2" + b"\0" * 4 + bytes([3, 3, grid, 0])
    head += b"".join(s15(v) for v in (1, 0, 0, 0, 1, 0, 0, 0, 1)) + be16(entries) + be16(2)
    tables = b"".join(be16(round(65535 * (i / (entries - 1)) ** 2.2)) for i in range(entries)) * 3
    clut = b""
    for i in range(grid):
        for j in range(grid):
            for k in range(grid):
                L, a, b = lab_of_linear_rgb(i / (grid - 1), j / (grid - 1), k / (grid - 1))
                clut += be16(round(L / 100 * 0xFF00)) + be16(round((a + 128) * 256)) + be16(round((b + 128) * 256))
    out = (be16(0) + be16(65535)) * 3
    return profile(b"RGB ", b"Lab ", 2, [(b"desc", description("Pare test lut16 RGB", 2)),
                                         (b"wtpt", xyz_tag(*D50)), (b"A2B0", head + tables + clut + out)])


def lut8_gray():
    """lut8Type (ICC.1 10.9) gray to Lab: a gamma 1.5 input table, a 17-point CLUT of L*
    (a* = b* = 0, stored 128), identity output tables."""
    grid = 17
    head = b"mft1" + b"\0" * 4 + bytes([1, 3, grid, 0]) + b"".join(s15(v) for v in (1, 0, 0, 0, 1, 0, 0, 0, 1))
    table = bytes(round(255 * (i / 255) ** 1.5) for i in range(256))
    clut = b"".join(bytes([round(255 * (i / (grid - 1)) ** 0.8), 128, 128]) for i in range(grid))
    out = bytes(range(256)) * 3
    return profile(b"GRAY", b"Lab ", 2, [(b"desc", description("Pare test lut8 gray", 2)),
                                         (b"wtpt", xyz_tag(*D50)), (b"A2B0", head + table + clut + out)])


def corpus_photo(name):
    with Image.open(os.path.join(CORPUS, name)) as image:
        return image.convert("RGB")


def to_cmyk(rgb, profile_path):
    """LittleCMS's transform run directly: profileToProfile would also serialise the CMYK
    profile into the result's info, which LittleCMS cannot do for ghostscript's profiles."""
    transform = ImageCms.buildTransform(SRGB, ImageCms.getOpenProfile(profile_path), "RGB", "CMYK",
                                        renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
    out = Image.new("CMYK", rgb.size)
    transform.transform.apply(rgb.im.id, out.im.id)
    return out


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    if not os.path.isdir(CORPUS):
        sys.exit(f"make-cmyk-fixtures: {CORPUS} is missing")
    for name in CMYK_PROFILES:
        if not os.path.exists(os.path.join(GHOSTSCRIPT, name)):
            sys.exit(f"make-cmyk-fixtures: {GHOSTSCRIPT}/{name} is missing (apt-get install libgs-common)")
    if "--big" in sys.argv:
        path = os.path.join(GHOSTSCRIPT, "default_cmyk.icc")
        big = to_cmyk(corpus_photo(PHOTOS[1]).resize((6000, 4000), Image.LANCZOS), path)
        big.save(os.path.join(out, "big-tagged.jpg"), quality=90, icc_profile=open(path, "rb").read())
        big.save(os.path.join(out, "big-untagged.jpg"), quality=90)
        print(out)
        return
    rows = []
    for name in CMYK_PROFILES:
        path = os.path.join(GHOSTSCRIPT, name)
        data = open(path, "rb").read()
        for photo in PHOTOS:
            stem = os.path.splitext(os.path.basename(photo))[0] + "-" + os.path.splitext(name)[0]
            cmyk = to_cmyk(corpus_photo(photo), path)
            cmyk.save(os.path.join(out, f"cmyk-{stem}.jpg"), quality=90, icc_profile=data)
            rows.append((f"cmyk-{stem}.jpg", path, "cmyk"))
            if photo == PHOTOS[0]:
                cmyk.save(os.path.join(out, f"untagged-{stem}.jpg"), quality=90)
                rows.append((f"untagged-{stem}.jpg", path, "cmyk-untagged"))
    for maker, kind in [(mab_rgb, "rgb-lut"), (lut16_rgb, "rgb-lut"), (mab_gray, "gray-lut"), (lut8_gray, "gray-lut")]:
        path = os.path.join(out, maker.__name__ + ".icc")
        data = maker()
        open(path, "wb").write(data)
        ImageCms.getOpenProfile(path)  # LittleCMS must read it
        for photo in PHOTOS[:2]:
            stem = os.path.splitext(os.path.basename(photo))[0] + "-" + maker.__name__
            image = corpus_photo(photo)
            if kind == "gray-lut":
                image = image.convert("L")
            image.save(os.path.join(out, f"{stem}.jpg"), quality=92, icc_profile=data)
            rows.append((f"{stem}.jpg", path, kind))
    with open(os.path.join(out, "list.tsv"), "w") as listing:
        for row in rows:
            listing.write("\t".join(row) + "\n")
    print(out)


main()
