// email-reply-parser ships as ES modules only; Node 20 requires it as is, Jest (CommonJS) needs it
// compiled. Its own `require` made with createRequire(import.meta.url) is CommonJS's `require` there.
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { createTransformer } = require('@swc/jest');

const swc = createTransformer({ jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } });

module.exports = {
  // Keyed by this file too: a change here compiles the package again instead of reusing the cache.
  getCacheKey: (source, file) => createHash('sha256').update(readFileSync(__filename)).update(file).update(source).digest('hex'),
  process(source, file, options) {
    const commonJs = source.replace(/^import \{ createRequire \} from "module";\nconst require = createRequire\(import\.meta\.url\);$/m, '');
    return swc.process(commonJs, file, options);
  },
};
