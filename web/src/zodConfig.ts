import { z } from 'zod';

/**
 * zod compiles object parsers with `new Function` when it may, and probes for that the first time
 * an object schema is built. The page's Content-Security-Policy forbids eval, so the probe is
 * reported as a violation on every form page although zod then falls back. Jitless mode skips the
 * probe and the compiling. It must run before any schema is built, so main.tsx imports this first.
 */
z.config({ jitless: true });
