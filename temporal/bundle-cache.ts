// The bundle cache: the fast path of the worker's workflow bundle. Its slow path, which it must
// equal, is bundleWorkflows (./bundle.ts) run afresh in the worker's own process: a bundle this
// cache hands out (built in a child process, or reused while none of its inputs changed) is the
// same code, byte for byte; it is built again once an input, the bundler's options or the lock file
// change.
//
// Why it exists: building in the worker's own process left webpack's heap resident for the
// process's whole life (about 80 MiB of RSS at rest); loading a prebuilt bundle by path costs the
// worker nothing but the bundle, and a start with nothing changed skips the build.
// test/temporal/bundle-cache.test.ts compares the cached bundle with one built in-process.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from '../src/lib/logger';
import { compiled, projectRoot as root } from '../src/lib/root';

/**
 * From source, beside the dependencies the bundle is made of, like other build caches (babel, eslint,
 * vite): it is derived, never state, so it stays out of DATA_DIR (which holds the databases and may
 * be a volume), a fresh `npm ci` starts it clean, and every clone has its own. In the compiled build,
 * inside dist/: `npm run build` bundles the compiled workflows there, so a worker started from dist/
 * (an image, where it may not write) loads them as built.
 */
export const defaultBundleCacheDir = compiled
  ? path.join(root, 'dist', 'workflow-bundles')
  : path.join(root, 'node_modules', '.cache', 'phone-gateway', 'workflow-bundles');

export interface BundleRequest {
  traces: boolean;
  /** Where bundles are kept; undefined: built afresh every time. */
  cacheDir?: string;
}

interface Manifest {
  settings: string;
  bundle: string;
  /** Each input path as it was at build time: the hash of its content, 'dir' or 'absent'. */
  inputs: Record<string, string>;
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function stateOf(file: string): string {
  try {
    return statSync(file).isDirectory() ? 'dir' : sha256(readFileSync(file));
  } catch {
    return 'absent';
  }
}

/**
 * What decides the bundle besides its inputs: the options (written in bundle.ts) and the installed
 * versions of the bundler and of the SDK that will load it (the lock file).
 */
export function bundleSettings(traces: boolean): string {
  return sha256(
    JSON.stringify({
      format: 1,
      traces,
      options: stateOf(path.join(__dirname, `bundle${path.extname(__filename)}`)),
      lock: stateOf(path.join(root, 'package-lock.json')),
    }),
  );
}

/** Directories count as unchanged: only their existence is recorded. */
function changedSince(file: string, time: number): boolean {
  try {
    const stat = statSync(file);
    return stat.isFile() && stat.mtimeMs >= time;
  } catch {
    return false;
  }
}

const variant = (traces: boolean) => (traces ? 'traced' : 'plain');

function manifestPath(cacheDir: string, traces: boolean): string {
  return path.join(cacheDir, `${variant(traces)}.json`);
}

function readManifest(file: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

/** The cached bundle's path when every input is as it was when it was built; otherwise undefined. */
export function freshCachedBundle(cacheDir: string, traces: boolean): string | undefined {
  const manifest = readManifest(manifestPath(cacheDir, traces));
  if (!manifest || manifest.settings !== bundleSettings(traces)) return undefined;
  for (const [input, state] of Object.entries(manifest.inputs)) {
    if (stateOf(input) !== state) return undefined;
  }
  const bundle = path.join(cacheDir, manifest.bundle);
  return stateOf(bundle) === 'absent' ? undefined : bundle;
}

function writeAtomically(file: string, data: string): void {
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, data);
  renameSync(partial, file);
}

/**
 * Stores a bundle with its settings (read before the build) and the state of its inputs. Those are
 * read after the build, so one written while
 * it ran (modified since `startedAt`, with slack for coarse file times) may be newer than what
 * webpack read: it is marked as changed, so the next start builds again rather than trust it.
 */
export function storeBundle(
  cacheDir: string,
  traces: boolean,
  build: { code: string; inputs: string[]; settings: string; startedAt: number },
): string {
  const { code, inputs, settings, startedAt } = build;
  mkdirSync(cacheDir, { recursive: true });
  const name = `${variant(traces)}-${sha256(code).slice(0, 16)}.js`;
  writeAtomically(path.join(cacheDir, name), code);
  const manifest: Manifest = {
    settings,
    bundle: name,
    inputs: Object.fromEntries(
      inputs.map((input) => [input, changedSince(input, startedAt - 2000) ? 'changed' : stateOf(input)]),
    ),
  };
  // The bundle first: a manifest never names a bundle that is not there yet.
  writeAtomically(manifestPath(cacheDir, traces), JSON.stringify(manifest));
  pruneOlderBundles(cacheDir, traces, name);
  return path.join(cacheDir, name);
}

/** Older bundles of this variant; one written in the last minute may be about to be loaded by another start. */
function pruneOlderBundles(cacheDir: string, traces: boolean, keep: string): void {
  const recent = Date.now() - 60_000;
  for (const name of readdirSync(cacheDir)) {
    if (name === keep || !name.startsWith(`${variant(traces)}-`)) continue;
    const file = path.join(cacheDir, name);
    try {
      if (statSync(file).mtimeMs < recent) rmSync(file, { force: true });
    } catch {
      // Removed by another start meanwhile.
    }
  }
}

/**
 * Runs temporal/bundle-cli.ts, which builds the bundle and stores it in `cacheDir`; resolves with its
 * path and what the bundler warned about.
 */
function buildInChild(cacheDir: string, traces: boolean): Promise<{ codePath: string; warnings: string }> {
  // Run as TypeScript through tsx like the rest, or as the compiled JavaScript beside this file.
  const cli = path.join(__dirname, `bundle-cli${path.extname(__filename)}`);
  const args = [...(compiled ? [] : ['--import', 'tsx']), cli, cacheDir, ...(traces ? ['--traces'] : [])];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve({ codePath: stdout.trim(), warnings: stderr.trim() });
      else reject(new Error(`bundling the workflows failed (${signal ?? `exit code ${code}`}): ${stderr.trim()}`));
    });
  });
}

function writableDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true });
    const probe = path.join(dir, `.probe-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe);
    return true;
  } catch {
    return false;
  }
}

/**
 * A workflow bundle built from the workflows as they are now: the cached one while nothing it was
 * built from changed, else a new one, built in a child process. Without a writable cache folder
 * (an image whose node_modules belongs to root) it is built every time, into a temporary folder
 * that is gone once its code is read.
 */
export async function prebuiltWorkflowBundle(
  request: BundleRequest,
  logger?: Logger,
): Promise<{ workflowBundle: { codePath: string } | { code: string }; built: boolean }> {
  const { traces, cacheDir } = request;
  if (cacheDir) {
    const cached = freshCachedBundle(cacheDir, traces);
    if (cached) {
      logger?.debug({ bundle: cached }, 'workflow bundle reused');
      return { workflowBundle: { codePath: cached }, built: false };
    }
  }
  const started = Date.now();
  const cached = cacheDir !== undefined && writableDir(cacheDir);
  const dir = cached ? cacheDir : mkdtempSync(path.join(tmpdir(), 'phone-gateway-bundle-'));
  try {
    const { codePath, warnings } = await buildInChild(dir, traces);
    if (warnings) logger?.warn({ bundler: warnings }, 'the workflow bundler warned');
    if (cached) {
      logger?.info({ bundle: codePath, ms: Date.now() - started }, 'workflow bundle built');
      return { workflowBundle: { codePath }, built: true };
    }
    const why = cacheDir ? `${cacheDir} is not writable` : 'no cache folder';
    logger?.info({ ms: Date.now() - started }, `workflow bundle built (not cached: ${why})`);
    return { workflowBundle: { code: readFileSync(codePath, 'utf8') }, built: true };
  } finally {
    if (!cached) rmSync(dir, { recursive: true, force: true });
  }
}
