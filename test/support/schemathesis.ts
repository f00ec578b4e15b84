import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';

// Schemathesis (PyPI, pinned here) run against a test app: generated requests
// from an OpenAPI document, with the credentials each operation's security scheme names, bounded in
// examples and time. What the tests read back is its JSON Lines event log: every check that failed.

const run = promisify(execFile);

const VERSION = '4.32.5';

/** Installs Schemathesis into the cache on first use (pip-venv.sh); its `st` command. */
export async function installSchemathesis(): Promise<string> {
  const script = path.join(__dirname, 'pip-venv.sh');
  const { stdout } = await run(script, [`schemathesis-${VERSION}`, `schemathesis==${VERSION}`, 'st', '--version'], {
    timeout: 300_000,
  });
  return path.join(stdout.trim(), 'bin', 'st');
}

export interface SchemathesisRun {
  /** Where the document is: a URL the app serves, or a file. */
  schema: string;
  /** The API's base URL (needed for a file; else taken from the document's servers and `schema`). */
  baseUrl?: string;
  /**
   * Credentials by security scheme name (the document's components.securitySchemes): an `apiKey`
   * scheme (header or cookie) takes `api_key`, an http bearer one `bearer`, basic `username` and `password`.
   */
  auth?: Record<string, Record<string, string>>;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  phases: ('examples' | 'coverage' | 'fuzzing' | 'stateful')[];
  /** Test cases per operation in the fuzzing phase. */
  maxExamples: number;
  /** Stateful scenarios (sequences of linked requests), when that phase runs. */
  statefulExamples?: number;
  /**
   * Seconds after which the run is stopped and counted as failed. Not Schemathesis' --max-time, which
   * repeats fuzzing until it is spent: the run is bounded by maxExamples.
   */
  maxSeconds: number;
  /** Operations left out: regular expressions for their whole names, `METHOD /path/{param}`. */
  exclude?: string[];
  seed?: number;
}

export interface SchemathesisFailure {
  check: string;
  operation: string;
  status: number | null;
  answer: string;
}

export interface SchemathesisResult {
  /** Each failed check: the operation (`METHOD /template`), the status and the start of the answer. */
  failures: SchemathesisFailure[];
  /** Errors that stopped an operation or the run (a schema it could not read, a connection refused). */
  errors: string[];
  /** Requests sent. */
  requests: number;
  /** The statuses each operation (`METHOD /template`) answered, with their counts. */
  statuses: Map<string, Map<number, number>>;
  /** Stateful scenarios run, and their requests that used a value an earlier answer gave (a link). */
  scenarios: number;
  linkedRequests: number;
  stdout: string;
}

const toml = (value: string) => JSON.stringify(value);

/** Runs `st run` once and reads its event log. Only the not_a_server_error check runs: no answer >= 500. */
export async function runSchemathesis(st: string, options: SchemathesisRun): Promise<SchemathesisResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'schemathesis-'));
  try {
    const config = [
      ...(options.headers
        ? [
            `headers = { ${Object.entries(options.headers)
              .map(([k, v]) => `${toml(k)} = ${toml(v)}`)
              .join(', ')} }`,
          ]
        : []),
      '[generation]',
      `max-examples = ${options.maxExamples}`,
      '[phases.stateful.generation]',
      `max-examples = ${options.statefulExamples ?? options.maxExamples}`,
      ...Object.entries(options.auth ?? {}).flatMap(([scheme, values]) => [
        `[auth.openapi.${toml(scheme)}]`,
        ...Object.entries(values).map(([k, v]) => `${k} = ${toml(v)}`),
      ]),
    ].join('\n');
    const configFile = path.join(dir, 'schemathesis.toml');
    writeFileSync(configFile, `${config}\n`);
    const log = path.join(dir, 'events.ndjson');
    const args = [
      '--config-file',
      configFile,
      'run',
      options.schema,
      ...(options.baseUrl ? ['--url', options.baseUrl] : []),
      '--checks',
      'not_a_server_error',
      '--phases',
      options.phases.join(','),
      '--seed',
      String(options.seed ?? 20261128),
      '--workers',
      '2',
      '--request-timeout',
      '20',
      '--no-shrink',
      '--suppress-health-check',
      'all',
      '--report',
      'ndjson',
      '--report-ndjson-path',
      log,
      // One pattern: of several, only the last is applied.
      ...(options.exclude?.length ? ['--exclude-name-regex', `^(${options.exclude.join('|')})$`] : []),
    ];
    // Exit 1 when a check failed: the event log says which; anything else is reported as is.
    const { stdout, code } = await run(st, args, {
      timeout: options.maxSeconds * 1000,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: '1' },
      // It keeps a cache (.schemathesis/) where it runs: in the scratch directory, not the work tree.
      cwd: dir,
    }).then(
      (out) => ({ ...out, code: 0 }),
      (error: { stdout?: string; stderr?: string; code?: number }) => ({
        stdout: `${error.stdout ?? ''}\n${error.stderr ?? ''}`,
        code: error.code ?? -1,
      }),
    );
    const result = readEvents(existsSync(log) ? readFileSync(log, 'utf8') : '', stdout);
    if (code !== 0 && result.failures.length === 0 && result.errors.length === 0) {
      result.errors.push(`st exited ${code}: ${stdout.slice(-2000)}`);
    }
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Json = Record<string, unknown>;
interface Recorder {
  label: string;
  cases?: Record<string, { value: { method: string; path: string }; is_transition_applied?: boolean }>;
  checks?: Record<string, { name: string; status: string }[]>;
  interactions?: Record<string, { response?: { status_code: number; content?: { $base64?: string } } | null }>;
}

