import react from '@vitejs/plugin-react';
import { defineConfig, defaultClientConditions } from 'vite';

// Chunks live under /static/js as docs/product.md section 7 says; the API server serves dist/ on its own port.
export default defineConfig({
  root: __dirname,
  plugins: [react()],
  // `#contract/*` (package.json "imports") points the `source` condition at src/contract's TypeScript (docs/contract.md).
  resolve: { conditions: ['source', ...defaultClientConditions] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rolldownOptions: {
      output: {
        entryFileNames: 'static/js/[name]-[hash].js',
        chunkFileNames: 'static/js/[name]-[hash].js',
        assetFileNames: 'static/assets/[name]-[hash][extname]',
        // zod and the module that makes it jitless share one chunk, so the setting runs before any
        // chunk builds a schema (a shared chunk such as src/contract's paging would otherwise build
        // its schemas first, and zod's eval probe is a CSP violation; test/e2e/csp.e2e.spec.ts).
        codeSplitting: { groups: [{ name: 'zod', test: /[\\/]node_modules[\\/]zod[\\/]|[\\/]web[\\/]src[\\/]zodConfig\.ts$/ }] },
      },
    },
  },
  server: {
    proxy: { '/api': 'http://localhost:3000', '/socket.io': { target: 'ws://localhost:3000', ws: true } },
  },
});
