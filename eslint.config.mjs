// ESLint, run by `npm run lint` (part of `npm test`). A focused rule set with type information:
// promises that nobody awaits, the workflow sandbox's import boundary, and disable comments that say why.
// The dependency direction between folders is dependency-cruiser's job (.dependency-cruiser.cjs).
import eslintComments from '@eslint-community/eslint-plugin-eslint-comments';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/**
 * Modules without Node or I/O imports that workflow code may import at run time, as workflows/*.ts
 * spell them. Keep in step with PURE in .dependency-cruiser.cjs.
 */
const PURE_HELPERS = ['../src/lib/duration'];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * Workflow code is replayed in Temporal's deterministic sandbox: at run time it may import only the
 * workflow API (and @temporalio/common, bundled with it, for search attribute keys), its own folder
 * and the pure helpers. Anything may be imported with `import type`
 * (erased at compile time), e.g. an activity interface or @temporalio/common types.
 */
const workflowBoundary = {
  files: ['workflows/**/*.ts'],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^(?!(@temporalio/(workflow|common)|\\./[\\w-]+(/[\\w-]+)*|${PURE_HELPERS.map(escape).join('|')})$)`,
            allowTypeImports: true,
            message:
              'Workflow code runs in the deterministic sandbox: import only @temporalio/workflow (or /common), workflows/ ' +
              'and the pure helpers (PURE_HELPERS in eslint.config.mjs) at run time; anything else as `import type`.',
          },
        ],
      },
    ],
    'no-restricted-syntax': [
      'error',
      // require() is refused by no-require-imports (production code, below).
      { selector: 'ImportExpression', message: 'No dynamic import in workflow code.' },
      {
        selector: "NewExpression[callee.name='Date'][arguments.length=0]",
        message: 'Read the time with Date.now() (replayed by the sandbox) or take it from the input.',
      },
    ],
    'no-restricted-globals': [
      'error',
      { name: 'process', message: 'No process in workflow code: pass configuration in the input.' },
      { name: 'setTimeout', message: 'Use sleep() or condition() from @temporalio/workflow.' },
      { name: 'setInterval', message: 'Use sleep() or condition() from @temporalio/workflow.' },
    ],
    'no-restricted-properties': [
      'error',
      {
        object: 'Math',
        property: 'random',
        message: 'Use uuid4() from @temporalio/workflow, or take it from the input.',
      },
    ],
  },
};

export default defineConfig(
  {
    ignores: [
      '**/node_modules/**',
      'dist/**',
      'web/dist/**',
      // Generated from the OpenAPI document (web/scripts/generate-api.ts).
      'web/src/api/schema.d.ts',
      'web/vite.config.ts',
      '.test-data/**',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  {
    // The dashboard (web/src, TSX, typed by web/tsconfig.json) and its scripts too.
    files: ['**/*.ts', '**/*.mts', '**/*.tsx'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname, ecmaFeatures: { jsx: true } },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@typescript-eslint': tseslint.plugin, '@eslint-community/eslint-comments': eslintComments },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@eslint-community/eslint-comments/require-description': 'error',
      '@eslint-community/eslint-comments/no-unlimited-disable': 'error',
      '@eslint-community/eslint-comments/disable-enable-pair': ['error', { allowWholeFile: true }],
    },
  },
  {
    // One way to run a hand-written statement: query(em, sql`…`) from src/db/sql.ts binds its values
    // as parameters on the connection; em.execute() formats them into the text and runs it through
    // knex (more CPU). Knex and its pool are reached only in src/db/connection.ts.
    files: ['src/**/*.ts', 'activities/**/*.ts', 'temporal/**/*.ts'],
    ignores: ['src/db/connection.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.type='MemberExpression'][callee.property.name='execute'][callee.object.name=/^(em|tx|trx)$/]",
          message: 'Run SQL with query(em, sql`…`) from src/db/sql.ts.',
        },
        {
          selector: "MemberExpression[property.name=/^(getKnex|getConnection)$/]",
          message: 'Knex and its pool are reached only in src/db/connection.ts.',
        },
      ],
    },
  },
  {
    // Production code states its types; tests, the bench and tools read loose JSON (`any`) on purpose.
    files: ['src/**/*.ts', 'workflows/**/*.ts', 'activities/**/*.ts', 'temporal/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-require-imports': 'error',
    },
  },
  {
    // Request schemas take yup from src/lib/yup.ts, whose scalars never coerce a client's value.
    files: ['src/**/*.ts'],
    ignores: ['src/lib/yup.ts', 'src/config.ts', 'src/config-fields.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'yup',
              message: "Import yup from src/lib/yup.ts: its scalars take only their own JSON type.",
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  workflowBoundary,
);
