/**
 * Small raster helpers for OCR input: a scanned PDF page's image comes out of PDF.js as raw
 * pixels in the image's own orientation; we turn it upright (as the page's transform draws
 * it), convert to grey, rescale towards 300 dpi and hand Tesseract a PGM, which Leptonica
 * reads natively. Also reads PNG/JPEG dimensions from their headers.
 */

export interface GreyImage {
  width: number;
  height: number;
  /** One byte per pixel, row-major, top row first. */
  data: Uint8Array;
}

/** RGB(A)/grey/1-bit pixels from PDF.js (`kind` 1 = 1bpp, 2 = RGB, 3 = RGBA) to grey. */
export function toGrey(
  data: Uint8Array | Uint8ClampedArray,
  width: number,
  height: number,
  channels: number,
): GreyImage {
  const out = new Uint8Array(width * height);
  if (channels === 1) out.set(data.subarray(0, width * height));
  else {
    for (let i = 0, p = 0; i < out.length; i++, p += channels) {
      // ITU-R BT.601 luma; alpha (if any) is ignored: scans are opaque.
      out[i] = (data[p]! * 299 + data[p + 1]! * 587 + data[p + 2]! * 114) / 1000;
    }
  }
  return { width, height, data: out };
}

/**
 * Turns the image the way the page's current transform [a, b, c, d] draws it, so the text
 * is upright: image space maps the unit square, (a, b) is the image's x axis on the page
 * and (c, d) its y axis (y up, image row 0 at the top of the unit square).
 */
export function orient(img: GreyImage, m: readonly number[]): GreyImage {
  const [a = 1, b = 0, c = 0, d = 1] = m;
  const { width: w, height: h, data } = img;
  const horizontal = Math.abs(a) >= Math.abs(b);
  if (horizontal && a > 0 && d > 0) return img;
  const ow = horizontal ? w : h;
  const oh = horizontal ? h : w;
  const out = new Uint8Array(ow * oh);
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      let col: number;
      let row: number;
      if (horizontal) {
        col = a > 0 ? i : w - 1 - i;
        row = d > 0 ? j : h - 1 - j;
      } else {
        col = c > 0 ? h - 1 - j : j;
        row = b < 0 ? i : w - 1 - i;
      }
      out[row * ow + col] = data[j * w + i]!;
    }
  }
  return { width: ow, height: oh, data: out };
}

/** Box-filter downscale or nearest-neighbour upscale by a factor (1 returns the input). */
export function rescale(img: GreyImage, factor: number): GreyImage {
  if (factor === 1) return img;
  const ow = Math.max(1, Math.round(img.width * factor));
  const oh = Math.max(1, Math.round(img.height * factor));
  const out = new Uint8Array(ow * oh);
  if (factor > 1) {
    for (let y = 0; y < oh; y++) {
      const sy = Math.min(img.height - 1, Math.floor(y / factor));
      for (let x = 0; x < ow; x++)
        out[y * ow + x] = img.data[sy * img.width + Math.min(img.width - 1, Math.floor(x / factor))]!;
    }
    return { width: ow, height: oh, data: out };
  }
  const step = 1 / factor;
  for (let y = 0; y < oh; y++) {
    const y0 = Math.floor(y * step);
    const y1 = Math.min(img.height, Math.max(y0 + 1, Math.floor((y + 1) * step)));
    for (let x = 0; x < ow; x++) {
      const x0 = Math.floor(x * step);
      const x1 = Math.min(img.width, Math.max(x0 + 1, Math.floor((x + 1) * step)));
      let sum = 0;
      for (let yy = y0; yy < y1; yy++) for (let xx = x0; xx < x1; xx++) sum += img.data[yy * img.width + xx]!;
      out[y * ow + x] = sum / ((y1 - y0) * (x1 - x0));
    }
  }
  return { width: ow, height: oh, data: out };
}

/** Binary PGM (P5), which Tesseract's image reader accepts. */
export function toPgm(img: GreyImage): Buffer {
  const header = Buffer.from(`P5\n${img.width} ${img.height}\n255\n`, "latin1");
  return Buffer.concat([header, Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength)]);
}

/** Width and height from a PNG's IHDR or a JPEG's SOF marker; null when unreadable. */
export function imageSize(bytes: Uint8Array): { width: number; height: number } | null {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length >= 24 && bytes[0] === 0x89 && bytes[1] === 0x50) {
    return { width: v.getUint32(16), height: v.getUint32(20) };
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    let p = 2;
    while (p + 9 < bytes.length) {
      if (bytes[p] !== 0xff) {
        p++;
        continue;
      }
      const marker = bytes[p + 1]!;
      // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: v.getUint16(p + 5), width: v.getUint16(p + 7) };
      }
      if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
        p += 2;
        continue;
      }
      p += 2 + v.getUint16(p + 2);
    }
  }
  return null;
}
