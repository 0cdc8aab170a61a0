#!/usr/bin/env python3
"""Draws Arbor's icon (a small tree: trunk, two branches, three leaf clusters)
into icons/*.png with nothing but the standard library. Run from the repo root."""
import math, struct, zlib, pathlib

GREEN = (46, 160, 96)
DARK = (28, 110, 70)
TRUNK = (120, 84, 52)
BG = (240, 246, 242)


def coverage(x, y, n):
    """Colour at (x, y) in a unit square, or None for transparent."""
    cx, cy = x - 0.5, y - 0.5
    # rounded-square background
    r = 0.22
    dx, dy = max(abs(cx) - (0.5 - r), 0), max(abs(cy) - (0.5 - r), 0)
    if dx * dx + dy * dy > r * r:
        return None
    for (lx, ly, lr, col) in ((0.5, 0.30, 0.17, GREEN), (0.30, 0.46, 0.13, DARK), (0.70, 0.46, 0.13, DARK)):
        if (x - lx) ** 2 + (y - ly) ** 2 < lr * lr:
            return col
    if abs(x - 0.5) < 0.045 and 0.40 < y < 0.84:
        return TRUNK
    for (ex, ey) in ((0.30, 0.46), (0.70, 0.46)):
        # branch from (0.5, 0.66) to the side cluster
        px, py = x - 0.5, y - 0.66
        vx, vy = ex - 0.5, ey - 0.66
        t = max(0, min(1, (px * vx + py * vy) / (vx * vx + vy * vy)))
        if math.hypot(px - t * vx, py - t * vy) < 0.03:
            return TRUNK
    if 0.80 < y < 0.86 and abs(x - 0.5) < 0.22:
        return DARK
    return BG


def render(size, ss=4):
    rows = []
    for j in range(size):
        row = bytearray([0])
        for i in range(size):
            acc = [0, 0, 0, 0]
            for sj in range(ss):
                for si in range(ss):
                    c = coverage((i + (si + 0.5) / ss) / size, (j + (sj + 0.5) / ss) / size, size)
                    if c:
                        acc[0] += c[0]; acc[1] += c[1]; acc[2] += c[2]; acc[3] += 255
            n = ss * ss
            a = acc[3] // n
            if a:
                row += bytes([acc[0] * 255 // acc[3], acc[1] * 255 // acc[3], acc[2] * 255 // acc[3], a])
            else:
                row += bytes(4)
        rows.append(bytes(row))
    raw = b"".join(rows)
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


out = pathlib.Path("icons")
out.mkdir(exist_ok=True)
for name, size in (("32x32.png", 32), ("128x128.png", 128), ("128x128@2x.png", 256), ("icon.png", 512)):
    (out / name).write_bytes(render(size))
    print("wrote", out / name)
