/**
 * The browser client's build: hashed files under dist/static (served with a long cache by
 * the gateway) and dist/index.html (never cached). The client model is bundled from its
 * TypeScript source; the contracts are imported for their types only, so zod is not in
 * the bundle.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  base: '/',
  resolve: {
    alias: { '@teamchat/client-model': here('../../libs/client-model/src/index.ts') },
  },
  build: {
    outDir: 'dist',
    assetsDir: 'static',
    emptyOutDir: true,
    target: 'es2022',
    // The strict CSP allows no inline script: never inline the modulepreload helper or assets as data: scripts.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
  server: {
    // Development only: the client against a running server (npm start) on its own port.
    proxy: Object.fromEntries(['/json', '/login', '/logout', '/user_avatars', '/user_uploads', '/static/generated'].map((p) => [p, 'http://127.0.0.1:9991'])),
  },
});
