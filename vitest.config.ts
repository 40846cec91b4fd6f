import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['apps/*/test/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'scripts/test/**/*.test.ts'],
    globalSetup: ['scripts/test/pglite-templates.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    // A worker imports the services once and runs its files one after another (decisions Platform 25):
    // each file still builds its own service on its own database and closes it.
    isolate: false,
  },
});
