import bwipjs from 'bwip-js';
import { grayPng } from './gray-png.js';

export type BarcodeSymbology = 'code128' | 'qr';

/** Printable ASCII: what every Code 128 scanner reads back unchanged (Latin-1 through FNC4 varies by scanner). */
const CODE128_SAFE = /^[\x20-\x7e]+$/;

export const fitsCode128 = (text: string) => CODE128_SAFE.test(text);

/**
 * The barcodes a label carries: the one asked for, or both. Text that Code 128 cannot carry reliably
 * (non-ASCII) gets the QR instead, so every label asked for is printed and scannable.
 */
export function symbologiesFor(text: string, format: BarcodeSymbology | undefined): BarcodeSymbology[] {
  const wanted: BarcodeSymbology[] = format ? [format] : ['qr', 'code128'];
  const printable = wanted.filter((symbology) => symbology === 'qr' || fitsCode128(text));
  return printable.length > 0 ? printable : ['qr'];
}

const QR_QUIET = 4; // modules, ISO/IEC 18004
const QR_PIXELS = 4; // per module
const CODE128_QUIET = 10; // modules, ISO/IEC 15417
const CODE128_PIXELS = 2; // per module
const CODE128_HEIGHT = 60; // pixels; the label scales the image to its box

type Matrix = { pixs: number[]; pixx: number; pixy: number };
type Bars = { sbs: number[] };

/**
 * One barcode as a grayscale PNG with its quiet zone drawn in, pixels whole multiples of a module. bwip-js
 * encodes (BWIPP) and answers the module matrix; drawing it here is cheaper than bwip-js's RGBA renderer.
 * QR carries the text as UTF-8 (error correction M, the BWIPP default), so a Chinese path scans as written.
 */
export function renderBarcode(symbology: BarcodeSymbology, text: string): Buffer {
  const [symbol] = bwipjs.raw({ bcid: symbology === 'qr' ? 'qrcode' : 'code128', text });
  if (symbol && 'pixs' in symbol && symbology === 'qr') return qrPng(symbol);
  if (symbol && 'sbs' in symbol && symbology === 'code128') return code128Png(symbol);
  throw new Error(`bwip-js answered no ${symbology} symbol`);
}

function qrPng(symbol: Matrix): Buffer {
  const side = (symbol.pixx + 2 * QR_QUIET) * QR_PIXELS;
  return grayPng(side, side, (x, y) => {
    const column = Math.floor(x / QR_PIXELS) - QR_QUIET;
    const row = Math.floor(y / QR_PIXELS) - QR_QUIET;
    return column >= 0 && row >= 0 && column < symbol.pixx && row < symbol.pixy && symbol.pixs[row * symbol.pixx + column] === 1;
  });
}

/** `sbs` alternates bar and space widths in modules, starting with a bar. */
function code128Png(symbol: Bars): Buffer {
  const modules: boolean[] = new Array<boolean>(CODE128_QUIET).fill(false);
  symbol.sbs.forEach((width, index) => modules.push(...new Array<boolean>(width).fill(index % 2 === 0)));
  modules.push(...new Array<boolean>(CODE128_QUIET).fill(false));
  return grayPng(modules.length * CODE128_PIXELS, CODE128_HEIGHT, (x) => modules[Math.floor(x / CODE128_PIXELS)]!);
}
