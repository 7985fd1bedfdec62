"""What the colour checks against LittleCMS (icc-compare.sh, lut-compare.sh) share: their
command line and the PSNR of two Pillow images."""
import math, os, sys
from PIL import ImageChops, ImageCms


def arguments():
    """PARE WORK MIN_DB MEAN_DB as the scripts pass them, the fixtures folder in WORK, and
    LittleCMS's built-in sRGB profile."""
    work = sys.argv[2]
    return (sys.argv[1], work, float(sys.argv[3]), float(sys.argv[4]), os.path.join(work, "fixtures"),
            ImageCms.createProfile("sRGB"))


def psnr(a, b):
    """99 for identical images of one size and mode."""
    assert a.size == b.size and a.mode == b.mode, (a.size, b.size, a.mode, b.mode)
    # The histogram of |a - b| per band gives the squared error without a Python loop.
    histogram = ImageChops.difference(a, b).histogram()
    se = sum(count * (i % 256) ** 2 for i, count in enumerate(histogram))
    samples = a.width * a.height * len(a.getbands())
    return 99.0 if se == 0 else 10 * math.log10(255 * 255 * samples / se)
