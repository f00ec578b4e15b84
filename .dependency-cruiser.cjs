// The dependency direction of docs/architecture.md, checked by `npm run lint:deps` (part of `npm test`):
//
//   workflows/  → @temporalio/workflow, @temporalio/common, workflows/**, the pure modules below, and types
//   activities/ → src/, workflows/definitions
//   src/        → workflows/definitions (ids, signals, types), workflows/search-attributes (keys),
//                 temporal/ (client, starter); never activities/
//   temporal/   → anything (it boots the worker and bundles the workflows)
//   src/dev/    → anything; nothing outside it imports it (the laptop's start command, the embedded
//                 Postgres and the process helpers are not production code), except `npm run migrate`
//                 requiring the embedded Postgres when there is no DATABASE_URL
//
// Cycles: a runtime cycle (every edge a value import) is an error. Cycles that close only through
// `import type` are erased by the compiler and cannot misorder module initialisation; they are
// reported as warnings so they stay visible. They are common on purpose in one place: a workflow
// types its activity proxy with `import type` from activities/, which are built on src/, which
// imports workflows/definitions for ids and signals.

/**
 * Modules without Node or I/O imports that workflow code may use (each must import nothing at runtime).
 * Keep in step with PURE_HELPERS in eslint.config.mjs (the import rule on workflows/**).
 */
const PURE = ['^src/lib/duration\\.ts$'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-runtime-cycle',
      severity: 'error',
      comment: 'A cycle of value imports: module initialisation order depends on who is imported first.',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'type-only-cycle',
      severity: 'warn',
      comment: 'A cycle that closes through `import type` only: harmless at run time, worth knowing.',
      from: {},
      to: { circular: true, via: { dependencyTypes: ['type-only'] } },
    },
    {
      name: 'workflows-deterministic',
      severity: 'error',
      comment:
        'Workflow code runs in the deterministic sandbox: only @temporalio/workflow, @temporalio/common (search ' +
        'attribute keys, which the workflow API uses itself), workflows/**, the pure modules listed in PURE, and ' +
        'types (erased at compile time).',
      from: { path: '^workflows/' },
      to: {
        dependencyTypesNot: ['type-only'],
        pathNot: ['^workflows/', '^node_modules/@temporalio/workflow/', '^node_modules/@temporalio/common/', ...PURE],
      },
    },
    {
      name: 'pure-modules-stay-pure',
      severity: 'error',
      comment: 'A module workflows may import must not pull anything in at run time.',
      from: { path: PURE },
      to: { dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'src-not-activities',
      severity: 'error',
      comment: 'Activities are built on src/ services; src/ never reaches back into activities/.',
      from: { path: '^src/' },
      to: { path: '^activities/' },
    },
    {
      name: 'src-only-workflow-definitions',
      severity: 'error',
      comment:
        'src/ starts and signals workflows by id and name (workflows/definitions) with their search attributes ' +
        '(workflows/search-attributes), never loads workflow code.',
      from: { path: '^src/' },
      to: { path: '^workflows/', pathNot: '^workflows/(definitions|search-attributes)\\.ts$' },
    },
    {
      name: 'production-not-dev',
      severity: 'error',
      comment:
        'src/dev/ is development only (npm start, npm run cluster, the embedded Postgres, process helpers): ' +
        'the api, the worker, their services and temporal/ never load it.',
      from: { path: '^(src|temporal|workflows|activities)/', pathNot: ['^src/dev/', '^src/db/migrate\\.ts$'] },
      to: { path: '^src/dev/' },
    },
    {
      name: 'migrate-dev-on-demand',
      severity: 'error',
      comment: 'npm run migrate loads the embedded Postgres only without DATABASE_URL: a require in that branch.',
      from: { path: '^src/db/migrate\\.ts$' },
      to: { path: '^src/dev/', dependencyTypesNot: ['type-only', 'type-import', 'require'] },
    },
    {
      name: 'activities-not-workflow-code',
      severity: 'error',
      comment: 'Activities share ids and types with workflows through workflows/definitions only.',
      from: { path: '^activities/' },
      to: { path: '^workflows/', pathNot: '^workflows/definitions\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // `import type` is seen and marked type-only, so the rules above can tell types from values.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.mts', '.js', '.mjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
