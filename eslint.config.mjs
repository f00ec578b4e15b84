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

/**
 * One way to reach the database (docs/architecture.md, "Only repositories touch the database"): a
 * statement or an ORM call lives in a `*.repository.ts` (or in src/db/, which builds the tools), and
 * `transaction()` from src/db/transaction.ts is the only way to open a transaction, so that every
 * transaction can carry `afterCommit` work. Everything else holds an EntityManager only to pass it on:
 * `fork()` and `isInTransaction()` are the methods it may call, and it may import the tools' types.
 * The EntityManager is recognised by its type, whatever the variable is called.
 */
const EM_METHODS_ANYWHERE = new Set(['fork', 'isInTransaction']);
const OPENS_A_TRANSACTION = new Set(['transactional', 'begin', 'commit', 'rollback']);
/** Modules whose values are the data-access tools; `names` null: every value it exports. */
const DATA_ACCESS_MODULES = [
  { from: /(^|\/)db\/(sql|read|read-compiler)$/, names: null },
  { from: /(^|\/)http\/pagination$/, names: new Set(['findPage']) },
];
/** What @mikro-orm exports that runs no query: the request's context and the errors a handler maps. */
const ORM_VALUES_ANYWHERE = new Set(['RequestContext', 'NotFoundError', 'UniqueConstraintViolationException']);

const ONLY_REPOSITORIES =
  "Only repositories touch SQL or the ORM: move this into the feature's *.repository.ts as a function named for what it does, and pass it the EntityManager.";
const ONLY_TRANSACTION = 'Open a transaction with transaction(em, async (tx) => …) from src/db/transaction.ts, so afterCommit works in it.';

function isEntityManager(type) {
  if (type.isUnionOrIntersection()) return type.types.some(isEntityManager);
  const symbol = type.getSymbol() ?? type.aliasSymbol;
  return (
    !!symbol &&
    /EntityManager$/.test(symbol.getName()) &&
    (symbol.getDeclarations() ?? []).some((d) => d.getSourceFile().fileName.includes('/@mikro-orm/'))
  );
}

function calledOnEntityManager(context, call) {
  if (call.callee.type !== 'MemberExpression' || call.callee.property.type !== 'Identifier') return null;
  const services = context.sourceCode.parserServices;
  // Linted without a program (the workflow boundary test turns type information off): the ORM's
  // calls cannot be told from others by name alone, so only the import rules apply.
  if (!services?.program || typeof services.getTypeAtLocation !== 'function') return null;
  const type = services.getTypeAtLocation(call.callee.object);
  return isEntityManager(type) ? call.callee.property.name : null;
}

const dataAccess = {
  rules: {
    'only-repositories': {
      meta: { type: 'problem', schema: [], messages: { only: ONLY_REPOSITORIES } },
      create(context) {
        return {
          ImportDeclaration(node) {
            if (node.importKind === 'type') return;
            const from = node.source.value;
            const values = node.specifiers.filter((s) => s.importKind !== 'type');
            const refused = (name) =>
              from.startsWith('@mikro-orm/')
                ? !ORM_VALUES_ANYWHERE.has(name)
                : DATA_ACCESS_MODULES.some(
                    (m) => m.from.test(from) && (m.names === null || name === '*' || m.names.has(name)),
                  );
            for (const specifier of values) {
              const name =
                specifier.type === 'ImportSpecifier' ? (specifier.imported.name ?? specifier.imported.value) : '*';
              if (refused(name)) context.report({ node: specifier, messageId: 'only' });
            }
          },
          CallExpression(node) {
            const method = calledOnEntityManager(context, node);
            if (method && !EM_METHODS_ANYWHERE.has(method) && !OPENS_A_TRANSACTION.has(method))
              context.report({ node, messageId: 'only' });
          },
        };
      },
    },
    'one-transaction': {
      meta: { type: 'problem', schema: [], messages: { only: ONLY_TRANSACTION } },
      create(context) {
        return {
          CallExpression(node) {
            const callee = node.callee;
            if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier') return;
            const name = callee.property.name;
            if (name === 'transactional' || (OPENS_A_TRANSACTION.has(name) && calledOnEntityManager(context, node)))
              context.report({ node, messageId: 'only' });
          },
        };
      },
    },
  },
};

const PRODUCTION = ['src/**/*.ts', 'workflows/**/*.ts', 'activities/**/*.ts', 'temporal/**/*.ts'];

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
  {
    files: PRODUCTION,
    ignores: ['src/db/transaction.ts'],
    plugins: { 'data-access': dataAccess },
    rules: { 'data-access/one-transaction': 'error' },
  },
  {
    files: PRODUCTION,
    ignores: [
      // The tools themselves, the entity definitions the ORM reads, and the repositories.
      'src/db/**',
      'src/entities.ts',
      '**/*.entity.ts',
      '**/*.repository.ts',
      // findPage, the keyset page every list runs, is a repositories' tool that lives beside the
      // cursor it reads; only repositories may import it.
      'src/http/pagination.ts',
    ],
    plugins: { 'data-access': dataAccess },
    rules: { 'data-access/only-repositories': 'error' },
  },
);
