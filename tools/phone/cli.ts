// `npm run phone -- …`: one or more simulated phones against a running service (see --help).
import { describeError } from './api';
import { parseCli, USAGE, UsageError } from './args';
import { runPhones, type Fleet } from './run';

async function main(): Promise<void> {
  let options;
  try {
    options = parseCli(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\nRun with --help for usage.\n`);
    process.exit(2);
  }
  if (!options) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }

  let fleet: Fleet | undefined;
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stdout.write(`${new Date().toISOString()} ${signal}: stopping (again to quit at once)\n`);
    void (fleet?.stop() ?? Promise.resolve()).then(() => process.exit(0));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  try {
    fleet = await runPhones(options);
  } catch (error) {
    process.stderr.write(`${new Date().toISOString()} could not start: ${describeError(error)}\n`);
    process.exit(1);
  }
}

void main();
