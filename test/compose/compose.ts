// `docker compose` on the repository's own docker-compose.yml, as an operator runs it, for the compose
// test: its own project name (a deployment of the same file on this machine is left alone), its own
// ports, and an override file for what only the test needs (the host's SMTP and webhook receivers,
// the test CA, Postgres published for the checks). Every call is a `docker` command line.
import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { root } from '../support/stack';

const run = promisify(execFile);

export interface ComposeProject {
  name: string;
  /** The override file written for the test, after the repository's docker-compose.yml. */
  overrideFile: string;
  env: Record<string, string>;
}

/**
 * `bash <file>` with its output shown, to its end. Not a synchronous call: a first run builds the
 * engine and the images for minutes, and a test worker whose event loop is held that long misses
 * its replies to vitest's main process (a "Timeout calling onTaskUpdate" error fails the run).
 */
export function script(file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [file], { cwd: root, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`bash ${file} failed (${signal ?? `exit code ${code}`})`)),
    );
  });
}

/** `docker <args>`; its stdout, or an error with its stderr. */
export async function docker(args: string[], env: Record<string, string> = {}, timeoutMs = 600_000): Promise<string> {
  try {
    const { stdout } = await run('docker', args, {
      cwd: root,
      env: { ...process.env, ...env },
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const failed = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`docker ${args.join(' ')} failed: ${failed.stderr || failed.stdout || failed.message}`);
  }
}

/** `docker compose -p <name> -f docker-compose.yml -f <override> <args>`. */
export function compose(project: ComposeProject, args: string[], timeoutMs?: number): Promise<string> {
  return docker(
    ['compose', '-p', project.name, '-f', 'docker-compose.yml', '-f', project.overrideFile, ...args],
    project.env,
    timeoutMs,
  );
}

/** Writes the override: a compose file merged over the repository's. */
export function writeOverride(file: string, services: Record<string, unknown>): void {
  writeFileSync(file, stringify({ services }));
}

/** The id of each running (or exited) container of a service, oldest first. */
export async function containers(project: ComposeProject, service: string): Promise<string[]> {
  const out = await compose(project, ['ps', '--all', '--quiet', service]);
  return out.split('\n').filter(Boolean);
}

export interface ContainerState {
  status: string;
  startedAt: string;
  restartCount: number;
  exitCode: number;
}

export async function inspect(id: string): Promise<ContainerState> {
  const out = await docker([
    'inspect',
    '--format',
    '{{.State.Status}}|{{.State.StartedAt}}|{{.RestartCount}}|{{.State.ExitCode}}',
    id,
  ]);
  const [status, startedAt, restartCount, exitCode] = out.trim().split('|');
  return { status, startedAt, restartCount: Number(restartCount), exitCode: Number(exitCode) };
}

/** What is left of the project on the engine: containers, volumes and networks by their compose label. */
export async function leftovers(name: string): Promise<string[]> {
  const label = `label=com.docker.compose.project=${name}`;
  const [ps, volumes, networks] = await Promise.all([
    docker(['ps', '--all', '--quiet', '--filter', label]),
    docker(['volume', 'ls', '--quiet', '--filter', label]),
    docker(['network', 'ls', '--quiet', '--filter', label]),
  ]);
  return [
    ...ps
      .split('\n')
      .filter(Boolean)
      .map((id) => `container ${id}`),
    ...volumes
      .split('\n')
      .filter(Boolean)
      .map((id) => `volume ${id}`),
    ...networks
      .split('\n')
      .filter(Boolean)
      .map((id) => `network ${id}`),
  ];
}
