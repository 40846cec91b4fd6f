import { Decimal } from 'decimal.js';

/**
 * Quantities are PostgreSQL numerics. They arrive from the driver as strings and leave as JSON
 * numbers (3, not "3.000"; 2.5 stays 2.5). Arithmetic happens in SQL or with Decimal, never floats.
 */
export function toQuantity(value: string | number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  return new Decimal(value).toNumber();
}

export function toQuantityOrZero(value: string | number | null | undefined): number {
  return toQuantity(value) ?? 0;
}

/** A JSON number from the request as an exact decimal string for a numeric parameter. */
export function toDecimalString(value: number | string): string {
  return new Decimal(value).toString();
}

export { Decimal };
