import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * An 8-bit grayscale PNG with no alpha channel: pdfkit embeds such a file as it is (DeviceGray with the PNG
 * predictor), where an RGBA file would be decoded and split into an image and a soft mask on every label.
 */
export function grayPng(width: number, height: number, isDark: (x: number, y: number) => boolean): Buffer {
  const stride = width + 1; // each scanline starts with its filter byte, 0 (None)
  const scanlines = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) scanlines[y * stride + 1 + x] = isDark(x, y) ? 0x00 : 0xff;
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8); // bit depth; colour type 0 (gray), compression, filter and interlace 0
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(scanlines)), chunk('IEND', Buffer.alloc(0))]);
}

function chunk(type: string, body: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), body]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}
