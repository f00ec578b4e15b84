import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporalCacheDir } from '../src/config';
import { projectRoot } from '../src/lib/root';

// The pinned servers temporal/install.sh installs under the cache folder (config.temporal.cacheDir).
const here = path.join(projectRoot, 'temporal');

function pinned(): { cli: string; testServer: string; server: string; ui: string } {
  const text = readFileSync(path.join(here, 'versions.env'), 'utf8');
  const get = (name: string): string => {
    const match = new RegExp(`^${name}=(.+)$`, 'm').exec(text);
    if (!match) throw new Error(`temporal/versions.env does not pin ${name}`);
    return match[1].trim();
  };
  return {
    cli: get('TEMPORAL_CLI_VERSION'),
    testServer: get('TEMPORAL_TEST_SERVER_VERSION'),
    server: get('TEMPORAL_SERVER_VERSION'),
    ui: get('TEMPORAL_UI_VERSION'),
  };
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

/** The cluster's server, its SQL schema tool and the schema files (`install.sh server`), or undefined. */
export function temporalServerPaths(
  cacheDir = temporalCacheDir(),
): { server: string; sqlTool: string; schema: string; version: string } | undefined {
  const { server: version } = pinned();
  const dir = path.join(cacheDir, `temporal-server-${version}`);
  const found = {
    server: path.join(dir, 'temporal-server'),
    sqlTool: path.join(dir, 'temporal-sql-tool'),
    schema: path.join(dir, 'schema', 'postgresql', 'v12'),
    version,
  };
  return existsSync(found.server) && existsSync(found.sqlTool) && existsSync(found.schema) ? found : undefined;
}

/** The Temporal UI server (`install.sh server` builds it when it can), or undefined. */
export function temporalUiPath(cacheDir = temporalCacheDir()): string | undefined {
  const file = path.join(cacheDir, `temporal-ui-${pinned().ui}`, 'temporal-ui-server');
  return existsSync(file) ? file : undefined;
}
