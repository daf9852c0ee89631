import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { readdirSync } from 'node:fs';

/**
 * Layer directions (docs/architecture.md, "What may import what"): the HTTP routes (src/api) and the workers, the
 * Telegram bot among them (src/workers), both run commands through the application layer
 * (src/app) and never import each other; the application layer knows neither, nor HTTP; the
 * domain imports nothing of the outer layers. The wire contract (src/contract, docs/contract.md) is
 * the innermost kernel: everyone may import it as `#contract/*`, it imports none of them, and it is
 * the only server code the web app sees. A rule is the only boundary that lasts.
 */
const layer = (name) => ({ regex: `(^|/)${name}(/|$)` });
const forbid = (files, message, ...layers) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: layers.map((name) => ({ ...layer(name), message })) }] },
});

/**
 * The web app's directions (docs/web.md), as bulletproof-react draws them: shared code
 * (web/src/components, lib, entities) -> features -> app. A feature may use the shared code, the
 * app's store, hooks and API (app/store, app/hooks, app/api) and `#contract/*`, but never another
 * feature nor the app's routes and shell: what two features need moves down into an entity. Shared
 * code imports no feature. "Another feature" is no pattern, so there is one override a feature; each
 * repeats the server pattern, since a later override's options replace an earlier one's.
 */
const serverFromWeb = {
  regex: '(^|/)src/(api|app|cli|contract|demo|domain|platform|projections|workers)(/|$)',
  message: "The web app sees the server only through the wire contract: import '#contract/<module>' (docs/contract.md).",
};
const webRule = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns: [serverFromWeb, ...patterns] }] });
const appComposition = {
  regex: '(^|/)app/(App|shell)(/|$)',
  message: 'The routes and the shell compose the features; nothing below the app imports them (docs/web.md).',
};
const webFeatures = readdirSync(new URL('./web/src/features/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const webZones = [
  { files: ['web/**/*.{ts,tsx}'], rules: webRule() },
  ...webFeatures.map((feature) => {
    const others = webFeatures.filter((name) => name !== feature).join('|');
    return {
      files: [`web/src/features/${feature}/**/*.{ts,tsx}`],
      rules: webRule(
        {
          regex: `^(\\.\\./)+(${others})(/|$)|(^|/)features/(${others})(/|$)`,
          message: `The ${feature} feature imports no other feature: move what both need into web/src/entities (docs/web.md).`,
        },
        appComposition,
      ),
    };
  }),
  {
    files: ['web/src/{entities,components,lib}/**/*.{ts,tsx}'],
    rules: webRule(
      { regex: '(^|/)features(/|$)', message: 'Shared web code (entities, components, lib) imports no feature: features build on it (docs/web.md).' },
      appComposition,
    ),
  },
];

const zones = [
  forbid(['src/api/**/*.ts'], 'HTTP routes run commands through src/app, never through the workers.', 'workers'),
  forbid(['src/workers/**/*.ts'], 'Workers and the bot run commands through src/app, never through the HTTP layer.', 'api'),
  {
    files: ['src/app/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['express', 'multer', 'socket.io'].map((name) => ({
            name,
            message: 'The application layer is HTTP-free: parsing requests belongs to src/api.',
          })),
          patterns: ['api', 'workers'].map((name) => ({
            ...layer(name),
            message: 'The application layer is called by src/api and src/workers and imports neither.',
          })),
        },
      ],
    },
  },
  forbid(
    ['src/projections/**/*.ts', 'src/platform/**/*.ts'],
    'Read models and adapters sit below the application layer and import none of it.',
    'api',
    'app',
    'workers',
  ),
  forbid(['src/domain/**/*.ts'], 'The domain imports nothing of the outer layers.', 'api', 'app', 'workers', 'platform', 'projections', 'cli'),
  forbid(
    ['src/contract/**/*.ts'],
    'The wire contract is the innermost module: it imports zod, never the server layers.',
    'api',
    'app',
    'workers',
    'platform',
    'projections',
    'domain',
    'cli',
    'demo',
  ),
  ...webZones,
];

export default tseslint.config(
  { ignores: ['**/dist/**', 'node_modules/**', 'coverage/**', 'test-results/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['src/cli/**/*.ts', 'bench/**/*.ts', '**/*.js', '**/*.mjs'],
    rules: { 'no-console': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  ...zones,
);
