import { cellWidth, displayWidth, toCell, type Cell, type CellType } from './cells.js';
import { columnLetters, headerRowXml, rowXml, sheetEndXml, sheetStartXml } from './sheet-xml.js';

export interface SheetColumn<Row> {
  header: string;
  /** Type of the column's cells (see CellType); without it the value decides. */
  type?: CellType;
  /** Fixed width in characters; without it the header and the first rows size the column. */
  width?: number;
  value: (row: Row) => unknown;
}

/** Where a sheet's XML goes (a zip entry, or a spool for later); a write answers a promise when the caller must wait. */
export interface TextSink {
  write(text: string): Promise<void> | undefined;
}

/** Rows read before the columns are sized; the widths precede the first row in the file. */
const WIDTH_SAMPLE_ROWS = 200;
const MIN_WIDTH = 8;
const MAX_WIDTH = 60;
const HEADER_PADDING = 4; // bold text plus the filter button
const CELL_PADDING = 2;
function fittedWidth(header: string, sample: readonly Cell[]): number {
  const widest = sample.reduce((max, cell) => Math.max(max, cellWidth(cell) + CELL_PADDING), displayWidth(header) + HEADER_PADDING);
  return Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, widest));
}

/**
 * One worksheet's XML, row by row: the first rows are held until they have sized the columns, then
 * every row goes to the sink as it comes. finish() closes the sheet with its filter range.
 */
export class SheetWriter<Row> {
  private readonly letters: string[];
  private sample: Cell[][] | null = [];
  private rowCount = 0;

  constructor(
    private readonly sink: TextSink,
    private readonly columns: readonly SheetColumn<Row>[],
    private readonly selected: boolean,
  ) {
    this.letters = columns.map((_, index) => columnLetters(index));
  }

  async add(row: Row): Promise<void> {
    const cells = this.columns.map((column) => toCell(column.value(row), column.type));
    this.rowCount += 1;
    if (!this.sample) {
      const full = this.sink.write(rowXml(this.rowCount + 1, cells, this.letters));
      if (full) await full;
    } else if (this.sample.push(cells) === WIDTH_SAMPLE_ROWS) await this.open();
  }

  /** Ends the sheet; answers the range its filter covers (header and data), null without columns. */
  async finish(): Promise<string | null> {
    if (this.sample) await this.open();
    // The filter spans header and data, so sorting and filtering in any program covers every row.
    const filterRange = this.letters.length > 0 ? `A1:${this.letters.at(-1)}${this.rowCount + 1}` : null;
    await this.text(sheetEndXml(filterRange));
    return filterRange;
  }

  /** Frozen pane, sized columns, bold header, then the sampled rows. */
  private async open(): Promise<void> {
    const sample = this.sample ?? [];
    this.sample = null;
    const widths = this.columns.map((column, index) => column.width ?? fittedWidth(column.header, sample.map((cells) => cells[index]!)));
    await this.text(sheetStartXml(widths, this.selected) + headerRowXml(this.columns.map((column) => column.header), this.letters));
    for (const [index, cells] of sample.entries()) await this.text(rowXml(index + 2, cells, this.letters));
  }

  /** Row by row into the sink, which encodes as it goes; waits only when the sink is full. */
  private async text(xml: string): Promise<void> {
    const full = this.sink.write(xml);
    if (full) await full;
  }
}
