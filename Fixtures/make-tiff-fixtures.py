#!/usr/bin/env python3
"""Write the TIFF decoder fixtures (Fixtures/tiff/) from pictures this script draws.

    python3 Fixtures/make-tiff-fixtures.py [OUTDIR] [--large SOURCE...]

Needs: PyPI tifffile, ImageMagick (convert, for palettes of 2 and 4 bits),, imagecodecs (its LZW, Deflate, PackBits and JPEG encoders), numpy,
Pillow; apt libtiff-tools (tiffcp, fax2tiff, tiff2rgba). Rewrites OUTDIR (default
Fixtures/tiff/).

Every file is written by another tool (tifffile, tiffcp, fax2tiff), and next to each is
`<stem>.rgba.png`: what `tiff2rgba -c none` (libtiff's RGBA interface, the oracle) makes
of it, stored losslessly as 8-bit RGBA. libtiff's RGBA output premultiplies unassociated
alpha and keeps associated alpha as stored; the tests compare accordingly.

With --large, the same kinds of file are made from the given photos (resized to 320
pixels wide) instead of drawn pictures, with 12-megapixel timing files from the first, and
oracle pictures for given TIFFs (real/<stem>.rgba.png): that is how the corpus's tiff/
folder is made (never committed), by Fixtures/make-tiff-corpus.sh.
"""
import os
import shutil
import struct
import subprocess
import sys

import numpy as np
import tifffile
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))


def picture(width, height, seed):
    """A smooth colour field with a little noise: compressible, every value reached."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width]
    r = (x * 255 // max(1, width - 1))
    g = (y * 255 // max(1, height - 1))
    b = ((x + y) * 4) % 256
    rgb = np.stack([r, g, b], axis=-1).astype(np.int32)
    rgb += rng.integers(-12, 13, size=rgb.shape)
    return np.clip(rgb, 0, 255).astype(np.uint8)


def oracle(path):
    """tiff2rgba's pixels of `path`, written as <stem>.rgba.png."""
    out = path + ".oracle.tif"
    subprocess.run(["tiff2rgba", "-c", "none", path, out], check=True)
    rgba = tifffile.imread(out)
    os.remove(out)
    if rgba.ndim == 2 or rgba.shape[-1] != 4:
        raise SystemExit(f"unexpected tiff2rgba output for {path}: {rgba.shape}")
    Image.fromarray(rgba, "RGBA").save(path[: -len(".tif")] + ".rgba.png")


def write(out, name, data, **kwargs):
    path = os.path.join(out, name + ".tif")
    tifffile.imwrite(path, data, **kwargs)
    oracle(path)
    return path


def old_style_lzw(data):
    """LZW as the first TIFF writers coded it (before TIFF 5.0): codes packed least
    significant bit first, the width growing one code later than new-style LZW. No tool
    writes it any more; libtiff still reads it (LZWDecodeCompat), and tiff2rgba is the oracle."""
    out, acc, nbits = bytearray(), 0, 0

    def put(code, width):
        nonlocal acc, nbits
        acc |= code << nbits
        nbits += width
        while nbits >= 8:
            out.append(acc & 255)
            acc >>= 8
            nbits -= 8
    table = {bytes([i]): i for i in range(256)}
    free, width = 258, 9
    put(256, width)
    w = b""
    for b in data:
        wc = w + bytes([b])
        if wc in table:
            w = wc
            continue
        put(table[w], width)
        table[wc] = free
        free += 1
        if free - 1 == (1 << width) and width < 12:
            width += 1
        if free == 4093:
            put(256, width)
            table = {bytes([i]): i for i in range(256)}
            free, width = 258, 9
        w = bytes([b])
    if w:
        put(table[w], width)
    put(257, width)
    if nbits:
        out.append(acc & 255)
    return bytes(out)


