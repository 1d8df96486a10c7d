import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// The account center's browser bundle. No CDN: everything it loads comes from this build.
// Its run-time configuration (the gateway's URL, the default platform) is fetched from
// /config.json at start, never baked in, so one build serves every environment.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
  },
  server: { fs: { allow: [fileURLToPath(new URL('..', import.meta.url))] } },
});
