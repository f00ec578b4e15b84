// `node --import tsx temporal/bundle-cli.ts <cache folder> [--traces]`: builds the workflow bundle,
// stores it in the cache folder and prints its path. The worker runs it as a child process
// (temporal/bundle-cache.ts) so that webpack never loads into the worker itself.
import { bundleSettings, storeBundle } from './bundle-cache';
import { bundleWorkflows } from './bundle';

async function main() {
  const [cacheDir, ...flags] = process.argv.slice(2);
  if (!cacheDir) throw new Error('usage: bundle-cli <cache folder> [--traces]');
  const traces = flags.includes('--traces');
  const startedAt = Date.now();
  const settings = bundleSettings(traces);
  const { code, inputs } = await bundleWorkflows({ traces });
  process.stdout.write(`${storeBundle(cacheDir, traces, { code, inputs, settings, startedAt })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