def one_strip_gray_tiff(path, image, compression, data):
    """A classic little-endian TIFF of one 8-bit gray strip holding `data` as given."""
    h, w = image.shape
    entries = sorted([(256, 4, w), (257, 4, h), (258, 3, 8), (259, 3, compression), (262, 3, 1), (273, 4, None),
                      (278, 4, h), (279, 4, len(data))])
    start = 8 + 2 + 12 * len(entries) + 4
    out = b"II*\0" + struct.pack("<I", 8) + struct.pack("<H", len(entries))
    for tag, typ, value in entries:
        out += struct.pack("<HHII", tag, typ, 1, start if value is None else value)
    with open(path, "wb") as f:
        f.write(out + struct.pack("<I", 0) + data)


def ycbcr_blocks(ycc, horizontal, vertical):
    """TIFF 6.0 section 21's data units of subsampled YCbCr: for each block of horizontal x
    vertical pixels (the edges padded by repeating the last row and column), its Y samples
    row by row, then the block's mean Cb and Cr, rounded. Returns one bytes object per row of
    blocks."""
    h, w = ycc.shape[:2]
    bw, bh = -(-w // horizontal), -(-h // vertical)
    pad = np.pad(ycc, ((0, bh * vertical - h), (0, bw * horizontal - w), (0, 0)), mode="edge")
    blocks = pad.reshape(bh, vertical, bw, horizontal, 3).transpose(0, 2, 1, 3, 4).astype(np.float64)
    luma = blocks[..., 0].reshape(bh, bw, vertical * horizontal)
    chroma = np.floor(blocks[..., 1:].mean(axis=(2, 3)) + 0.5)
    units = np.concatenate([luma, chroma], axis=-1).astype(np.uint8)
    return [units[r].tobytes() for r in range(bh)]


def subsampled_ycbcr_tiff(path, ycc, horizontal, vertical, compression, rows_per_strip=None, tile=None):
    """A little-endian TIFF of YCbCr with subsampled chroma and no JPEG, in strips or tiles:
    tifffile refuses to write one (it subsamples only for JPEG), tiffcp refuses to copy one
    and ImageMagick writes YCbCrSubsampling 1, 1, so the structure is written here; the
    samples are ycbcr_blocks' and libtiff (tiff2rgba) is the oracle. compression: 1 none,
    5 LZW, 8 Deflate, 32773 PackBits (imagecodecs' encoders)."""
    import imagecodecs
    encode = {1: bytes, 5: imagecodecs.lzw_encode, 8: imagecodecs.zlib_encode,
              32773: imagecodecs.packbits_encode}[compression]
    h, w = ycc.shape[:2]
    segments = []
    if tile is None:
        for y in range(0, h, rows_per_strip):
            segments.append(encode(b"".join(ycbcr_blocks(ycc[y:y + rows_per_strip], horizontal, vertical))))
    else:
        th, tw = tile
        for y in range(0, h, th):
            for x in range(0, w, tw):
                part = ycc[y:y + th, x:x + tw]
                # Tiles are whole (section 15): the picture's edge repeated into the margin.
                part = np.pad(part, ((0, th - part.shape[0]), (0, tw - part.shape[1]), (0, 0)), mode="edge")
                segments.append(encode(b"".join(ycbcr_blocks(part, horizontal, vertical))))
    count = len(segments)
    layout = [(273, 4, count, None), (278, 4, 1, [rows_per_strip]), (279, 4, count, [len(x) for x in segments])] \
        if tile is None else [(322, 4, 1, [tile[1]]), (323, 4, 1, [tile[0]]), (324, 4, count, None),
                              (325, 4, count, [len(x) for x in segments])]
    entries = sorted([(256, 4, 1, [w]), (257, 4, 1, [h]), (258, 3, 3, [8, 8, 8]), (259, 3, 1, [compression]),
                      (262, 3, 1, [6]), (277, 3, 1, [3]), (284, 3, 1, [1]), (530, 3, 2, [horizontal, vertical])] + layout)
    ifd_size = 2 + 12 * len(entries) + 4
    extra = bytearray()
    data_start = 8 + ifd_size
    # Values longer than 4 bytes after the IFD, then the segments.
    sizes = {3: 2, 4: 4}
    out_values = 0
    for tag, typ, n, values in entries:
        if n * sizes[typ] > 4:
            out_values += n * sizes[typ]
    segments_start = data_start + out_values
    offsets, at = [], segments_start
    for x in segments:
        offsets.append(at)
        at += len(x)
    ifd = struct.pack("<H", len(entries))
    for tag, typ, n, values in entries:
        values = offsets if values is None else values
        raw = b"".join(struct.pack("<H" if typ == 3 else "<I", v) for v in values)
        if len(raw) > 4:
            ifd += struct.pack("<HHII", tag, typ, n, data_start + len(extra))
            extra += raw
        else:
            ifd += struct.pack("<HHI", tag, typ, n) + raw.ljust(4, b"\0")
    with open(path, "wb") as f:
        f.write(b"II*\0" + struct.pack("<I", 8) + ifd + struct.pack("<I", 0) + bytes(extra) + b"".join(segments))


def packed(out, name, data, tiffcp_args, **kwargs):
    """Bit depths below 8 with compression: tifffile writes them uncompressed, tiffcp compresses."""
    tmp = os.path.join(out, name + ".tmp.tif")
    tifffile.imwrite(tmp, data, **kwargs)
    path = os.path.join(out, name + ".tif")
    subprocess.run(["tiffcp"] + tiffcp_args + [tmp, path], check=True)
    os.remove(tmp)
    oracle(path)


def make(out, rgb, seed=1):
    h, w = rgb.shape[:2]
    gray = (rgb.astype(np.uint32) @ np.array([77, 150, 29]) >> 8).astype(np.uint8)
    rng = np.random.default_rng(seed)
    compressions = [("none", None), ("packbits", "packbits"), ("lzw", "lzw"), ("deflate", "adobe_deflate")]
    for cname, comp in compressions:
        for layout, extra in [("strips", {"rowsperstrip": 7}), ("tiles", {"tile": (16, 16)})]:
            write(out, f"rgb8-{cname}-{layout}", rgb, photometric="rgb", compression=comp, **extra)
            write(out, f"gray8-{cname}-{layout}", gray, photometric="minisblack", compression=comp, **extra)
        cmap = rng.integers(0, 65536, size=(3, 256), dtype=np.uint16)
        write(out, f"palette8-{cname}", gray, photometric="palette", colormap=cmap, compression=comp, rowsperstrip=5)
        cmyk = np.concatenate([255 - rgb, np.minimum.reduce(255 - rgb, axis=-1, keepdims=True) // 2], axis=-1)
        write(out, f"cmyk8-{cname}", cmyk.astype(np.uint8), photometric="separated", compression=comp, rowsperstrip=9)
    # 32946: the older Deflate tag value.
    write(out, "rgb8-deflate32946-strips", rgb, photometric="rgb", compression="deflate", rowsperstrip=8)
    # Bit depths, predictor, planar, alpha, byte order, BigTIFF.
    rgb16 = rgb.astype(np.uint16) * 257 + rng.integers(0, 257, size=rgb.shape, dtype=np.uint16)
    gray16 = gray.astype(np.uint16) * 257 + rng.integers(0, 257, size=gray.shape, dtype=np.uint16)
    write(out, "rgb16-none-strips", rgb16, photometric="rgb", rowsperstrip=6)
    write(out, "rgb16-lzw-predictor-tiles", rgb16, photometric="rgb", compression="lzw", predictor=True, tile=(16, 16))
    write(out, "gray16-deflate-predictor-strips", gray16, photometric="minisblack", compression="adobe_deflate",
          predictor=True, rowsperstrip=10)
    write(out, "gray16-be-none-strips", gray16, photometric="minisblack", byteorder=">", rowsperstrip=10)
    write(out, "rgb8-lzw-predictor-strips", rgb, photometric="rgb", compression="lzw", predictor=True, rowsperstrip=4)
    write(out, "rgb8-deflate-predictor-tiles", rgb, photometric="rgb", compression="adobe_deflate", predictor=True,
          tile=(16, 32))
    write(out, "rgb8-lzw-planar2-strips", np.moveaxis(rgb, -1, 0), photometric="rgb", planarconfig="separate", compression="lzw",
          rowsperstrip=5)
    write(out, "rgb16-deflate-planar2-tiles", np.moveaxis(rgb16, -1, 0), photometric="rgb", planarconfig="separate",
          compression="adobe_deflate", predictor=True, tile=(16, 16))
    write(out, "rgb8-be-lzw-strips", rgb, photometric="rgb", compression="lzw", byteorder=">", rowsperstrip=11)
    write(out, "rgb8-bigtiff-deflate-tiles", rgb, photometric="rgb", compression="adobe_deflate", bigtiff=True,
          tile=(32, 16))
    alpha = ((np.arange(w)[None, :] * 255 // max(1, w - 1)) * np.ones((h, 1), dtype=np.int64)).astype(np.uint8)
    rgba = np.concatenate([rgb, alpha[..., None]], axis=-1)
    write(out, "rgba8-unassoc-lzw-strips", rgba, photometric="rgb", extrasamples=["unassalpha"],
          compression="lzw", rowsperstrip=8)
    premultiplied = rgba.copy()
    premultiplied[..., :3] = (rgb.astype(np.uint32) * alpha[..., None] + 127) // 255
    write(out, "rgba8-assoc-none-tiles", premultiplied, photometric="rgb", extrasamples=["assocalpha"], tile=(16, 16))
    write(out, "rgba8-unassoc-planar2-deflate", np.moveaxis(rgba, -1, 0), photometric="rgb", extrasamples=["unassalpha"],
          planarconfig="separate", compression="adobe_deflate", rowsperstrip=16)
    rgba16 = np.concatenate([rgb16, (alpha.astype(np.uint16) * 257)[..., None]], axis=-1)
    write(out, "rgba16-unassoc-none-strips", rgba16, photometric="rgb", extrasamples=["unassalpha"], rowsperstrip=9)
    grayalpha = np.stack([gray, alpha], axis=-1)
    write(out, "grayalpha8-unassoc-packbits", grayalpha, photometric="minisblack", extrasamples=["unassalpha"],
          compression="packbits", rowsperstrip=6)
    grayassoc = np.stack([(gray.astype(np.uint32) * alpha + 127) // 255, alpha], axis=-1).astype(np.uint8)
    # (Strips: libtiff 4.5's RGBA interface drops the pixels of gray+alpha tiles cut by the
    # image's right edge, so a tiled file would have no oracle.)
    write(out, "grayalpha8-assoc-lzw-strips", grayassoc, photometric="minisblack", extrasamples=["assocalpha"],
          compression="lzw", rowsperstrip=9)
    # Low bit depths: tifffile packs bool as 1 bit; 2 and 4 bits through bitspersample.
    write(out, "bilevel-miniswhite-none", gray < 128, photometric="miniswhite", rowsperstrip=12)
    packed(out, "bilevel-minisblack-packbits-tiles", gray < 100, ["-c", "packbits", "-t", "-w", "16", "-l", "16"],
           photometric="minisblack")
    packed(out, "gray4-lzw", (gray >> 4).astype(np.uint8), ["-c", "lzw", "-r", "8"], photometric="minisblack",
           bitspersample=4)
    write(out, "gray2-none", (gray >> 6).astype(np.uint8), photometric="minisblack", bitspersample=2, rowsperstrip=5)
    write(out, "miniswhite8-deflate", gray, photometric="miniswhite", compression="adobe_deflate", rowsperstrip=7)
    # Palettes of 4 and 2 bits: ImageMagick quantises and writes them (tiffcp compresses).
    png = os.path.join(out, "palette.tmp.png")
    Image.fromarray(rgb).save(png)
    for name, colors, depth, args in [("palette4-packbits", 12, 4, ["-c", "packbits", "-r", "6"]),
                                      ("palette2-none", 4, 2, ["-c", "none", "-r", "20"])]:
        tmp = os.path.join(out, name + ".tmp.tif")
        subprocess.run(["convert", png, "-colors", str(colors), "-type", "Palette", "-depth", str(depth),
                        "-compress", "none", tmp], check=True)
        path = os.path.join(out, name + ".tif")
        subprocess.run(["tiffcp"] + args + [tmp, path], check=True)
        os.remove(tmp)
        oracle(path)
    os.remove(png)
    # Old-style LZW (see old_style_lzw): a larger gray picture, so that the codes reach 12 bits
    # and the table is cleared.
    big = np.asarray(Image.fromarray(gray).resize((4 * w, 4 * h), Image.BICUBIC))
    path = os.path.join(out, "gray8-lzw-oldstyle.tif")
    one_strip_gray_tiff(path, big, 5, old_style_lzw(big.tobytes()))
    oracle(path)
    # YCbCr without JPEG, full-resolution chroma (tifffile writes the samples as given and
    # YCbCrSubsampling 1, 1): the picture's own YCbCr (JPEG's equations, rounded).
    m = np.array([[0.299, 0.587, 0.114], [-0.168736, -0.331264, 0.5], [0.5, -0.418688, -0.081312]])
    ycc = np.clip(np.rint(rgb.astype(np.float64) @ m.T + [0, 128, 128]), 0, 255).astype(np.uint8)
    write(out, "ycbcr-none-strips", ycc, photometric="ycbcr", rowsperstrip=10)
    write(out, "ycbcr-lzw-tiles", ycc, photometric="ycbcr", compression="lzw", tile=(16, 16))
    # Subsampled chroma (see subsampled_ycbcr_tiff): the factors a TIFF may hold, in strips
    # whose rows are and are not a multiple of the block height, and in tiles.
    for name, horizontal, vertical, compression, kwargs in [
        ("ycbcr22-none-strips", 2, 2, 1, {"rows_per_strip": 8}),
        ("ycbcr21-lzw-strips", 2, 1, 5, {"rows_per_strip": 5}),
        ("ycbcr42-deflate-strips", 4, 2, 8, {"rows_per_strip": 7}),
        ("ycbcr41-packbits-strips", 4, 1, 32773, {"rows_per_strip": 16}),
        ("ycbcr44-none-strips", 4, 4, 1, {"rows_per_strip": 12}),
        ("ycbcr12-none-strips", 1, 2, 1, {"rows_per_strip": 6}),
        ("ycbcr22-lzw-tiles", 2, 2, 5, {"tile": (16, 16)}),
    ]:
        path = os.path.join(out, name + ".tif")
        subsampled_ycbcr_tiff(path, ycc, horizontal, vertical, compression, **kwargs)
        oracle(path)
    # An ICC profile (tag 34675): Pillow's sRGB.
    from PIL import ImageCms
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    write(out, "rgb8-icc-lzw", rgb, photometric="rgb", compression="lzw", iccprofile=icc)
    # Two pages; Orientation 6 (the decoder hands out stored rows; tiff2rgba turns them, so
    # the oracle is made from a copy without the tag).
    path = os.path.join(out, "pages2-orientation6.tif")
    with tifffile.TiffWriter(path) as tw:
        tw.write(rgb, photometric="rgb", compression="lzw", extratags=[(274, "H", 1, 6, True)])
        tw.write(gray, photometric="minisblack")
    plain = path + ".plain.tif"
    tifffile.imwrite(plain, rgb, photometric="rgb", compression="lzw")
    oracle(plain)
    os.replace(plain[: -len(".tif")] + ".rgba.png", path[: -len(".tif")] + ".rgba.png")
    os.remove(plain)
    # JPEG through libtiff's own encoder: YCbCr 2x2 and 2x1 subsampling with JPEGTables,
    # RGB, gray, strips and tiles.
    base = os.path.join(out, "base-rgb.tmp.tif")
    tifffile.imwrite(base, rgb, photometric="rgb", rowsperstrip=16)
    gbase = os.path.join(out, "base-gray.tmp.tif")
    tifffile.imwrite(gbase, gray, photometric="minisblack", rowsperstrip=16)
    for name, src, args in [
        ("jpeg-ycbcr-strips", base, ["-c", "jpeg:90", "-r", "16"]),
        ("jpeg-ycbcr-tiles", base, ["-c", "jpeg:75", "-t", "-w", "16", "-l", "16"]),
        ("jpeg-rgb-strips", base, ["-c", "jpeg:r:90", "-r", "8"]),
        ("jpeg-gray-tiles", gbase, ["-c", "jpeg:85", "-t", "-w", "32", "-l", "16"]),
    ]:
        path = os.path.join(out, name + ".tif")
        subprocess.run(["tiffcp"] + args + [src, path], check=True)
        oracle(path)
    os.remove(base)
    os.remove(gbase)
    # CCITT: tiffcp from a bilevel file, in the T.4 1-D and 2-D and T.6 codings; fax2tiff
    # from the raw T.4 data (its defaults: 2-D output with EOLs byte-aligned, FillOrder 2,
    # TIFF Class F); Pillow (through libtiff) for Compression 2, modified Huffman.
    bilevel = os.path.join(out, "bilevel.tmp.tif")
    tifffile.imwrite(bilevel, gray < 128, photometric="miniswhite", rowsperstrip=h)
    for name, args in [("fax-g3-1d", ["-c", "g3:1d"]), ("fax-g3-2d", ["-c", "g3:2d:fill"]),
                       ("fax-g4", ["-c", "g4"]), ("fax-g4-strips", ["-c", "g4", "-r", "5"])]:
        path = os.path.join(out, name + ".tif")
        subprocess.run(["tiffcp"] + args + [bilevel, path], check=True)
        oracle(path)
    g3 = os.path.join(out, "fax-g3-1d.tif")
    with tifffile.TiffFile(g3) as tif:
        page = tif.pages[0]
        with open(g3, "rb") as f:
            f.seek(page.dataoffsets[0])
            raw = f.read(page.databytecounts[0])
    rawpath = os.path.join(out, "raw.tmp.g3")
    with open(rawpath, "wb") as f:
        f.write(raw)
    for name, args in [("fax2tiff-g3-2d-lsb", []), ("fax2tiff-g4-lsb", ["-8"])]:
        path = os.path.join(out, name + ".tif")
        subprocess.run(["fax2tiff", "-M", "-1", "-X", str(w)] + args + ["-o", path, rawpath], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        oracle(path)
    os.remove(rawpath)
    path = os.path.join(out, "fax-rle-minisblack.tif")
    Image.fromarray(((gray >= 128) * 255).astype(np.uint8)).convert("1").save(path, compression="tiff_ccitt")
    oracle(path)
    os.remove(bilevel)


def bench(out, rgb):
    """12-megapixel RGB strips (4000x3000), uncompressed, LZW and Deflate, for timing."""
    big = np.asarray(Image.fromarray(rgb).resize((4000, 3000), Image.BICUBIC))
    for name, comp in [("bench-12mp-none", None), ("bench-12mp-lzw", "lzw"), ("bench-12mp-deflate", "adobe_deflate")]:
        tifffile.imwrite(os.path.join(out, name + ".tif"), big, photometric="rgb", compression=comp, rowsperstrip=16)


def main():
    args = sys.argv[1:]
    large = "--large" in args
    if large:
        i = args.index("--large")
        sources = args[i + 1:]
        args = args[:i]
    out = args[0] if args else os.path.join(HERE, "tiff")
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    if large:
        # Each photo at 320 pixels wide through every kind of file; the corpus's real TIFFs
        # (exif/tiff, read in place) get their oracle pictures in real/; one photo at 12 MP
        # for the timing.
        for n, src in enumerate(sources):
            if src.lower().endswith((".tif", ".tiff")):
                os.makedirs(os.path.join(out, "real"), exist_ok=True)
                tmp = os.path.join(out, "real", os.path.basename(src).rsplit(".", 1)[0] + ".tif")
                shutil.copy(src, tmp)
                oracle(tmp)
                os.remove(tmp)
                continue
            photo = Image.open(src).convert("RGB")
            if n == 0:
                bench(out, np.asarray(photo))
            small = photo.resize((320, 320 * photo.height // photo.width), Image.BICUBIC)
            sub = os.path.join(out, os.path.splitext(os.path.basename(src))[0])
            os.makedirs(sub)
            make(sub, np.asarray(small), seed=n)
    else:
        make(out, picture(45, 37, 7))


if __name__ == "__main__":
    main()
