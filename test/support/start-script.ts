// `npm start` as the tests and benchmarks run it, without vitest (the global setup builds it).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');

/**
 * What `npm start` runs after its prestart: the `start` script of package.json, read from it so tests
 * and benchmarks run exactly that. Its leading NAME=value words become `env`; after `node`, its flags
 * and the compiled start command (dist/src/dev/start.js) become `args` of this Node binary.
 */
export function startCommand(): { command: string; args: string[]; env: Record<string, string> } {
  const script = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  const words = script.split(' ');
  const assignments = words.filter((_, i) => words.slice(0, i + 1).every((w) => /^[A-Z_]+=/.test(w)));
  if (words[assignments.length] !== 'node') throw new Error(`the start script does not run node: ${script}`);
  return {
    command: process.execPath,
    args: words.slice(assignments.length + 1),
    env: Object.fromEntries(assignments.map((a) => a.split('=') as [string, string])),
  };
}

/** `npm start`'s prestart: the dashboard and the compiled service, each rebuilt only when stale. */
export function buildStart(): void {
  execFileSync('npm', ['run', '--silent', 'prestart'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
}
