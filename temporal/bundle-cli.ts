// `node --import tsx temporal/bundle-cli.ts [--traces] [<cache folder>]` (compiled: `node
// dist/temporal/bundle-cli.js ...`): builds the workflow bundle, stores it in the cache folder (by
// default the one the worker looks in) and prints its path. The worker runs it as a child process
// (temporal/bundle-cache.ts) so that webpack never loads into the worker itself; `npm run build` runs
// it compiled, so the compiled worker finds both bundles built.
import { bundleSettings, defaultBundleCacheDir, storeBundle } from './bundle-cache';
import { bundleWorkflows } from './bundle';

async function main() {
  const args = process.argv.slice(2);
  const traces = args.includes('--traces');
  const cacheDir = args.find((arg) => !arg.startsWith('--')) ?? defaultBundleCacheDir;
  const startedAt = Date.now();
  const settings = bundleSettings(traces);
  const { code, inputs } = await bundleWorkflows({ traces });
  process.stdout.write(`${storeBundle(cacheDir, traces, { code, inputs, settings, startedAt })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
