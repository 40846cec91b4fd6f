import { DATE_FORMAT, DATETIME_FORMAT, type Cell } from './cells.js';

/*
 * The SpreadsheetML (ECMA-376) text of a workbook, written row by row. Text cells are inline strings
 * (t="inlineStr"): a constant, never a formula, and text that begins like one (=, +, -, @) carries a
 * leading apostrophe (cells.ts neutralisedText); there is no <f> element anywhere. They are formatted as Text ('@'), so
 * editing a cell and pressing Enter keeps it text. Inline strings need no shared-strings table,
 * which would hold every distinct text of the file in memory until the end.
 */

const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** Indexes into cellXfs of STYLES_XML. */
const STYLE = { text: 1, datetime: 2, date: 3, header: 4 } as const;
/** Built-in number format 49 is Text ('@'); 164 and up are the file's own. */
const TEXT_FORMAT_ID = 49;
const EXCEL_EPOCH_DAYS = 25569; // 1970-01-01 as a spreadsheet serial day (1900 date system)
const MS_PER_DAY = 86_400_000;

// Characters XML 1.0 cannot carry are dropped (as exceljs did); markup characters are escaped.
/* eslint-disable no-control-regex -- matching the control characters is the point */
const NEEDS_ESCAPE = /[&<>"\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const ESCAPED = /[&<>"\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
const EDGE_SPACE = /^\s|\s$/;
/** Text that needs escaping or an xml:space attribute (NEEDS_ESCAPE or EDGE_SPACE), tested once. */
const NEEDS_CARE = /[&<>"\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|^\s|\s$/;
/* eslint-enable no-control-regex */
const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

export function escapeXml(text: string): string {
  return NEEDS_ESCAPE.test(text) ? text.replace(ESCAPED, (character) => ENTITY[character] ?? '') : text;
}

/** 'A', 'B', … 'Z', 'AA', … for a 0-based column index. */
export function columnLetters(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

const serialDay = (wallClock: Date) => EXCEL_EPOCH_DAYS + wallClock.getTime() / MS_PER_DAY;

function inlineText(ref: string, style: number, text: string): string {
  if (!NEEDS_CARE.test(text)) return `<c r="${ref}" s="${style}" t="inlineStr"><is><t>${text}</t></is></c>`; // most cells: one test
  const space = EDGE_SPACE.test(text) ? ' xml:space="preserve"' : ''; // spreadsheet programs trim otherwise
  return `<c r="${ref}" s="${style}" t="inlineStr"><is><t${space}>${escapeXml(text)}</t></is></c>`;
}

function cellXml(ref: string, cell: Cell): string {
  switch (cell.kind) {
    case 'empty':
      return '';
    case 'text':
      return inlineText(ref, STYLE.text, cell.value);
    case 'number':
      return `<c r="${ref}"><v>${cell.value}</v></c>`;
    case 'datetime':
    case 'date':
      return `<c r="${ref}" s="${STYLE[cell.kind]}"><v>${serialDay(cell.value)}</v></c>`;
  }
}

/** One data row; `letters` are the sheet's column letters. */
export function rowXml(rowNumber: number, cells: readonly Cell[], letters: readonly string[]): string {
  let xml = `<row r="${rowNumber}">`;
  for (let index = 0; index < cells.length; index += 1) xml += cellXml(letters[index]! + rowNumber, cells[index]!);
  return `${xml}</row>`;
}

export function headerRowXml(headers: readonly string[], letters: readonly string[]): string {
  return `<row r="1">${headers.map((header, index) => inlineText(`${letters[index]}1`, STYLE.header, header)).join('')}</row>`;
}

/** Everything before the first row: the frozen header pane and the column widths. */
export function sheetStartXml(widths: readonly number[], selected: boolean): string {
  const cols = widths.map((width, index) => `<col min="${index + 1}" max="${index + 1}" width="${width}" customWidth="1"/>`).join('');
  return (
    `${XML_DECLARATION}<worksheet xmlns="${MAIN_NS}" xmlns:r="${REL_NS}">` +
    `<sheetViews><sheetView workbookViewId="0"${selected ? ' tabSelected="1"' : ''}>` +
    '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>' +
    '<selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView></sheetViews>' +
    '<sheetFormatPr defaultRowHeight="15"/>' +
    (cols ? `<cols>${cols}</cols>` : '') +
    '<sheetData>'
  );
}

/** Everything after the last row: the filter over header and data (`range` like 'A1:L100001'). */
export function sheetEndXml(filterRange: string | null): string {
  return `</sheetData>${filterRange ? `<autoFilter ref="${filterRange}"/>` : ''}</worksheet>`;
}

export interface SheetEntry {
  name: string;
  /** The filtered range, null for a sheet without columns. */
  filterRange: string | null;
}

const sheetPath = (index: number) => `worksheets/sheet${index + 1}.xml`;
const quotedSheetName = (name: string) => `'${name.replace(/'/g, "''")}'`;
const absoluteRange = (range: string) => range.replace(/([A-Z]+)(\d+)/g, '$$$1$$$2');

/** The workbook part, written last: the filter ranges are known only once every row is written. */
export function workbookXml(sheets: readonly SheetEntry[]): string {
  const entries = sheets.map((sheet, index) => `<sheet name="${escapeXml(sheet.name)}" sheetId="${index + 1}" r:id="rId${index + 1}"/>`);
  // Excel keeps each sheet's filter range under this hidden name; other programs read <autoFilter>.
  const filters = sheets.flatMap((sheet, index) =>
    sheet.filterRange
      ? [`<definedName name="_xlnm._FilterDatabase" localSheetId="${index}" hidden="1">${escapeXml(`${quotedSheetName(sheet.name)}!${absoluteRange(sheet.filterRange)}`)}</definedName>`]
      : [],
  );
  return (
    `${XML_DECLARATION}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}">` +
    '<bookViews><workbookView activeTab="0"/></bookViews>' +
    `<sheets>${entries.join('')}</sheets>` +
    (filters.length > 0 ? `<definedNames>${filters.join('')}</definedNames>` : '') +
    '</workbook>'
  );
}

export function workbookRelsXml(sheetCount: number): string {
  const sheets = Array.from({ length: sheetCount }, (_, index) => `<Relationship Id="rId${index + 1}" Type="${REL_NS}/worksheet" Target="${sheetPath(index)}"/>`);
  return `${XML_DECLARATION}<Relationships xmlns="${PACKAGE_REL_NS}">${sheets.join('')}<Relationship Id="rId${sheetCount + 1}" Type="${REL_NS}/styles" Target="styles.xml"/></Relationships>`;
}

export function contentTypesXml(sheetCount: number): string {
  const sheetml = 'application/vnd.openxmlformats-officedocument.spreadsheetml';
  const sheets = Array.from({ length: sheetCount }, (_, index) => `<Override PartName="/xl/${sheetPath(index)}" ContentType="${sheetml}.worksheet+xml"/>`);
  return (
    `${XML_DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    `<Override PartName="/xl/workbook.xml" ContentType="${sheetml}.sheet.main+xml"/>` +
    `<Override PartName="/xl/styles.xml" ContentType="${sheetml}.styles+xml"/>` +
    `${sheets.join('')}</Types>`
  );
}

export const ROOT_RELS_XML = `${XML_DECLARATION}<Relationships xmlns="${PACKAGE_REL_NS}"><Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`;

const FONT = '<sz val="11"/><name val="Calibri"/><family val="2"/><scheme val="minor"/>';
const xf = (numFmtId: number, fontId = 0) =>
  `<xf numFmtId="${numFmtId}" fontId="${fontId}" fillId="0" borderId="0" xfId="0"${numFmtId ? ' applyNumberFormat="1"' : ''}${fontId ? ' applyFont="1"' : ''}/>`;

/** cellXfs in the order of STYLE: default, text, datetime, date, bold text header. */
export const STYLES_XML =
  `${XML_DECLARATION}<styleSheet xmlns="${MAIN_NS}">` +
  `<numFmts count="2"><numFmt numFmtId="164" formatCode="${DATETIME_FORMAT}"/><numFmt numFmtId="165" formatCode="${DATE_FORMAT}"/></numFmts>` +
  `<fonts count="2"><font>${FONT}</font><font><b/>${FONT}</font></fonts>` +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  `<cellXfs count="5">${xf(0)}${xf(TEXT_FORMAT_ID)}${xf(164)}${xf(165)}${xf(TEXT_FORMAT_ID, 1)}</cellXfs>` +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
  '</styleSheet>';
