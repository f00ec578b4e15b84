import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporalCacheDir } from '../src/config';
import { projectRoot } from '../src/lib/root';

// The pinned servers temporal/install.sh installs under the cache folder (config.temporal.cacheDir).
const here = path.join(projectRoot, 'temporal');

function pinned(): { cli: string; testServer: string } {
  const text = readFileSync(path.join(here, 'versions.env'), 'utf8');
  const get = (name: string): string => {
    const match = new RegExp(`^${name}=(.+)$`, 'm').exec(text);
    if (!match) throw new Error(`temporal/versions.env does not pin ${name}`);
    return match[1].trim();
  };
  return { cli: get('TEMPORAL_CLI_VERSION'), testServer: get('TEMPORAL_TEST_SERVER_VERSION') };
}

export const installScript = path.join(here, 'install.sh');

/** The installed Temporal CLI, or undefined when it could not be built here (no Go). */
export function temporalCliPath(cacheDir = temporalCacheDir()): string | undefined {
  const file = path.join(cacheDir, `temporal-cli-${pinned().cli}`, 'temporal');
  return existsSync(file) ? file : undefined;
}

/** The launcher of the Java time-skipping test server, or undefined without Java and Maven. */
export function testServerPath(cacheDir = temporalCacheDir()): string | undefined {
  const file = path.join(cacheDir, `temporal-test-server-${pinned().testServer}`, 'temporal-test-server');
  return existsSync(file) ? file : undefined;
}
