#!/usr/bin/env python3
"""Make the GIF test files and Pillow's frame-0 RGBA digests for them.

    python3 Fixtures/make-gif-fixtures.py            # small files -> Fixtures/gif/
    python3 Fixtures/make-gif-fixtures.py --corpus   # larger files -> .build/made-corpus/gif/
                                                     # (or $MADE_CORPUS/gif)

Needs: Pillow (pip: pillow), ImageMagick's `convert` (apt: imagemagick), giflib's `gifbuild`
(apt: giflib-tools), exiftool (apt: libimage-exiftool-perl), and the shared corpus's photos
(../shared/corpus/jpeg/conformance/go-video-001.q50.420.jpg, png/extra/ipng-kodim23.png,
png/extra/ipng-Transparency.png, jpeg/conformance/jd-rgb.jpg) as picture sources.

Each folder gets `expected.txt`, one line a file:

    name width height frames loop transparent fnv1a64

width and height are those of `Image.open(f).convert("RGBA")` on frame 0 (Pillow grows the
logical screen to hold the first frame), frames is Pillow's `n_frames`, loop its
`info["loop"]` (-1 without NETSCAPE2.0), transparent 1 when frame 0 has a transparent index,
and fnv1a64 the 64-bit FNV-1a hash (hex) of the RGBA bytes, so that the Swift tests check the
pixels without Pillow. `truncated.txt` holds, as `name length fnv1a64`, Pillow's frame-0 RGBA
of some files cut to their first `length` bytes, loaded with `ImageFile.LOAD_TRUNCATED_IMAGES`
(the pixels decoded before the cut, the canvas fill after). Files with an XMP packet get `<stem>.xmp` (`exiftool -b -XMP`).

Writers: `p-*` Pillow, `im-*` ImageMagick, `gl-*` giflib (gifbuild re-encodes a Pillow file
with giflib's encoder), `h-*` this script's own minimal encoder (below), for what the tools
do not write: GIF87a, indices past the colour table, a gray-ramp table, no colour table, a
frame outside the logical screen, a full LZW table with no clear code (the "deferred
clear").
"""
import io
import os
import re
import struct
import subprocess
import sys
import tempfile

from PIL import Image, ImageDraw

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "corpus"))
PHOTO = os.path.join(CORPUS, "jpeg/conformance/go-video-001.q50.420.jpg")
KODIM = os.path.join(CORPUS, "png/extra/ipng-kodim23.png")
ALPHA = os.path.join(CORPUS, "png/extra/ipng-Transparency.png")
RGBJPG = os.path.join(CORPUS, "jpeg/conformance/jd-rgb.jpg")
MADE = os.environ.get("MADE_CORPUS") or os.path.join(HERE, "..", ".build", "made-corpus")


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


# --- a minimal GIF writer, for the cases no tool writes -------------------------------

def lzw(indices, mcs, deferred_clear=False, clear_every=None):
    """GIF LZW (GIF89a Appendix F). With deferred_clear, a full table stays full and no
    clear code is sent; otherwise a clear code follows the 4096th entry."""
    clear, end = 1 << mcs, (1 << mcs) + 1
    out = bytearray()
    acc = nacc = 0

    def emit(code, width):
        nonlocal acc, nacc
        acc |= code << nacc
        nacc += width
        while nacc >= 8:
            out.append(acc & 255)
            acc >>= 8
            nacc -= 8

    def reset():
        return {bytes([i]): i for i in range(clear)}, end + 1, mcs + 1

    table, nxt, width = reset()
    emit(clear, width)
    w = b""
    for k in indices:
        wk = w + bytes([k])
        if wk in table:
            w = wk
            continue
        emit(table[w], width)
        if nxt < 4096:
            table[wk] = nxt
            nxt += 1
            if nxt > (1 << width) and width < 12:
                width += 1
        elif not deferred_clear:
            emit(clear, width)
            table, nxt, width = reset()
        w = bytes([k])
    if w:
        emit(table[w], width)
    emit(end, width)
    if nacc:
        out.append(acc & 255)
    return bytes(out)


def sub_blocks(data):
    out = bytearray()
    for i in range(0, len(data), 255):
        chunk = data[i:i + 255]
        out.append(len(chunk))
        out += chunk
    out.append(0)
    return bytes(out)


def table_field(entries):
    bits = max(1, (entries - 1).bit_length())
    return bits - 1, 3 * (1 << bits)


