import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { crc32, deflateSync, inflateSync } from 'node:zlib';
import { PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream, type PDFObject } from 'pdf-lib';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';

export interface DecodedBarcode {
  format: string;
  text: string;
}

/** Every barcode printed on a PDF sheet: each embedded image is re-wrapped as a PNG and read by ZXing. */
export async function decodePdfBarcodes(pdf: Buffer): Promise<DecodedBarcode[]> {
  await readerReady();
  const decoded: DecodedBarcode[] = [];
  for (const png of await embeddedImagesAsPng(pdf)) {
    for (const barcode of await readBarcodes(png)) decoded.push({ format: barcode.format, text: barcode.text });
  }
  return decoded;
}

let ready: Promise<unknown> | undefined;
/** The wasm ships inside the package: load it from disk, never from a CDN. */
function readerReady() {
  ready ??= prepareZXingModule({ overrides: { wasmBinary: readerWasm() }, fireImmediately: true });
  return ready;
}

function readerWasm(): ArrayBuffer {
  const wasm = readFileSync(createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm'));
  return wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer;
}

/** The image XObjects of a PDF (soft masks left out), as PNG files. */
export async function embeddedImagesAsPng(pdf: Buffer): Promise<Uint8Array[]> {
  const doc = await PDFDocument.load(pdf);
  const images = doc.context.enumerateIndirectObjects().flatMap(([, object]) => (isImage(object) ? [object] : []));
  const masks = new Set(images.map((image) => image.dict.get(PDFName.of('SMask'))?.toString()).filter(Boolean));
  return images.filter((image) => !masks.has(doc.context.getObjectRef(image)?.toString())).map(toPng);
}

const isImage = (object: PDFObject): object is PDFRawStream =>
  object instanceof PDFRawStream && object.dict.get(PDFName.of('Subtype')) === PDFName.of('Image');

const numberOf = (dict: PDFDict, key: string) => dict.lookup(PDFName.of(key), PDFNumber).asNumber();

/**
 * A FlateDecode image stream is a PNG IDAT once its scanlines carry filter bytes: either it has them already
 * (DecodeParms with a PNG predictor, as pdfkit embeds an opaque PNG) or each row gets filter 0 (None).
 */
function toPng(image: PDFRawStream): Uint8Array {
  const { dict } = image;
  const width = numberOf(dict, 'Width');
  const height = numberOf(dict, 'Height');
  const bits = numberOf(dict, 'BitsPerComponent');
  const gray = dict.get(PDFName.of('ColorSpace')) === PDFName.of('DeviceGray');
  const parms = dict.lookupMaybe(PDFName.of('DecodeParms'), PDFDict); // pdfkit writes it as an indirect object
  const predicted = parms !== undefined && numberOf(parms, 'Predictor') >= 10;
  const data = inflateSync(image.getContents());
  const scanlines = predicted ? data : withFilterBytes(data, height, (width * (gray ? 1 : 3) * bits) / 8);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(bits, 8);
  header.writeUInt8(gray ? 0 : 2, 9);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(scanlines)), chunk('IEND', Buffer.alloc(0))]);
}

function withFilterBytes(data: Buffer, height: number, rowBytes: number): Buffer {
  const out = Buffer.alloc(height * (rowBytes + 1));
  for (let row = 0; row < height; row++) data.copy(out, row * (rowBytes + 1) + 1, row * rowBytes, (row + 1) * rowBytes);
  return out;
}

function chunk(type: string, body: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), body]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}
