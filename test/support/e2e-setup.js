// Two browser contexts and a server on a 2-core machine: a step can take seconds, not a hang.
// (`testTimeout` in a project's config is not applied per project, so the e2e tier sets it here.)
jest.setTimeout(30_000);
