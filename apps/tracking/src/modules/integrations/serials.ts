/** Serial numbers are stored upper-case; a notification's serial is matched trimmed and upper-cased. */
export function normalizeSerial(value: string | null | undefined): string | null {
  const serial = value?.trim().toUpperCase();
  return serial ? serial : null;
}