/** What the event log (`--report ndjson`) says: one JSON object a line, keyed by the event's kind. */
function readEvents(text: string, stdout: string): SchemathesisResult {
  const result: SchemathesisResult = {
    failures: [],
    errors: [],
    requests: 0,
    statuses: new Map(),
    scenarios: 0,
    linkedRequests: 0,
    stdout,
  };
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const event = JSON.parse(line) as Json;
    const [kind] = Object.keys(event);
    const body = event[kind] as Json;
    if (kind === 'NonFatalError' || kind === 'FatalError') {
      result.errors.push(`${kind}: ${JSON.stringify(body).slice(0, 800)}`);
      continue;
    }
    if (kind !== 'ScenarioFinished') continue;
    const recorder = body.recorder as Recorder;
    const stateful = body.phase === 'stateful';
    if (stateful) result.scenarios++;
    for (const [id, testCase] of Object.entries(recorder.cases ?? {})) {
      const operation = `${testCase.value.method} ${testCase.value.path}`;
      const response = recorder.interactions?.[id]?.response;
      if (response) {
        result.requests++;
        const counts = result.statuses.get(operation) ?? new Map<number, number>();
        counts.set(response.status_code, (counts.get(response.status_code) ?? 0) + 1);
        result.statuses.set(operation, counts);
        if (stateful && testCase.is_transition_applied) result.linkedRequests++;
      }
      for (const check of recorder.checks?.[id] ?? []) {
        if (check.status === 'success' || check.status === 'skip') continue;
        const answer = Buffer.from(response?.content?.$base64 ?? '', 'base64')
          .toString('utf8')
          .slice(0, 300);
        result.failures.push({
          check: `${check.name} ${check.status}`,
          operation,
          status: response?.status_code ?? null,
          answer,
        });
      }
    }
  }
  return result;
}

/** Every operation of a document's `paths`, as `METHOD /path/{param}`. */
export const operationsOf = (paths: Record<string, object>): string[] =>
  Object.entries(paths).flatMap(([route, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${route}`));

/**
 * The operations of `paths` the run never got an answer from, but for those left out on purpose
 * (the patterns of SchemathesisRun.exclude) and `notCalled`.
 */
export function unreached(
  result: SchemathesisResult,
  paths: Record<string, object>,
  exclude: string[] = [],
  notCalled: string[] = [],
): string[] {
  const left = new RegExp(`^(${exclude.join('|') || '(?!)'})$`);
  return operationsOf(paths).filter((op) => !left.test(op) && !notCalled.includes(op) && !result.statuses.has(op));
}

/** Whether an operation answered a 2xx at least once in the run. */
export const succeeded = (result: SchemathesisResult, operation: string): boolean =>
  [...(result.statuses.get(operation)?.keys() ?? [])].some((status) => status >= 200 && status < 300);

/** What the run sent and got, per operation, for the test's output. */
export function summary(label: string, result: SchemathesisResult): string {
  const lines = [...result.statuses].map(
    ([operation, counts]) => `${operation} ${[...counts].map(([status, n]) => `${status}×${n}`).join(' ')}`,
  );
  const head = `schemathesis ${label}: ${result.requests} requests, ${result.scenarios} stateful scenarios, ${result.linkedRequests} linked`;
  return [head, ...lines].join('\n');
}

/**
 * The run's errors, less its FlakyFailures (a case that failed at its first try and not at
 * Schemathesis' own second one), which are printed. The caller checks that no recorded answer was
 * >= 500 (serverErrors): then such a failure was the client's, a connection or a timeout on a loaded
 * machine, not an answer of the service.
 */
export function errorsBesidesFlaky(label: string, result: SchemathesisResult): string[] {
  const flaky = result.errors.filter((error) => error.includes('"type":"FlakyFailure"'));
  if (flaky.length > 0) console.warn(`schemathesis ${label}: flaky cases\n${flaky.join('\n')}`);
  return result.errors.filter((error) => !flaky.includes(error));
}

/** Every operation and status >= 500 among all the answers the run recorded. */
export const serverErrors = (result: SchemathesisResult): Array<{ operation: string; status: number }> =>
  [...result.statuses.entries()].flatMap(([operation, counts]) =>
    [...counts.keys()].filter((status) => status >= 500).map((status) => ({ operation, status })),
  );

/** The run found nothing: no error but flaky ones, no answer >= 500, no failed check. Prints its summary. */
export function expectClean(label: string, result: SchemathesisResult): void {
  console.info(summary(label, result));
  expect(errorsBesidesFlaky(label, result)).toEqual([]);
  expect(serverErrors(result)).toEqual([]);
  expect(result.failures).toEqual([]);
}
