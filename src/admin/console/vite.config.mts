import path from 'node:path';
import { defineConfig } from 'vite';

// Built by `npm run build:console` (part of `npm install`) into dist/console, which the service
// serves under /admin. No CDN: everything the page loads is in that folder.
export default defineConfig({
  root: import.meta.dirname,
  base: '/admin/',
  build: {
    outDir: path.resolve(import.meta.dirname, '../../../dist/console'),
    emptyOutDir: true,
    sourcemap: true,
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  server: { proxy: { '/graphql': 'http://127.0.0.1:4000' } },
});
