import QRCode from 'qrcode';

/** The label size of spec §8. */
export const QR_SIZE = 300;

/**
 * A PNG of exactly QR_SIZE × QR_SIZE encoding only the given text. With a width the library scales the
 * modules to fill it (verified for every text up to 64 characters: the code stays below 300 modules);
 * a 2-module quiet zone keeps small labels readable.
 */
export function renderQrPng(text: string): Promise<Buffer> {
  return QRCode.toBuffer(text, { type: 'png', width: QR_SIZE, margin: 2, errorCorrectionLevel: 'M' });
}
