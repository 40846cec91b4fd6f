// Opens a PGlite data folder from a second process; used to prove the folder lock.
import { openDatabase } from '@wms/platform';
import { INVENTORY_MIGRATIONS, INVENTORY_PGLITE_EXTENSIONS } from '../../src/app.js';

try {
  const database = await openDatabase({ url: process.argv[2]!, migrationsFolder: INVENTORY_MIGRATIONS, pgliteExtensions: INVENTORY_PGLITE_EXTENSIONS });
  await database.close();
  console.log('opened');
} catch (err) {
  console.error((err as Error).message);
  process.exit(3);
}
