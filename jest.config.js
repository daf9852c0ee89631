/** Test tiers by file suffix (docs/architecture.md habit 8); each tier is a Jest project with its own npm script. */
const transform = {
  '^.+\\.(t|j)sx?$': [
    '@swc/jest',
    {
      jsc: {
        parser: { syntax: 'typescript', tsx: true },
        transform: { react: { runtime: 'automatic' } },
        target: 'es2022',
      },
      module: { type: 'commonjs' },
    },
  ],
};
const tier = (name, suffix, extra = {}) => ({
  displayName: name,
  transform: { '/node_modules/email-reply-parser/.+\\.js$': '<rootDir>/test/support/esm-transform.js', ...transform },
  // The e-mail channel's reply parser is published as ES modules only (test/support/esm-transform.js).
  transformIgnorePatterns: ['/node_modules/(?!email-reply-parser/)'],
  testMatch: [`<rootDir>/{src,web,test,bench}/**/*.${suffix}.spec.{ts,tsx}`],
  testEnvironment: 'node',
  // `#contract/*` is package.json's subpath import; Jest resolves it to the sources, as the `source` condition does.
  moduleNameMapper: { '\\.(css)$': '<rootDir>/test/support/style-stub.js', '^#contract/(.*)$': '<rootDir>/src/contract/$1' },
  ...extra,
});
/**
 * The Mongo path: the read-store contract, the shared-store runners and the app's main integration
 * suites again, with the read models on a MongoDB wire server (FerretDB started by the set-up, or
 * the MongoDB MONGO_URL names). Each test server gets a database of its own (test/support/mongo.ts).
 */
const MONGO_SUITES = [
  'src/platform/readstore/readstore.contract.spec.ts',
  'src/platform/readstore/fenced.int.spec.ts',
  'src/projections/shared.int.spec.ts',
  // Mongo only: several processes on one MongoDB read store.
  'src/projections/fencing.mongo.spec.ts',
  'src/api/tickets/crash.mongo.spec.ts',
  'src/api/tickets/faults.mongo.spec.ts',
  'src/projections/tickets.int.spec.ts',
  'src/projections/crashSafety.int.spec.ts',
  'src/api/tickets/tickets.int.spec.ts',
  'src/api/tickets/tagAdmin.int.spec.ts',
  'src/api/tickets/uploads.int.spec.ts',
  'src/api/tickets/stats.int.spec.ts',
  'src/api/live/tickets.int.spec.ts',
  'src/api/identity/auth.int.spec.ts',
  'src/api/notifications/mentions.int.spec.ts',
  'src/api/categories/categories.int.spec.ts',
  'src/api/canned/canned.int.spec.ts',
  'src/api/search/search.int.spec.ts',
  'src/api/settings/settings.int.spec.ts',
  'src/api/whitelist/whitelist.int.spec.ts',
  // The event feed and webhooks read the feed's read model.
  'src/api/events/feed.int.spec.ts',
  'src/api/webhooks/webhooks.int.spec.ts',
  // Suites only the Mongo path has (`*.mongo.spec.ts`, no other tier runs them).
  'src/projections/commandsPerMessage.mongo.spec.ts',
  'src/cli/rebuild.mongo.spec.ts',
  'src/main.mongo.spec.ts',
];
/** The tiers that use Redis start one when none is given (test/support/services.ts) and stop it after. */
const withRedis = { globalSetup: '<rootDir>/test/support/redis-setup.ts', globalTeardown: '<rootDir>/test/support/redis-teardown.ts' };
const mongo = {
  ...tier('mongo', 'int', {
    setupFilesAfterEnv: ['<rootDir>/test/support/int-setup.js'],
    globalSetup: '<rootDir>/test/support/mongo-setup.ts',
    globalTeardown: '<rootDir>/test/support/mongo-teardown.ts',
  }),
  testMatch: MONGO_SUITES.map((suite) => `<rootDir>/${suite}`),
};
module.exports = {
  // No forceExit: each tier ends on its own once its suites have closed what they opened. A tier's
  // global teardown arms a guard (test/support/openHandles.ts) that, should the process still be up
  // seconds later, prints the handles holding it and ends the run with a failure instead of a hang.
  projects: [
    tier('unit', 'unit', { globalTeardown: '<rootDir>/test/support/openHandles.ts' }),
    tier('contract', 'contract', withRedis),
    tier('int', 'int', { setupFilesAfterEnv: ['<rootDir>/test/support/int-setup.js'], ...withRedis }),
    mongo,
    tier('e2e', 'e2e', {
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-setup.js'],
      ...withRedis,
      globalSetup: '<rootDir>/test/support/e2e-global-setup.ts',
    }),
  ],
};
