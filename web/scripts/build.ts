// Builds the dashboard into web/dist: the API client types from the OpenAPI document, a type-check of
// the app against them (an API change that breaks a screen fails here), then Vite.
// `--if-stale` (used by `npm start`) skips all of it when dist was built from the same sources.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { generateSchema, SCHEMA_FILE } from './generate-api';

const web = path.resolve(__dirname, '..');
const root = path.resolve(web, '..');
const dist = path.join(web, 'dist');
const stamp = path.join(dist, '.source-hash');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
  );
}

/** Everything the bundle is made of, besides node_modules (package-lock.json stands for those). */
function sourceHash(): string {
  const inputs = [
    ...files(path.join(web, 'src')).sort(),
    path.join(web, 'index.html'),
    path.join(web, 'vite.config.ts'),
    path.join(root, 'src/messages/segments.ts'),
    path.join(root, 'package-lock.json'),
  ];
  const hash = createHash('sha256').update('production\0');
  for (const file of inputs) hash.update(path.relative(root, file)).update('\0').update(readFileSync(file));
  return hash.digest('hex');
}

async function main() {
  const schema = await generateSchema();
  if (!existsSync(SCHEMA_FILE) || readFileSync(SCHEMA_FILE, 'utf8') !== schema) writeFileSync(SCHEMA_FILE, schema);
  const hash = sourceHash();
  if (process.argv.includes('--if-stale') && existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) return;

  process.stdout.write('Building the dashboard (web/dist)…\n');
  // Whatever the caller runs under (vitest sets NODE_ENV=test), the bundle is React's production build.
  process.env.NODE_ENV = 'production';
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(web, 'tsconfig.json')], {
    stdio: 'inherit',
  });
  // vite is an ES module only: imported here, not required at the top of this CommonJS script.
  const { build } = await import('vite');
  await build({ configFile: path.join(web, 'vite.config.ts'), mode: 'production', logLevel: 'warn' });
  writeFileSync(stamp, hash);
}

main().catch((error) => {
  process.stderr.write(`dashboard build failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
