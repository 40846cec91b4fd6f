import sharp, { type Sharp } from 'sharp';
import { AppError, validationFailed } from '@wms/platform';
import { HASH_SIDE, orientationHashes, perceptualHash } from './perceptual-hash.js';

/** Accepted image types, decided from the decoded bytes, never from the file name or the declared type. */
const MIME_OF_FORMAT: Record<string, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };
export const ACCEPTED_MIMES = Object.values(MIME_OF_FORMAT);
/** Decompression-bomb guard: a 20 MiB file may still claim billions of pixels. */
const MAX_PIXELS = 60_000_000;
const GRID = 64;
const COLOUR_LEVELS = 4;
const EDGE_BINS = [8, 16, 32, 64, 128, 256, 512, Infinity];
const RINGS = 4;
const EDGE_WEIGHT = 0.5;
const RING_WEIGHT = 0.35;
/** 4×4×4 colour histogram + 8 edge-strength bins + 4 ring brightnesses (cube allows 100). */
export const DESCRIPTOR_DIMENSIONS = COLOUR_LEVELS ** 3 + EDGE_BINS.length + RINGS;

export interface DecodedImage {
  mime: string;
  width: number;
  height: number;
}

export interface ImageFeatures {
  /** DCT hash of the upright image. */
  phash: bigint;
  /** The colour/edge descriptor stored in the cube column. */
  embedding: number[];
}

export interface QueryVariant {
  /** Hashes of this reading of the photo in its 8 orientations (quarter turns and mirror). */
  hashes: bigint[];
  embedding: number[];
}

/**
 * The photo read as is, and read as a copy of a stored picture turned by a small angle (the turn undone and
 * the added corners cut off). The first variant is the photo as is; the search keeps each stored image's
 * best-matching variant.
 */
export interface QueryFeatures {
  variants: QueryVariant[];
}

const notAnImage = () => validationFailed('文件不是可识别的 JPEG、PNG 或 WebP 图片', { field: 'file' });

const open = (data: Buffer) => sharp(data, { limitInputPixels: MAX_PIXELS, failOn: 'error' });

/** The real type and upright size of the bytes; 400 when they are not a JPEG, PNG or WebP image. */
export async function decodeImage(data: Buffer): Promise<DecodedImage> {
  const meta = await open(data).metadata().catch(() => {
    throw notAnImage();
  });
  const mime = meta.format ? MIME_OF_FORMAT[meta.format] : undefined;
  if (!mime || !meta.width || !meta.height) throw notAnImage();
  const turned = (meta.orientation ?? 1) >= 5;
  return { mime, width: turned ? meta.height : meta.width, height: turned ? meta.width : meta.height };
}

/** Small turns undone on the query side (degrees; sharp turns clockwise for positive angles). */
const SMALL_ANGLES = [-20, -15, -10, -5, 5, 10, 15, 20];
/** Side of the working copy the variants are cut from (the grids are far smaller). */
const WORKING_SIDE = 256;

/** Features of a stored image (decoding the whole file: a truncated one is refused here). */
export async function imageFeatures(data: Buffer): Promise<ImageFeatures> {
  const { grey, rgb } = await samplesOf(upright(data));
  return { phash: perceptualHash(grey), embedding: descriptor(rgb) };
}

export async function queryFeatures(data: Buffer): Promise<QueryFeatures> {
  try {
    const { data: pixels, info } = await upright(data)
      .resize(WORKING_SIDE, WORKING_SIDE, { fit: 'inside' })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const raw = { width: info.width, height: info.height, channels: 3 as const };
    const readings = [sharp(pixels, { raw })];
    for (const angle of SMALL_ANGLES) {
      const undone = await undoSmallTurn(pixels, raw, angle);
      if (undone) readings.push(undone);
    }
    const variants = await Promise.all(
      readings.map(async (reading) => {
        const { grey, rgb } = await samplesOf(reading);
        return { hashes: orientationHashes(grey), embedding: descriptor(rgb) };
      }),
    );
    return { variants };
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw notAnImage();
  }
}

/** EXIF-upright, transparency on white. */
const upright = (data: Buffer) => open(data).rotate().flatten({ background: '#ffffff' });

/**
 * If the photo is a picture of size w×h turned by `angle` (canvas W×H with white corners), then
 * W = w·cos + h·sin and H = w·sin + h·cos; solving for w, h, turning back and cutting the centre w×h
 * gives the picture again. Undefined when no such picture fits.
 */
