// `npm run temporal:setup` (compiled: `node dist/temporal/setup-cli.js`; compose's one-shot
// `temporal-setup` job): registers TEMPORAL_NAMESPACE and the service's search attributes on the
// configured Temporal, with the same connection settings as the api and the worker (TLS, API key).
// Waits for Temporal as they do; exits 0 once both exist, so a second run is a no-op.
import { loadConfigOrExit } from '../src/config';
import { describeFailure, retryWithBackoff } from '../src/lib/backoff';
import { createLogger } from '../src/lib/logger';
import { connectTemporal, temporalAddress } from './client';
import { setUpNamespace } from './namespace';

/** What `npm run cluster` also registers; long enough to look back at last week's sends in the UI. */
const RETENTION_MS = 7 * 86_400_000;

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  const address = temporalAddress(config);
  const client = await retryWithBackoff(
    `temporal setup cannot start yet (it needs Temporal at ${address})`,
    logger,
    () => connectTemporal(config, address),
  );
  if (!client) return;
  try {
    await setUpNamespace(client.connection, config.temporal.namespace, RETENTION_MS, logger);
    logger.info({ namespace: config.temporal.namespace }, 'temporal namespace and search attributes ready');
  } finally {
    await client.connection.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`temporal setup failed: ${describeFailure(error)}\n`);
  process.exit(1);
});
