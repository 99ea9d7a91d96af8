// ESLint (flat config): typescript-eslint's type-checked rules, and import boundaries that encode
// ARCHITECTURE.md's data flow `http -> ddi|mgmt -> actors -> domain -> store`. Runs in `npm test`.
import stylistic from '@stylistic/eslint-plugin';
import tseslint from 'typescript-eslint';

/**
 * The composition root (src/app/: cli, server, workers, the module registry, the shared services) is the
 * top of the house: it imports every layer, and nothing under src/ imports it.
 */
const ROOT = [['**/app/**'], 'only the composition root (src/app/) imports src/app/: take what you need as a declared dependency'];

/**
 * Imports a folder must not make: each entry names the folders (or packages) and why. A folder of src/
 * other than src/app/ also never imports the composition root (one rule per file: a later one replaces
 * an earlier one, so each carries ROOT).
 */
function boundary(files, forbidden) {
  const underRoot = files.every((f) => f.startsWith('src/app/'));
  const all = files.every((f) => f.startsWith('src/')) && !underRoot ? [...forbidden, ROOT] : forbidden;
  return {
    files,
    rules: {
      'no-restricted-imports': ['error', {
        patterns: all.map(([group, message]) => ({ group, message })),
      }],
    },
  };
}

const IO = ['node:*', 'redis', 'uWebSockets.js', 'piscina', 'pino', 'prom-client', 'undici', 'busboy'];
const HANDLERS = ['**/mgmt/**', '**/ddi/**', '**/dmf/**'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/results/**', 'test/fixtures/*.mjs'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports', disallowTypeAnnotations: false }],
      // async methods without await implement Promise-returning ports (the memory store): a throw still rejects
      '@typescript-eslint/require-await': 'off',
      'no-control-regex': 'error',
      // a variable a closure reads before it is assigned stays `let`
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // every folder of src/: nothing imports the composition root (the folders below repeat it with their own limits)
  { ...boundary(['src/**/*.ts'], []), ignores: ['src/app/**'] },
  // below the handlers: configuration, tenant configuration, artifact storage, metrics and logs
  boundary(['src/config/**/*.ts', 'src/tenancy/**/*.ts', 'src/artifacts/**/*.ts', 'src/observability/**/*.ts'], [
    [[...HANDLERS, '**/device/**', '**/scheduler/**', '**/session/**', '**/console/**', '**/apidoc/**'],
      'config/, tenancy/, artifacts/ and observability/ sit below the handlers and the scheduler'],
  ]),
  // the operator commands talk to a server over HTTP: no server code
  boundary(['src/ops-cli/**/*.ts'], [
    [['../*'], 'ops-cli/ talks to the Management API over HTTP; it imports no server code'],
  ]),
  // domain: pure rules and machines; no I/O and nothing from outside domain
  boundary(['src/domain/**/*.ts'], [
    [IO, 'domain/ does no I/O (ARCHITECTURE.md: machines never do I/O)'],
    [['../*'], 'domain/ imports nothing outside domain/'],
  ]),
  // store: the port and its adapters know records, not who writes them
  boundary(['src/store/**/*.ts'], [
    [[...HANDLERS, '**/actors/**', '**/app/**', '**/scheduler/**', '**/http/**', '**/query/**'], 'store/ sits below everything but domain/'],
  ]),
  // query: FIQL, plans and the list engine, below the handlers
  boundary(['src/query/**/*.ts'], [
    [[...HANDLERS, '**/actors/**', '**/app/**', '**/scheduler/**', '**/http/**'], 'query/ sits below the handlers and the actors'],
  ]),
  // actors: the runtime and what runs on it; handlers and the app sit above it
  boundary(['src/actors/**/*.ts'], [
    [[...HANDLERS, '**/app/**', '**/scheduler/**', '**/http/**'], 'actors/ sits below the handlers and the app'],
  ]),
  // scheduler: runs on actors and queries, never through handler code
  boundary(['src/scheduler/**/*.ts'], [
    [[...HANDLERS, '**/http/**'], 'scheduler/ does not import handler code: move what it needs below (query/, actors/)'],
  ]),
  // Management handlers: declare narrow dependencies (no Services locator), know no device API
  boundary(['src/mgmt/**/*.ts'], [
    [['**/ddi/**', '**/dmf/**', '**/scheduler/**', '**/app/services.js', '**/store/memory/**', '**/store/redis/**', 'redis', 'uWebSockets.js'],
      'mgmt/ handlers declare the narrow dependencies they use (kit/deps.ts) and see only the Store port'],
  ]),
  boundary(['src/ddi/**/*.ts'], [
    [['**/mgmt/**', '**/dmf/**', '**/scheduler/**', '**/store/memory/**', '**/store/redis/**', 'redis'],
      'ddi/ does not import Management, DMF or scheduler code'],
  ]),
  // device: the operations both device protocols share (registration, reports, attributes, the action offered,
  // module views); below ddi/ and dmf/, above the actors; narrow dependencies, no protocol code
  boundary(['src/device/**/*.ts'], [
    [[...HANDLERS, '**/scheduler/**', '**/app/**', '**/store/memory/**', '**/store/redis/**', 'redis', 'uWebSockets.js'],
      'device/ sits below both device protocols (ddi/, dmf/): it knows the actors and the Store port, no protocol, app or scheduler code'],
  ]),
  // DMF: the device API over AMQP, beside ddi/: drives the actors, shares the device operations of device/ with
  // ddi/ (never copies them), declares narrow dependencies; only src/app/modules.ts imports it (the HANDLERS lists above)
  boundary(['src/dmf/**/*.ts'], [
    [['**/mgmt/**', '**/ddi/**', '**/scheduler/**', '**/http/**', '**/app/services.js', '**/store/memory/**', '**/store/redis/**', 'redis', 'uWebSockets.js'],
      'dmf/ is a device API like ddi/: actors, device/ operations and the Store port, no Management, DDI, scheduler or HTTP code'],
  ]),
  // events: follows the store's journal for the live streams; below the handlers, beside the actors
  boundary(['src/events/**/*.ts'], [
    [[...HANDLERS, '**/app/**', '**/scheduler/**', '**/http/**', '**/store/memory/**', '**/store/redis/**', 'redis', 'uWebSockets.js'],
      'events/ reads the Store port and the journal\'s event types; the routes that stream them live in mgmt/events'],
  ]),
  // webhooks: the delivery loop over the journal and the Store port (its routes are in mgmt/webhooks); no device or HTTP adapter code
  boundary(['src/webhooks/**/*.ts'], [
    [['**/ddi/**', '**/dmf/**', '**/http/**', '**/app/services.js', '**/store/memory/**', '**/store/redis/**', 'redis', 'uWebSockets.js'],
      'webhooks/ reads the journal through the Store port and sends with undici; it needs no device, HTTP adapter or store adapter code'],
  ]),
  // app: the composition root (see ROOT); it may import every layer
  // apidoc: the OpenAPI document and reference page, generated from the routes it is given (src/app/server.ts passes
  // them all); handlers import its shapes (page envelope, links, error body) for their reply schemas
  boundary(['src/apidoc/**/*.ts'], [
    [[...HANDLERS, ...IO, '**/actors/**', '**/app/**', '**/scheduler/**', '**/store/**', '**/query/**'],
      'apidoc/ reads route declarations only: it knows no handler, store or I/O'],
  ]),
  // auth: sign-in below the handlers (session cookie, OpenID provider, the Management authenticator)
  boundary(['src/auth/**/*.ts'], [
    [[...HANDLERS, '**/session/**', '**/actors/**', '**/app/**', '**/scheduler/**', '**/store/**', '**/query/**', 'uWebSockets.js', 'redis'],
      'auth/ sits beside http/, below the handlers: it knows config, http and domain errors only'],
  ]),
  // session: the sign-in routes for people; narrow dependencies (auth, one Management body reader), no device or store code
  boundary(['src/session/**/*.ts'], [
    [['**/ddi/**', '**/dmf/**', '**/scheduler/**', '**/actors/**', '**/app/services.js', '**/store/**', 'redis', 'uWebSockets.js'],
      'session/ uses src/auth and declares its dependencies; it reads no device, actor or store code'],
  ]),
  boundary(['src/http/**/*.ts'], [
    [[...HANDLERS, '**/actors/**', '**/app/**', '**/scheduler/**'], 'http/ is the adapter below the handlers'],
  ]),
  // console: static files of the built console under /ui/; the http adapter's types and helpers only
  boundary(['src/console/**/*.ts'], [
    [[...HANDLERS, '**/actors/**', '**/scheduler/**', '**/store/**', '**/query/**', '**/domain/**', 'redis'],
      'console/ serves files: it needs the http adapter, nothing of the handlers, actors or store'],
  ]),
  // the console's browser code (ui/, typed by ui/tsconfig.json with the DOM lib for the browser's globals): talks to
  // the server over HTTP only, never imports server code or Node
  boundary(['ui/**/*.ts', 'ui/**/*.tsx'], [
    [[...IO, '**/../src/**', '**/dist/**'], 'ui/ runs in the browser: it calls the server over HTTP and imports no server code or Node module'],
  ]),
  // the simulator behaves like a real device: types from src at most
  {
    files: ['simulator/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/src/**'], allowTypeImports: true, message: 'the simulator may import types from src, no runtime code' }] }],
    },
  },
  // the actor runtime is the only writer of actor records: no Write literal of those kinds elsewhere; and its callers
  // name it by role
  {
    files: ['src/**/*.ts'],
    ignores: ['src/actors/**'],
    rules: {
      'no-restricted-syntax': ['error', {
        selector: "ObjectExpression:has(> Property[key.name='expect']) > Property[key.name='kind'][value.name=/^(TARGET|ACTION|ACTION_STATUS|ROLLOUT|ROLLOUT_GROUP)$/]",
        message: 'actor records (targets, actions and their status history, rollouts and their groups) are written only by the actor runtime (src/actors)',
      }, {
        selector: "TSTypeReference[typeName.name='Pick'] > TSTypeParameterInstantiation > TSTypeReference:first-child[typeName.name='ActorRuntime']",
        message: 'declare the runtime by its role (ActorSender, ActorEditor, ActorComposer in src/actors/roles.ts), not by picked methods',
      }],
    },
  },
  // tests read JSON answers as `any` by design (`res.json().content[0].id`) and pass methods to expect()
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  // the format check (issue 8): @stylistic's formatting rules, fixable with `npm run format`; chosen over prettier
  // because it formats to the house style already in the tree (dense one-line route objects, 140 columns)
  {
    plugins: { '@stylistic': stylistic },
    rules: {
      '@stylistic/max-len': ['error', { code: 140, ignoreUrls: true, ignoreRegExpLiterals: true, ignoreComments: true, ignoreStrings: true, ignoreTemplateLiterals: true }],
      '@stylistic/indent': ['error', 2, { SwitchCase: 1, flatTernaryExpressions: true, ignoredNodes: ['TemplateLiteral *'] }],
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true, allowTemplateLiterals: 'always' }],
      '@stylistic/semi': ['error', 'always'],
      '@stylistic/comma-dangle': ['error', 'always-multiline'],
      '@stylistic/comma-spacing': 'error',
      '@stylistic/key-spacing': 'error',
      '@stylistic/keyword-spacing': 'error',
      '@stylistic/space-infix-ops': 'error',
      '@stylistic/space-before-blocks': 'error',
      '@stylistic/object-curly-spacing': ['error', 'always'],
      '@stylistic/array-bracket-spacing': ['error', 'never'],
      '@stylistic/arrow-spacing': 'error',
      '@stylistic/brace-style': ['error', '1tbs', { allowSingleLine: true }],
      '@stylistic/no-trailing-spaces': 'error',
      '@stylistic/no-multiple-empty-lines': ['error', { max: 1, maxEOF: 0 }],
      '@stylistic/eol-last': 'error',
      '@stylistic/no-tabs': 'error',
      '@stylistic/member-delimiter-style': 'error',
      '@stylistic/type-annotation-spacing': 'error',
    },
  },
);