async function undoSmallTurn(pixels: Buffer, raw: { width: number; height: number; channels: 3 }, angle: number) {
  const cos = Math.cos((Math.abs(angle) * Math.PI) / 180);
  const sin = Math.sin((Math.abs(angle) * Math.PI) / 180);
  const det = cos * cos - sin * sin;
  const width = Math.floor((raw.width * cos - raw.height * sin) / det);
  const height = Math.floor((raw.height * cos - raw.width * sin) / det);
  if (width < 16 || height < 16) return undefined;
  const turned = await sharp(pixels, { raw }).rotate(-angle, { background: '#ffffff' }).raw().toBuffer({ resolveWithObject: true });
  const left = Math.max(0, Math.floor((turned.info.width - width) / 2));
  const top = Math.max(0, Math.floor((turned.info.height - height) / 2));
  return sharp(turned.data, { raw: { width: turned.info.width, height: turned.info.height, channels: turned.info.channels } }).extract({
    left,
    top,
    width: Math.min(width, turned.info.width - left),
    height: Math.min(height, turned.info.height - top),
  });
}

/** Squeezed to fixed grids (aspect and size no longer matter). */
async function samplesOf(image: Sharp): Promise<{ grey: Uint8Array; rgb: Uint8Array }> {
  try {
    const [grey, rgb] = await Promise.all([
      image.clone().greyscale().resize(HASH_SIDE, HASH_SIDE, { fit: 'fill' }).raw().toBuffer(),
      image.clone().resize(GRID, GRID, { fit: 'fill' }).removeAlpha().toColourspace('srgb').raw().toBuffer(),
    ]);
    return { grey, rgb };
  } catch {
    throw notAnImage();
  }
}

/** rgb: GRID² pixels × 3 channels. Every part is rotation invariant; values are rounded for a compact cube. */
function descriptor(rgb: Uint8Array): number[] {
  const grey = Array.from({ length: GRID * GRID }, (_, i) => 0.299 * rgb[i * 3]! + 0.587 * rgb[i * 3 + 1]! + 0.114 * rgb[i * 3 + 2]!);
  return [
    ...colourHistogram(rgb),
    ...edgeHistogram(grey).map((v) => v * EDGE_WEIGHT),
    ...ringBrightness(grey).map((v) => v * RING_WEIGHT),
  ].map((v) => Math.round(v * 10000) / 10000);
}

/**
 * Joint RGB histogram with soft (trilinear) binning, so JPEG noise near a bin edge moves weight smoothly.
 * Square roots of the shares: Euclidean distance then behaves like the Hellinger distance.
 */
function colourHistogram(rgb: Uint8Array): number[] {
  const n = COLOUR_LEVELS;
  const bins = new Array<number>(n ** 3).fill(0);
  const pixels = rgb.length / 3;
  for (let i = 0; i < pixels; i++) {
    const parts = [0, 1, 2].map((c) => {
      const p = (rgb[i * 3 + c]! / 255) * (n - 1);
      const low = Math.min(Math.floor(p), n - 2);
      return { low, frac: p - low };
    });
    for (let corner = 0; corner < 8; corner++) {
      let index = 0;
      let weight = 1;
      for (let c = 0; c < 3; c++) {
        const high = (corner >> c) & 1;
        index = index * n + parts[c]!.low + high;
        weight *= high ? parts[c]!.frac : 1 - parts[c]!.frac;
      }
      bins[index]! += weight;
    }
  }
  return bins.map((count) => Math.sqrt(count / pixels));
}

/** Shares of pixels by Sobel gradient strength (orientation left out: it turns with the image). */
function edgeHistogram(grey: number[]): number[] {
  const bins = new Array<number>(EDGE_BINS.length).fill(0);
  let total = 0;
  const at = (x: number, y: number) => grey[y * GRID + x]!;
  for (let y = 1; y < GRID - 1; y++) {
    for (let x = 1; x < GRID - 1; x++) {
      const gx = at(x + 1, y - 1) + 2 * at(x + 1, y) + at(x + 1, y + 1) - at(x - 1, y - 1) - 2 * at(x - 1, y) - at(x - 1, y + 1);
      const gy = at(x - 1, y + 1) + 2 * at(x, y + 1) + at(x + 1, y + 1) - at(x - 1, y - 1) - 2 * at(x, y - 1) - at(x + 1, y - 1);
      const magnitude = Math.hypot(gx, gy);
      total++;
      const bin = EDGE_BINS.findIndex((limit) => magnitude < limit);
      bins[bin]! += 1; // the first bin is the flat share
    }
  }
  return bins.map((count) => Math.sqrt(count / total));
}

/** Mean brightness (0–1) of concentric rings around the centre. */
function ringBrightness(grey: number[]): number[] {
  const sums = new Array<number>(RINGS).fill(0);
  const counts = new Array<number>(RINGS).fill(0);
  const centre = (GRID - 1) / 2;
  for (let y = 0; y < GRID; y++) {
    for (let x = 0; x < GRID; x++) {
      const ring = Math.min(RINGS - 1, Math.floor((Math.hypot(x - centre, y - centre) / (GRID / 2)) * RINGS));
      sums[ring]! += grey[y * GRID + x]!;
      counts[ring]! += 1;
    }
  }
  return sums.map((sum, i) => sum / counts[i]! / 255);
}
