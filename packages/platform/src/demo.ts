/**
 * Demo data both services share: the finished-product serial numbers stocked in the inventory demo
 * are the serials of the tracking demo's products, so a stock-in or outbound can be followed across.
 */
export const DEMO_COMPANIES = ['ALPHA', 'BETA'] as const;
export const DEMO_PASSWORD = 'demo1234';

export const DEMO_PRODUCT_SERIALS = [
  'A00000000000C101',
  'A00000000000C102',
  'A00000000000C103',
  'A00000000000C104',
  'A00000000000C105',
  'A00000000000D201',
] as const;
