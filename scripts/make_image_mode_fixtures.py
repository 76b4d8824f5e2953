#!/usr/bin/python3
"""Writes tests/data/fixtures/modes/: one tiny image file of each pixel mode that ImageFolder
users have, and beside each NAME a NAME.ppm of the RGB pixels that torchvision's loader gives for it
(PIL's Image.open(f).convert("RGB"), torchvision.datasets.folder.pil_loader).
tests/data/decode_image_test.cpp decodes every file and compares with these pixels.

Run with Debian's Python and its python3-pil and python3-numpy:
    /usr/bin/python3 scripts/make_image_mode_fixtures.py
The fixtures are committed: building and testing xtrain needs neither PIL nor this script.
PIL cannot write 16-bit color or sub-byte grayscale PNGs, so write_png writes those itself.
"""
import io
import os
import struct
import zlib

import numpy as np
from PIL import Image

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "fixtures",
                   "modes")
WIDTH, HEIGHT = 7, 5  # odd sizes: no row or chunk of the decoders lines up by chance
rng = np.random.default_rng(51)


def pixels(channels, top):
    """Random values 0..top, with the extremes in the first pixels."""
    values = rng.integers(0, top + 1, size=(HEIGHT, WIDTH, channels), dtype=np.int64)
    values[0, 0, :], values[0, 1, :] = 0, top
    return values


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(
        ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def write_png(values, color_type, bit_depth):
    """A PNG of `values` [H, W, C] as they are: color_type 0 (gray), 2 (RGB), 4 (gray and alpha),
    6 (RGBA), bit_depth 1..16."""
    rows = []
    for row in values:
        flat = row.reshape(-1)
        if bit_depth == 16:
            raw = flat.astype(">u2").tobytes()
        elif bit_depth == 8:
            raw = flat.astype(np.uint8).tobytes()
        else:  # samples packed into bytes, most significant first
            per_byte = 8 // bit_depth
            padded = np.concatenate([flat, np.zeros((-len(flat)) % per_byte, np.int64)])
            shifts = bit_depth * np.arange(per_byte - 1, -1, -1)
            raw = (padded.reshape(-1, per_byte) << shifts).sum(axis=1).astype(np.uint8).tobytes()
        rows.append(b"\0" + raw)  # filter type 0: none
    header = struct.pack(">IIBBBBB", WIDTH, HEIGHT, bit_depth, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) +
            png_chunk(b"IDAT", zlib.compress(b"".join(rows))) + png_chunk(b"IEND", b""))


def write_pnm(magic, values, max_value):
    """A PNM of `values` [H, W, C]: binary (P5, P6) as bytes or big-endian 16-bit samples, plain
    (P2, P3) as decimal text."""
    header = b"%s\n%d %d\n%d\n" % (magic, WIDTH, HEIGHT, max_value)
    if magic in (b"P2", b"P3"):
        return header + b" ".join(b"%d" % v for v in values.reshape(-1)) + b"\n"
    return header + values.astype(">u2" if max_value > 255 else np.uint8).tobytes()


def saved(image, format, **options):
    out = io.BytesIO()
    image.save(out, format, **options)
    return out.getvalue()


def without_adobe_marker(jpeg):
    """The JPEG without its APP14 "Adobe" segment, which PIL writes in CMYK JPEGs: libjpeg then
    takes the samples as they are, and PIL still inverts them."""
    i = 2  # after SOI, segments of a marker and a length that counts itself
    while jpeg[i + 1] != 0xDA:  # up to the first scan
        end = i + 2 + struct.unpack(">H", jpeg[i + 2:i + 4])[0]
        if jpeg[i + 1] == 0xEE and jpeg[i + 4:i + 9] == b"Adobe":
            return jpeg[:i] + jpeg[end:]
        i = end
    raise ValueError("no Adobe segment")


def palette_image():
    image = Image.fromarray(pixels(1, 3)[:, :, 0].astype(np.uint8), "P")
    image.putpalette([10, 20, 30, 200, 100, 50, 0, 255, 0, 255, 255, 255])
    return image


def fixtures():
    """name -> the bytes of the file."""
    gray16 = pixels(1, 65535)
    gray16[1, :4, 0] = [1, 254, 255, 256]  # around PIL's clip to 255
    rgb8 = pixels(3, 255).astype(np.uint8)
    rgb1000 = pixels(3, 1000)
    rgb1000[1, 0, :] = [100, 300, 500]  # v / 1000 * 255 lands near halves: rounding matters
    files = {
        "gray16.png": saved(Image.fromarray(gray16[:, :, 0].astype(np.uint16)), "PNG"),
        "rgb16.png": write_png(pixels(3, 65535), color_type=2, bit_depth=16),
        "rgba16.png": write_png(pixels(4, 65535), color_type=6, bit_depth=16),
        "gray_alpha16.png": write_png(pixels(2, 65535), color_type=4, bit_depth=16),
        "gray4.png": write_png(pixels(1, 15), color_type=0, bit_depth=4),
        "bilevel.png": saved(Image.fromarray(pixels(1, 1)[:, :, 0].astype(bool)), "PNG"),
        "gray_alpha.png": saved(Image.fromarray(pixels(2, 255).astype(np.uint8), "LA"), "PNG"),
        "gray_transparent.png": saved(Image.fromarray(rgb8[:, :, 0], "L"), "PNG",
                                      transparency=int(rgb8[0, 2, 0])),
        "rgba.png": saved(Image.fromarray(pixels(4, 255).astype(np.uint8), "RGBA"), "PNG"),
        "palette.png": saved(palette_image(), "PNG"),
        "palette_transparent.png": saved(palette_image(), "PNG", transparency=1),
        "gray16.pgm": write_pnm(b"P5", gray16, 65535),
        "gray_max1000.pgm": write_pnm(b"P5", pixels(1, 1000), 1000),
        "gray_max15.pgm": write_pnm(b"P5", pixels(1, 15), 15),
        "rgb16.ppm": write_pnm(b"P6", pixels(3, 65535), 65535),
        "rgb_max1000.ppm": write_pnm(b"P6", rgb1000, 1000),
        "rgb_max1000_plain.ppm": write_pnm(b"P3", rgb1000, 1000),
        "bilevel.pbm": saved(Image.fromarray(pixels(1, 1)[:, :, 0].astype(bool)), "PPM"),
        "rgb.jpg": saved(Image.fromarray(rgb8, "RGB"), "JPEG", quality=90, subsampling=2),
        "gray.jpg": saved(Image.fromarray(rgb8[:, :, 1], "L"), "JPEG", quality=90),
        "cmyk.jpg": saved(Image.fromarray(pixels(4, 255).astype(np.uint8), "CMYK"), "JPEG",
                          quality=90),
    }
    files["cmyk_no_adobe.jpg"] = without_adobe_marker(files["cmyk.jpg"])
    files["cmyk_progressive.jpg"] = saved(Image.fromarray(pixels(4, 255).astype(np.uint8), "CMYK"),
                                          "JPEG", quality=90, progressive=True)
    return files


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, data in fixtures().items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
        rgb = Image.open(io.BytesIO(data)).convert("RGB")
        with open(os.path.join(OUT, name + ".ppm"), "wb") as f:
            f.write(b"P6\n%d %d\n255\n" % rgb.size + rgb.tobytes())
        print(name, Image.open(io.BytesIO(data)).mode)


if __name__ == "__main__":
    main()
