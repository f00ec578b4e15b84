import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import path from 'node:path';

// .ts from source, .js in the compiled build (dist/): the bundle is made of whichever runs.
const ext = path.extname(__filename);

export const workflowsPath = path.join(__dirname, '..', 'workflows', `index${ext}`);

/** The workflow interceptors of tracing (temporal/workflow-tracing.ts). */
export const workflowTracingPath = path.join(__dirname, `workflow-tracing${ext}`);

export interface WorkflowBundle extends WorkflowBundleWithSourceMap {
  /**
   * Every path webpack read or probed for while building (its own watch list: sources, package.json
   * files, loaders, directories, and the misses of module resolution). While none of them changed,
   * another build would give the same bundle (temporal/bundle-cache.ts).
   */
  inputs: string[];
}

interface Compilation {
  fileDependencies: Iterable<string>;
  missingDependencies: Iterable<string>;
}

/**
 * The workflow bundle, built once and shared (tests build it in their global setup). With
 * `traces`, the OpenTelemetry workflow interceptors are bundled in; without, the workflows run
 * exactly as written. Either bundle replays the other's histories: the interceptors add headers and
 * spans, never commands.
 */
export async function bundleWorkflows(options: { traces?: boolean } = {}): Promise<WorkflowBundle> {
  const inputs = new Set<string>();
  const recordInputs = {
    apply(compiler: {
      hooks: { done: { tap(name: string, fn: (stats: { compilation: Compilation }) => void): void } };
    }) {
      compiler.hooks.done.tap('record-inputs', ({ compilation }) => {
        for (const file of compilation.fileDependencies) inputs.add(file);
        for (const file of compilation.missingDependencies) inputs.add(file);
      });
    },
  };
  const bundle = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: options.traces ? [workflowTracingPath] : [],
    // Workflow code must stay deterministic: fail the bundle if it pulls in a Node module.
    ignoreModules: [],
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
    webpackConfigHook: (config) => ({ ...config, plugins: [...(config.plugins ?? []), recordInputs] }),
  });
  return { ...bundle, code: latin1(bundle.code), inputs: [...inputs].sort() };
}

/**
 * Characters beyond Latin-1 (em dashes in the SDK's comments) as \u escapes: V8 stores a string that
 * holds any such character at two bytes per character, and the workflow thread holds the whole bundle,
 * code and inline source map (1.7 MB), as one string. An escape stands for the same character in a
 * comment, a string, a template or a regular expression; only the columns after it on its line move.
 */
function latin1(code: string): string {
  return code.replace(/[\u0100-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
