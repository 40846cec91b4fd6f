/**
 * DCT perceptual hash (pHash) of a 32×32 greyscale image: the 8×8 lowest frequencies of its 2-D DCT,
 * each bit set when the coefficient is above their median (the DC term is left out of the median, it
 * only carries brightness). Similar images differ in few bits; unrelated ones in about 32 of 64.
 */
export const HASH_SIDE = 32;
const LOW = 8;

/** cos((2x+1)uπ / 2N) for the first LOW frequencies, computed once. */
const COSINES: number[][] = Array.from({ length: LOW }, (_, u) =>
  Array.from({ length: HASH_SIDE }, (_, x) => Math.cos(((2 * x + 1) * u * Math.PI) / (2 * HASH_SIDE))),
);

/** pixels: HASH_SIDE² grey values, row by row. Returns the hash as a signed 64-bit integer (a bigint column). */
export function perceptualHash(pixels: ArrayLike<number>): bigint {
  const rows: number[][] = Array.from({ length: HASH_SIDE }, (_, y) =>
    COSINES.map((cos) => {
      let sum = 0;
      for (let x = 0; x < HASH_SIDE; x++) sum += pixels[y * HASH_SIDE + x]! * cos[x]!;
      return sum;
    }),
  );
  const coefficients: number[] = [];
  for (let v = 0; v < LOW; v++) {
    for (let u = 0; u < LOW; u++) {
      let sum = 0;
      for (let y = 0; y < HASH_SIDE; y++) sum += rows[y]![u]! * COSINES[v]![y]!;
      coefficients.push(sum);
    }
  }
  const sorted = coefficients.slice(1).sort((a, b) => a - b);
  const median = (sorted[31]! + sorted[32]!) / 2;
  let hash = 0n;
  for (const c of coefficients) hash = (hash << 1n) | (c > median ? 1n : 0n);
  return BigInt.asIntN(64, hash);
}

/** The square pixel grid turned a quarter to the right (exact: no resampling). */
export function rotateQuarter(pixels: ArrayLike<number>, side = HASH_SIDE): number[] {
  const out = new Array<number>(side * side);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) out[x * side + (side - 1 - y)] = pixels[y * side + x]!;
  }
  return out;
}

/** The grid mirrored left to right. */
export function mirror(pixels: ArrayLike<number>, side = HASH_SIDE): number[] {
  const out = new Array<number>(side * side);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) out[y * side + x] = pixels[y * side + (side - 1 - x)]!;
  }
  return out;
}

/** Hashes of the grid in its 8 orientations (4 quarter turns, each also mirrored); the first is upright. */
export function orientationHashes(pixels: ArrayLike<number>): bigint[] {
  const hashes: bigint[] = [];
  let grid = Array.from(pixels);
  for (let turn = 0; turn < 4; turn++) {
    hashes.push(perceptualHash(grid), perceptualHash(mirror(grid)));
    grid = rotateQuarter(grid);
  }
  return hashes;
}

export function hammingDistance(a: bigint, b: bigint): number {
  let x = BigInt.asUintN(64, a ^ b);
  let count = 0;
  while (x) {
    x &= x - 1n;
    count++;
  }
  return count;
}