def gif(width, height, gct=None, background=0, blocks=(), version=b"GIF89a"):
    out = bytearray(version)
    flags = 0
    if gct is not None:
        size, nbytes = table_field(len(gct) // 3)
        flags = 0x80 | size | (size << 4)
        gct = gct + bytes(nbytes - len(gct))
    out += struct.pack("<HHBBB", width, height, flags, background, 0)
    if gct is not None:
        out += gct
    for block in blocks:
        out += block
    out += b";"
    return bytes(out)


def gce(transparent=None, disposal=0, delay=0):
    flags = (disposal << 2) | (1 if transparent is not None else 0)
    return b"\x21\xf9\x04" + bytes([flags]) + struct.pack("<H", delay) + bytes([transparent or 0]) + b"\x00"


def image(x, y, w, h, indices, mcs=None, lct=None, interlace=False, data=None, **lzw_options):
    flags = 0
    if lct is not None:
        size, nbytes = table_field(len(lct) // 3)
        flags |= 0x80 | size
        lct = lct + bytes(nbytes - len(lct))
    if interlace:
        flags |= 0x40
        rows = [indices[r * w:(r + 1) * w] for r in range(h)]
        order = [r for start, step in ((0, 8), (4, 8), (2, 4), (1, 2)) for r in range(start, h, step)]
        indices = [i for r in order for i in rows[r]]
    if mcs is None:
        mcs = max(2, max(indices).bit_length())
    if data is None:
        data = lzw(indices, mcs, **lzw_options)
    return b"," + struct.pack("<HHHHB", x, y, w, h, flags) + (lct or b"") + bytes([mcs]) + sub_blocks(data)


def pattern(w, h, colours, seed=1):
    """Deterministic indices: diagonal bands with a pseudo-random speckle."""
    state = seed
    out = []
    for y in range(h):
        for x in range(w):
            state = (state * 1103515245 + 12345) & 0x7FFFFFFF
            out.append(((x + 2 * y) // 3 + (state >> 16) % 3) % colours)
    return out


def ramp_palette(n, scale=7):
    return bytes(v for i in range(n) for v in ((i * scale) % 256, (i * 3 + 40) % 256, (255 - i * 5) % 256))


def handmade():
    pal4 = bytes([10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120])
    gray4 = bytes(v for i in range(4) for v in (i, i, i))
    files = {}
    files["h-87a.gif"] = gif(9, 7, ramp_palette(8), version=b"GIF87a",
                             blocks=[image(0, 0, 9, 7, pattern(9, 7, 8))])
    files["h-offset.gif"] = gif(12, 10, pal4, background=2,
                                blocks=[image(3, 2, 5, 4, pattern(5, 4, 4))])
    files["h-offset-transparent.gif"] = gif(12, 10, pal4, background=1,
                                            blocks=[gce(3), image(3, 2, 5, 4, pattern(5, 4, 4))])
    files["h-out-of-range.gif"] = gif(8, 2, pal4, blocks=[image(0, 0, 8, 2, list(range(16)), mcs=4)])
    files["h-transparent-out-of-range.gif"] = gif(6, 1, pal4, blocks=[gce(9), image(0, 0, 4, 1, [9, 1, 2, 12], mcs=4)])
    files["h-gray-ramp.gif"] = gif(8, 2, gray4, blocks=[gce(1), image(0, 0, 8, 2, list(range(16)), mcs=4)])
    files["h-no-table.gif"] = gif(8, 2, None, blocks=[gce(2), image(0, 0, 6, 2, list(range(12)), mcs=4)])
    files["h-grow.gif"] = gif(4, 3, pal4, blocks=[image(2, 1, 5, 4, pattern(5, 4, 4))])
    files["h-local-table.gif"] = gif(6, 5, pal4, blocks=[image(0, 0, 6, 5, pattern(6, 5, 8), lct=ramp_palette(8, 31))])
    big = pattern(160, 120, 256, seed=7)
    files["h-deferred-clear.gif"] = gif(160, 120, ramp_palette(256),
                                        blocks=[image(0, 0, 160, 120, big, mcs=8, deferred_clear=True)])
    files["h-full-table-clear.gif"] = gif(160, 120, ramp_palette(256),
                                          blocks=[image(0, 0, 160, 120, big, mcs=8)])
    files["h-interlaced-small.gif"] = gif(5, 11, ramp_palette(16),
                                          blocks=[image(0, 0, 5, 11, pattern(5, 11, 16), interlace=True)])
    # Two GCEs before one image: the first's transparent index holds (Pillow).
    files["h-two-gce.gif"] = gif(4, 2, pal4, blocks=[gce(2, delay=5), gce(None, disposal=2),
                                                     image(0, 0, 4, 2, [0, 1, 2, 3, 3, 2, 1, 0])])
    # Comments, an unknown application extension and a plain-text extension before frame 0.
    comment = b"\x21\xfe" + sub_blocks(b"first comment") + b"\x21\xfe" + sub_blocks(b"second " * 60)
    app = b"\x21\xff\x0bEXAMPLE1.00" + sub_blocks(b"\x01\x02\x03")
    plain = b"\x21\x01\x0c" + bytes(12) + sub_blocks(b"text")
    loop = b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x07\x00\x00"
    files["h-extensions.gif"] = gif(4, 2, pal4, blocks=[loop, comment, app, plain, gce(None, delay=10),
                                                        image(0, 0, 4, 2, [3, 2, 1, 0, 0, 1, 2, 3]),
                                                        b"\x21\xfe" + sub_blocks(b"after"),
                                                        gce(0), image(1, 0, 2, 2, [1, 1, 2, 2])])
    return files


# --- the tools ------------------------------------------------------------------------

def run(*args):
    subprocess.run(args, check=True)


def photo(path, size):
    im = Image.open(path).convert("RGB")
    return im.resize(size, Image.LANCZOS)


def pillow_files(tmp):
    files = {}

    def save(name, im, **options):
        buffer = io.BytesIO()
        im.save(buffer, "GIF", **options)
        files[name] = buffer.getvalue()

    src = photo(PHOTO, (61, 42))
    save("p-2-colours.gif", src.quantize(2))
    save("p-16-colours.gif", src.quantize(16))
    save("p-256-colours.gif", photo(KODIM, (96, 64)).quantize(256))
    save("p-interlaced.gif", photo(RGBJPG, (50, 33)).quantize(64), interlace=True)
    save("p-not-interlaced.gif", photo(RGBJPG, (50, 33)).quantize(64), interlace=False)
    alpha = Image.open(ALPHA).convert("RGBA").resize((40, 40), Image.LANCZOS)
    p = alpha.convert("RGB").quantize(255)
    mask = alpha.getchannel("A").point(lambda a: 255 if a < 128 else 0)
    p.paste(255, mask=mask)
    save("p-transparent.gif", p, transparency=255)
    save("p-1x1.gif", src.resize((1, 1)).quantize(4))
    save("p-255x1.gif", photo(KODIM, (255, 1)).quantize(32))
    save("p-1x200.gif", photo(KODIM, (1, 200)).quantize(32))
    save("p-comment.gif", src.quantize(8), comment=b"made for Pare's tests")
    frames = [photo(PHOTO, (48, 32)).rotate(20 * i).quantize(16 + 8 * i) for i in range(5)]
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=True, append_images=frames[1:], duration=[50, 60, 70, 80, 90],
                   loop=0, disposal=2)
    files["p-animated-local-tables.gif"] = buffer.getvalue()
    return files


def imagemagick_files(tmp):
    files = {}
    src = os.path.join(tmp, "src.png")
    photo(PHOTO, (30, 20)).save(src)
    kodim = os.path.join(tmp, "kodim.png")
    photo(KODIM, (45, 30)).save(kodim)

    def im(name, *args):
        out = os.path.join(tmp, name)
        run("convert", *args, out)
        with open(out, "rb") as f:
            files[name] = f.read()

    im("im-offset.gif", src, "-colors", "16", "-page", "50x40+7+9")
    im("im-interlaced.gif", kodim, "-colors", "64", "-interlace", "GIF")
    im("im-transparent-offset.gif", src, "-colors", "8", "-transparent", "black", "-fuzz", "20%",
       "-page", "40x30+3+4")
    im("im-animated.gif", "-delay", "20", "-loop", "3", src, "-rotate", "90", kodim, "-colors", "32")
    im("im-grayscale.gif", kodim, "-colorspace", "Gray", "-colors", "16")
    return files


def giflib_files(tmp, pillow):
    """giflib's gifbuild: a Pillow file dumped to text (`gifbuild -d`), edited, and compiled
    again by giflib's encoder (GIF87a when there is no extension)."""
    files = {}

    def gl(name, source, edit):
        path = os.path.join(tmp, "in.gif")
        with open(path, "wb") as f:
            f.write(pillow[source])
        text = subprocess.run(["gifbuild", "-d", path], check=True, capture_output=True, text=True).stdout
        files[name] = subprocess.run(["gifbuild"], input=edit(text).encode("latin-1"), check=True,
                                     capture_output=True).stdout

    def interlace(text):
        return re.sub(r"^(image bits .*)$", r"image interlaced\n\1", text, count=1, flags=re.M)

    def transparent(text):
        return text.replace("image # 1\n", "graphics control\n\ttransparent index 3\nend\n\nimage # 1\n", 1)

    gl("gl-interlaced.gif", "p-not-interlaced.gif", interlace)
    gl("gl-transparent.gif", "p-16-colours.gif", transparent)
    gl("gl-reencoded-87a.gif", "p-256-colours.gif", lambda text: text)
    return files


def xmp_file(tmp, pillow):
    path = os.path.join(tmp, "x.gif")
    with open(path, "wb") as f:
        f.write(pillow["p-16-colours.gif"])
    run("exiftool", "-q", "-overwrite_original", "-XMP-dc:Title=Pare GIF fixture", "-XMP-dc:Creator=Pare", path)
    with open(path, "rb") as f:
        data = f.read()
    xmp = subprocess.run(["exiftool", "-b", "-XMP", path], check=True, capture_output=True).stdout
    return data, xmp


# --- the corpus files -----------------------------------------------------------------

def corpus_files(tmp):
    files = {}

    def save(name, im, **options):
        buffer = io.BytesIO()
        im.save(buffer, "GIF", **options)
        files[name] = buffer.getvalue()

    kodim = Image.open(KODIM).convert("RGB")
    save("c-kodim-256.gif", kodim.quantize(256, dither=Image.Dither.FLOYDSTEINBERG))
    save("c-kodim-16-interlaced.gif", kodim.quantize(16), interlace=True)
    save("c-rgb-2.gif", Image.open(RGBJPG).convert("RGB").quantize(2))
    # 600 frames: a moving dot over a photo, each frame its own palette.
    base = photo(PHOTO, (64, 44))
    frames = []
    for i in range(600):
        frame = base.copy()
        draw = ImageDraw.Draw(frame)
        x, y = (i * 3) % 60, (i * 7) % 40
        draw.ellipse((x, y, x + 6, y + 6), fill=((i * 5) % 256, 255 - i % 256, 80))
        frames.append(frame.quantize(32))
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=True, append_images=frames[1:], duration=40, loop=0)
    files["c-animated-600.gif"] = buffer.getvalue()
    src = os.path.join(tmp, "kodim.png")
    kodim.resize((384, 256)).save(src)
    for name, args in [("c-im-interlaced.gif", ["-interlace", "GIF", "-colors", "200"]),
                       ("c-im-offset-transparent.gif", ["-colors", "64", "-transparent", "white", "-fuzz", "15%",
                                                        "-page", "500x400+40+50"])]:
        out = os.path.join(tmp, name)
        run("convert", src, *args, out)
        with open(out, "rb") as f:
            files[name] = f.read()
    return files


def describe(name, data):
    im = Image.open(io.BytesIO(data))
    frames = im.n_frames
    im.seek(0)
    transparent = 1 if im.info.get("transparency") is not None else 0
    loop = im.info.get("loop", -1)
    rgba = im.convert("RGBA")
    return "%s %d %d %d %d %d %s" % (name, rgba.width, rgba.height, frames, loop, transparent,
                                    fnv1a64(rgba.tobytes()))


# (file, fraction of its length kept)
TRUNCATIONS = [("p-not-interlaced.gif", 0.4), ("p-not-interlaced.gif", 0.6), ("p-not-interlaced.gif", 0.9),
               ("p-interlaced.gif", 0.5), ("p-interlaced.gif", 0.8), ("p-transparent.gif", 0.7),
               ("h-offset-transparent.gif", 0.85), ("im-offset.gif", 0.8), ("h-deferred-clear.gif", 0.75)]


def truncations(files):
    from PIL import ImageFile
    ImageFile.LOAD_TRUNCATED_IMAGES = True
    try:
        lines = []
        for name, fraction in TRUNCATIONS:
            length = int(len(files[name]) * fraction)
            rgba = Image.open(io.BytesIO(files[name][:length])).convert("RGBA")
            lines.append("%s %d %s" % (name, length, fnv1a64(rgba.tobytes())))
        return "\n".join(lines) + "\n"
    finally:
        ImageFile.LOAD_TRUNCATED_IMAGES = False


def write(folder, files, extra=None):
    os.makedirs(folder, exist_ok=True)
    lines = []
    for name in sorted(files):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(files[name])
        lines.append(describe(name, files[name]))
    for name, data in (extra or {}).items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    with open(os.path.join(folder, "expected.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%d files in %s" % (len(files), folder))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        if "--corpus" in sys.argv:
            write(os.path.join(MADE, "gif"), corpus_files(tmp))
            return
        files = handmade()
        pillow = pillow_files(tmp)
        files.update(pillow)
        files.update(imagemagick_files(tmp))
        files.update(giflib_files(tmp, pillow))
        data, xmp = xmp_file(tmp, pillow)
        files["x-xmp.gif"] = data
        write(os.path.join(HERE, "gif"), files, {"x-xmp.xmp": xmp, "truncated.txt": truncations(files).encode()})


if __name__ == "__main__":
    main()
