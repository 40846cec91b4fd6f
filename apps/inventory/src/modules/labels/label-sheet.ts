import PDFDocument from 'pdfkit';
import { renderBarcode, type BarcodeSymbology } from './barcodes.js';

/** One label: the barcodes of `code`, the code printed large, then the detail lines under it. */
export interface Label {
  code: string;
  symbologies: readonly BarcodeSymbology[];
  lines: readonly string[];
  /** Points; a location label prints its path large enough to read from the aisle. */
  titleSize?: number;
}

export interface SheetLayout {
  columns: number;
  rows: number;
}

/** 2 × 8 on A4: labels of about 94 × 33 mm, room for a QR, a Code 128 and four lines. */
export const DEFAULT_LAYOUT: SheetLayout = { columns: 2, rows: 8 };

/** A TrueType/OpenType font with CJK glyphs (LABEL_FONT_PATH); `family` picks one font of a .ttc collection. */
export interface LabelFont {
  path: string;
  family?: string;
}

export interface SheetOptions {
  layout: SheetLayout;
  /** Without it text is printed in Helvetica, ASCII only. */
  font?: LabelFont;
}

const A4 = { width: 595.28, height: 841.89 };
const PAGE_MARGIN = 28; // 10 mm: inside every office printer's printable area
const GAP = 6;
const PADDING = 6;
const TITLE_SIZE = 9;
const LINE_SIZE = 7;
const YIELD_EVERY = 25;

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An A4 PDF with the labels in a grid, left to right then top to bottom, as many pages as needed. */
export async function renderLabelSheet(labels: readonly Label[], options: SheetOptions): Promise<Buffer> {
  const images = await renderImages(labels);
  const doc = new PDFDocument({ size: 'A4', margin: 0, info: { Title: 'Labels' } });
  const done = collect(doc);
  const fonts = useFonts(doc, options.font);
  const perPage = options.layout.columns * options.layout.rows;
  labels.forEach((label, index) => {
    if (index > 0 && index % perPage === 0) doc.addPage({ size: 'A4', margin: 0 });
    const box = cellOf(index % perPage, options.layout);
    drawLabel(doc, fonts, label, box, (symbology) => images.get(imageKey(symbology, label.code))!);
  });
  doc.end();
  return done;
}

function collect(doc: PDFKit.PDFDocument): Promise<Buffer> {
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}

const imageKey = (symbology: BarcodeSymbology, code: string) => `${symbology}\u0000${code}`;

/**
 * Each distinct barcode is rendered once, however often it is printed. Encoding a QR costs a few ms of CPU:
 * the loop yields to the event loop between batches, so a 500-label sheet does not stall other requests.
 */
async function renderImages(labels: readonly Label[]): Promise<Map<string, Buffer>> {
  const images = new Map<string, Buffer>();
  for (const [index, label] of labels.entries()) {
    if (index > 0 && index % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
    for (const symbology of label.symbologies) {
      const key = imageKey(symbology, label.code);
      if (!images.has(key)) images.set(key, renderBarcode(symbology, label.code));
    }
  }
  return images;
}

interface Fonts {
  title: string;
  line: string;
  /** Helvetica's WinAnsi encoding has no CJK: without a configured font, anything outside ASCII prints as '?'. */
  printable(text: string): string;
}

function useFonts(doc: PDFKit.PDFDocument, font: LabelFont | undefined): Fonts {
  if (!font) return { title: 'Helvetica-Bold', line: 'Helvetica', printable: (text) => text.replace(/[^\x20-\x7e]/g, '?') };
  doc.registerFont('label', font.path, font.family);
  return { title: 'label', line: 'label', printable: (text) => text };
}

/**
 * Opens the configured font once at start-up and lays out a Chinese sample, so an unreadable file or a
 * collection without a family stops the start instead of failing every sheet.
 */
export function assertUsableFont(font: LabelFont): void {
  try {
    const doc = new PDFDocument({ autoFirstPage: false });
    doc.registerFont('label', font.path, font.family);
    doc.font('label').widthOfString('库位 A/01');
  } catch (error) {
    const collection = /\.(ttc|otc)$/i.test(font.path) && !font.family;
    const hint = collection ? '；字体集合 (.ttc) 须以 LABEL_FONT_FAMILY 指定其中一款的 PostScript 名称' : '';
    throw new Error(`LABEL_FONT_PATH 字体无法使用："${font.path}"${hint}（${(error as Error).message}）`, { cause: error });
  }
}

function cellOf(slot: number, layout: SheetLayout): Box {
  const width = (A4.width - 2 * PAGE_MARGIN - GAP * (layout.columns - 1)) / layout.columns;
  const height = (A4.height - 2 * PAGE_MARGIN - GAP * (layout.rows - 1)) / layout.rows;
  const column = slot % layout.columns;
  const row = Math.floor(slot / layout.columns);
  return { x: PAGE_MARGIN + column * (width + GAP), y: PAGE_MARGIN + row * (height + GAP), width, height };
}

/** QR on the left (square), Code 128 across the top of the rest, then the code and the lines under it. */
function drawLabel(doc: PDFKit.PDFDocument, fonts: Fonts, label: Label, cell: Box, image: (s: BarcodeSymbology) => Buffer) {
  doc.lineWidth(0.5).strokeColor('#bbbbbb').rect(cell.x, cell.y, cell.width, cell.height).stroke();
  const inner: Box = { x: cell.x + PADDING, y: cell.y + PADDING, width: cell.width - 2 * PADDING, height: cell.height - 2 * PADDING };
  let text = inner;
  if (label.symbologies.includes('qr')) {
    const side = Math.min(inner.height, inner.width * 0.4);
    doc.image(image('qr'), inner.x, inner.y, { fit: [side, side] });
    text = { x: inner.x + side + PADDING, y: inner.y, width: inner.width - side - PADDING, height: inner.height };
  }
  if (label.symbologies.includes('code128')) {
    const height = text.height * 0.4;
    doc.image(image('code128'), text.x, text.y, { fit: [text.width, height] });
    text = { ...text, y: text.y + height + 2, height: text.height - height - 2 };
  }
  drawLines(doc, fonts, label, text);
}

function drawLines(doc: PDFKit.PDFDocument, fonts: Fonts, label: Label, box: Box) {
  const bottom = box.y + box.height;
  let y = box.y;
  const entries = [{ font: fonts.title, size: label.titleSize ?? TITLE_SIZE, text: label.code }, ...label.lines.map((text) => ({ font: fonts.line, size: LINE_SIZE, text }))];
  doc.fillColor('#000000');
  for (const entry of entries) {
    const lineHeight = entry.size * 1.25;
    if (y + lineHeight > bottom) break; // a label never spills into its neighbour
    doc.font(entry.font).fontSize(entry.size);
    doc.text(fonts.printable(entry.text), box.x, y, { width: box.width, height: lineHeight, ellipsis: true, lineBreak: false });
    y += lineHeight;
  }
}
