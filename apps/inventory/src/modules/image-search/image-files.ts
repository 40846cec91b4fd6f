import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';

/**
 * Image bytes as files under DATA_DIR/material-images/<base_id>/ (decisions, image search): the database
 * row keeps the relative path, so rows, audit records and backups of the database stay small.
 */
const FOLDER = 'material-images';
const EXTENSIONS: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' };

export async function saveImageFile(dataDir: string, baseId: number, mime: string, data: Buffer): Promise<string> {
  const relative = join(FOLDER, String(baseId), `${randomUUID()}.${EXTENSIONS[mime] ?? 'bin'}`);
  const path = absolute(dataDir, relative);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, data, { flag: 'wx' });
  return relative;
}

export const readImageFile = (dataDir: string, relative: string) => readFile(absolute(dataDir, relative));

/** Best effort: a file left behind is only wasted space, never a wrong answer. */
export async function removeImageFile(dataDir: string, relative: string): Promise<void> {
  await rm(absolute(dataDir, relative), { force: true }).catch(() => undefined);
}

/** The stored path stays inside the images folder whatever the row says. */
function absolute(dataDir: string, relative: string): string {
  const root = resolve(dataDir, FOLDER);
  const path = resolve(dataDir, relative);
  if (!path.startsWith(root + sep)) throw new Error(`image path outside ${root}: ${relative}`);
  return path;
}
