#!/usr/bin/env python3
"""Paints the sample club's panoramic photos procedurally and encodes them with cjpeg.

Needs numpy and cjpeg (Debian: python3-numpy, libjpeg-turbo-progs). The output is committed;
run this only to change the pictures:  python3 scripts/make-sample-photos.py
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

W, H = 3200, 800
OUT = os.path.join(os.path.dirname(__file__), "..", "Resources", "SampleClub", "byteclub", "photos")
rng = np.random.default_rng(2026)
X = np.linspace(0.0, 1.0, W)[None, :]
Y = np.linspace(0.0, 1.0, H)[:, None]


def ridge(seed, base, amplitude, octaves=6, roughness=0.5):
    """A mountain skyline: a sum of sines with random phases (a cheap 1-D fractal noise)."""
    r = np.random.default_rng(seed)
    line = np.full(W, base, dtype=float)
    amp = amplitude
    freq = 2.0
    for _ in range(octaves):
        line += amp * np.sin(2 * np.pi * (freq * X[0] + r.random()))
        amp *= roughness
        freq *= 2.1
    return line


def gradient(top, bottom, t):
    top, bottom = np.array(top, float), np.array(bottom, float)
    return top + (bottom - top) * t[..., None]


def blend(image, mask, color, alpha=1.0):
    mask = np.clip(mask, 0, 1)[..., None] * alpha
    image[:] = image * (1 - mask) + np.array(color, float) * mask


def grain(image, amount=3.0):
    image += rng.normal(0, amount, image.shape)


def alps():
    img = gradient((40, 70, 140), (250, 170, 110), np.broadcast_to(Y, (H, W)) * 1.6)
    sun = np.exp(-(((X - 0.68) * 4) ** 2 + ((Y - 0.42) * 8) ** 2) * 6)
    blend(img, sun, (255, 230, 170), 0.9)
    for seed, base, amp, color in [(1, 0.38, 0.12, (120, 120, 150)), (2, 0.48, 0.09, (80, 85, 110)), (3, 0.6, 0.06, (45, 60, 70))]:
        line = ridge(seed, base, amp)
        mask = (Y > line[None, :]).astype(float)
        shade = gradient(color, (np.array(color) * 0.6), np.broadcast_to(np.clip((Y - line[None, :]) * 6, 0, 1), (H, W)))
        img = img * (1 - mask[..., None]) + shade * mask[..., None]
        snow = mask * (Y < line[None, :] + 0.035) * (line[None, :] < base - amp * 0.3)
        blend(img, snow, (240, 240, 250), 0.85)
    lake = Y > 0.78
    reflection = img[::-1][:H] * 0.55 + np.array((20, 40, 70)) * 0.45
    ripple = (np.sin(Y * 900 + np.sin(X * 40) * 3) * 0.5 + 0.5) * 0.15
    img = np.where(lake[..., None], reflection * (0.9 + ripple[..., None]), img)
    grain(img)
    return img


def desk():
    img = gradient((18, 20, 32), (35, 30, 40), np.broadcast_to(Y, (H, W)))
    lamp = np.exp(-(((X - 0.2) * 3) ** 2 + ((Y - 0.2) * 2.5) ** 2) * 3)
    blend(img, lamp, (255, 200, 120), 0.55)
    top = 0.68
    surface = (Y > top).astype(float)
    wood = gradient((120, 80, 50), (70, 45, 30), np.broadcast_to(np.clip((Y - top) * 3, 0, 1), (H, W)))
    wood = wood * (1 + 0.08 * np.sin(X * 300 + np.sin(Y * 20) * 4))[..., None]
    img = img * (1 - surface[..., None]) + wood * surface[..., None]
    for left, right in [(0.34, 0.56), (0.58, 0.80)]:
        frame = ((X > left) & (X < right) & (Y > 0.18) & (Y < 0.6)).astype(float)
        blend(img, frame, (25, 25, 30))
        screen = ((X > left + 0.006) & (X < right - 0.006) & (Y > 0.2) & (Y < 0.58)).astype(float)
        blend(img, screen, (20, 40, 45))
        for row in range(18):
            y0 = 0.22 + row * 0.019
            indent = (row * 7 % 5) * 0.008
            length = 0.04 + ((row * 13) % 9) * 0.012
            line = ((Y > y0) & (Y < y0 + 0.008) & (X > left + 0.015 + indent) & (X < min(right - 0.015, left + 0.015 + indent + length))).astype(float)
            blend(img, line, [(120, 220, 140), (230, 200, 110), (140, 180, 250)][row % 3])
        stand = ((X > (left + right) / 2 - 0.008) & (X < (left + right) / 2 + 0.008) & (Y > 0.6) & (Y < top)).astype(float)
        blend(img, stand, (30, 30, 35))
    keyboard = ((X > 0.45) & (X < 0.69) & (Y > 0.74) & (Y < 0.84)).astype(float)
    blend(img, keyboard, (45, 45, 50))
    keys = keyboard * ((np.sin(X * 1200) > -0.6) & (np.sin(Y * 420) > -0.5))
    blend(img, keys, (85, 85, 95))
    mug = (((X - 0.88) * 4) ** 2 + ((Y - 0.66) * 1.0) ** 2 < 0.004).astype(float) + ((X > 0.87) & (X < 0.905) & (Y > 0.6) & (Y < 0.75))
    blend(img, np.clip(mug, 0, 1), (200, 60, 50))
    grain(img, 4)
    return img


def coast():
    img = gradient((70, 140, 210), (190, 225, 245), np.broadcast_to(Y, (H, W)) * 2.2)
    sun = np.exp(-(((X - 0.3) * 5) ** 2 + ((Y - 0.15) * 12) ** 2) * 8)
    blend(img, sun, (255, 255, 230), 1.0)
    horizon = 0.48
    sea = (Y > horizon).astype(float)
    water = gradient((40, 100, 150), (20, 70, 110), np.broadcast_to(np.clip((Y - horizon) * 3, 0, 1), (H, W)))
    waves = (np.sin(X * 400 + Y * 900 + np.sin(X * 30) * 6) * 0.5 + 0.5) ** 8
    water += waves[..., None] * 40
    img = img * (1 - sea[..., None]) + water * sea[..., None]
    sand_line = 0.78 + 0.03 * np.sin(X * 12)
    beach = (Y > sand_line).astype(float)
    sand = gradient((225, 205, 160), (200, 175, 130), np.broadcast_to(np.clip((Y - 0.78) * 5, 0, 1), (H, W)))
    img = img * (1 - beach[..., None]) + sand * beach[..., None]
    foam = np.exp(-((Y - sand_line) * 120) ** 2)
    blend(img, foam, (250, 250, 250), 0.8)
    for cx in (0.12, 0.55, 0.85):
        cloud = np.exp(-(((X - cx) * 9) ** 2 + ((Y - 0.2) * 25) ** 2)) * (0.7 + 0.3 * np.sin(X * 90))
        blend(img, cloud, (255, 255, 255), 0.8)
    grain(img)
    return img


def city():
    img = gradient((25, 15, 60), (230, 110, 90), np.broadcast_to(Y, (H, W)) ** 1.4)
    stars = (rng.random((H, W)) > 0.9993) & (Y < 0.35)
    blend(img, stars.astype(float), (255, 255, 255))
    r = np.random.default_rng(7)
    skyline = np.ones(W)
    x = 0
    while x < W:
        width = int(r.integers(60, 180))
        height = r.uniform(0.35, 0.8)
        skyline[x:x + width] = np.minimum(skyline[x:x + width], height)
        x += width + int(r.integers(0, 25))
    buildings = (Y > skyline[None, :]).astype(float)
    img = img * (1 - buildings[..., None]) + np.array((20, 18, 30), float) * buildings[..., None]
    windows = buildings * ((np.sin(X * W * 0.35) > 0.55) & (np.sin(Y * H * 0.45) > 0.4))
    lit = windows * (rng.random((H, W)) > 0.0) * ((np.sin(X * 97.0) * np.sin(Y * 53.0 + X * 11)) > -0.2)
    blend(img, lit, (255, 210, 120), 0.9)
    street = (Y > 0.93).astype(float)
    blend(img, street, (40, 35, 45))
    grain(img, 3)
    return img


def save(name, image, quality=82):
    data = np.clip(image, 0, 255).astype(np.uint8)
    with tempfile.NamedTemporaryFile(suffix=".ppm", delete=False) as ppm:
        ppm.write(f"P6 {W} {H} 255\n".encode())
        ppm.write(data.tobytes())
    target = os.path.join(OUT, name)
    with open(target, "wb") as out:
        subprocess.run(["cjpeg", "-quality", str(quality), "-optimize", ppm.name], stdout=out, check=True)
    os.unlink(ppm.name)
    size = os.path.getsize(target)
    print(f"{name}: {W}x{H}, {size // 1024} KiB")
    if size > 400 * 1024:
        sys.exit(f"{name} is over 400 KB; lower the quality")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    save("alps-sunrise.jpg", alps())
    save("desk-at-night.jpg", desk())
    save("coast-noon.jpg", coast())
    save("city-dusk.jpg", city())
