/** Test tiers by file suffix (STYLE.md habit 8); each tier is a Jest project with its own npm script. */
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
  transform,
  testMatch: [`<rootDir>/{src,web,test,bench}/**/*.${suffix}.spec.{ts,tsx}`],
  testEnvironment: 'node',
  // `#contract/*` is package.json's subpath import; Jest resolves it to the sources, as the `source` condition does.
  moduleNameMapper: { '\\.(css)$': '<rootDir>/test/support/style-stub.js', '^#contract/(.*)$': '<rootDir>/src/contract/$1' },
  ...extra,
});
module.exports = {
  projects: [
    tier('unit', 'unit'),
    tier('contract', 'contract'),
    tier('int', 'int', { setupFilesAfterEnv: ['<rootDir>/test/support/int-setup.js'] }),
    tier('e2e', 'e2e', { setupFilesAfterEnv: ['<rootDir>/test/support/e2e-setup.js'] }),
  ],
};
