import { requireTools } from './services';

/** The first step of `npm test`: what the tiers need from the machine, checked before minutes of type-checking and linting. */
requireTools(['redis', 'chromium']).catch((error: unknown) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
