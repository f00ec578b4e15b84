import path from 'node:path';

/** True when running the compiled build (`npm run build`, under dist/), false from source (tsx, vitest). */
export const compiled = path.extname(__filename) === '.js';

/**
 * The repository's folder, from source (this file in src/lib) or compiled (dist/src/lib), for the
 * files the compiler does not copy: web/dist, temporal/versions.env, the workflow bundles.
 */
export const projectRoot = path.resolve(__dirname, ...(compiled ? ['..', '..', '..'] : ['..', '..']));
