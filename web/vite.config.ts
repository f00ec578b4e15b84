import path from 'node:path';
import { defineConfig } from 'vite';

// React without @vitejs/plugin-react: esbuild compiles JSX, which is all a production build needs.
// `npm run web:dev` proxies the API so the dev server behaves like the same-origin deployment.
export default defineConfig({
  root: __dirname,
  base: '/',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: path.join(__dirname, 'dist'),
    emptyOutDir: true,
    assetsDir: 'assets',
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      // Mantine marks its modules "use client" for React Server Components; a SPA bundle ignores it.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  server: {
    proxy: { '/v1': process.env.API_URL ?? 'http://localhost:3000' },
  },
});
