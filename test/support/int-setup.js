// Integration suites start real servers (argon2 hashing, SQLite, Redis) in their hooks: seconds on a
// 2-core machine that is busy, where Jest's default 5 s made set-up fail under load. The budget guards
// against hangs, not slowness. (`testTimeout` in a project's config is not applied per project.)
jest.setTimeout(30_000);
