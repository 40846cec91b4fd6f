import sharp from 'sharp';

/** A small deterministic PRNG (mulberry32), so every run draws the same pictures. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PALETTE = ['#d32f2f', '#1976d2', '#388e3c', '#fbc02d', '#7b1fa2', '#f57c00', '#455a64', '#c2185b', '#00838f', '#5d4037', '#9e9d24', '#212121'];

/**
 * A distinct synthetic "product photo" for seed n: a tinted background and five to eight shapes (circles,
 * rectangles, triangles, stripes) in colours and places drawn from the seed, rendered by sharp from SVG.
 */
export async function syntheticImage(seed: number, size = { width: 480, height: 360 }): Promise<Buffer> {
  const next = random(seed * 7919 + 17);
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)]!;
  const { width, height } = size;
  const shapes: string[] = [];
  const count = 5 + Math.floor(next() * 4);
  for (let i = 0; i < count; i++) {
    const colour = pick(PALETTE);
    const x = next() * width;
    const y = next() * height;
    const s = 30 + next() * 120;
    switch (Math.floor(next() * 4)) {
      case 0:
        shapes.push(`<circle cx="${x}" cy="${y}" r="${s / 2}" fill="${colour}"/>`);
        break;
      case 1:
        shapes.push(`<rect x="${x - s / 2}" y="${y - s / 3}" width="${s}" height="${(s * 2) / 3}" fill="${colour}" transform="rotate(${next() * 90} ${x} ${y})"/>`);
        break;
      case 2:
        shapes.push(`<polygon points="${x},${y - s / 2} ${x + s / 2},${y + s / 2} ${x - s / 2},${y + s / 2}" fill="${colour}"/>`);
        break;
      default:
        for (let k = 0; k < 4; k++) {
          shapes.push(`<rect x="${x + k * s * 0.25}" y="${y - s / 2}" width="${s * 0.12}" height="${s}" fill="${colour}"/>`);
        }
    }
  }
  const background = `hsl(${Math.floor(next() * 360)}, ${20 + Math.floor(next() * 50)}%, ${55 + Math.floor(next() * 35)}%)`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="${background}"/>${shapes.join('')}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

export type Transformation = { name: string; apply: (image: Buffer) => Promise<Buffer> };

const cropTo = (share: number, anchor: 'centre' | 'corner') => async (image: Buffer) => {
  const { width = 0, height = 0 } = await sharp(image).metadata();
  const w = Math.round(width * share);
  const h = Math.round(height * share);
  const left = anchor === 'centre' ? Math.round((width - w) / 2) : 0;
  const top = anchor === 'centre' ? Math.round((height - h) / 2) : 0;
  return sharp(image).extract({ left, top, width: w, height: h }).jpeg({ quality: 85 }).toBuffer();
};

const scaleBy = (factor: number) => async (image: Buffer) => {
  const { width = 0 } = await sharp(image).metadata();
  return sharp(image).resize({ width: Math.round(width * factor) }).jpeg({ quality: 85 }).toBuffer();
};

/** The copies a user's photo of a stored picture is likely to be: turned, resized, cut, re-compressed. */
export const TRANSFORMATIONS: Transformation[] = [
  { name: 'rotate 90°', apply: (image) => sharp(image).rotate(90).jpeg({ quality: 85 }).toBuffer() },
  { name: 'rotate 180°', apply: (image) => sharp(image).rotate(180).jpeg({ quality: 85 }).toBuffer() },
  { name: 'rotate 270°', apply: (image) => sharp(image).rotate(270).jpeg({ quality: 85 }).toBuffer() },
  { name: 'rotate 7°', apply: (image) => sharp(image).rotate(7, { background: '#ffffff' }).jpeg({ quality: 85 }).toBuffer() },
  { name: 'rotate -15°', apply: (image) => sharp(image).rotate(-15, { background: '#ffffff' }).jpeg({ quality: 85 }).toBuffer() },
  { name: 'scale 0.4×', apply: scaleBy(0.4) },
  { name: 'scale 2×', apply: scaleBy(2) },
  { name: 'crop centre 80%', apply: cropTo(0.8, 'centre') },
  { name: 'crop corner 70%', apply: cropTo(0.7, 'corner') },
  { name: 'JPEG quality 20', apply: (image) => sharp(image).jpeg({ quality: 20 }).toBuffer() },
  { name: 'WebP quality 30', apply: (image) => sharp(image).webp({ quality: 30 }).toBuffer() },
  { name: 'mirror + scale 0.6× + JPEG 50', apply: (image) => sharp(image).flop().resize({ width: 288 }).jpeg({ quality: 50 }).toBuffer() },
];
