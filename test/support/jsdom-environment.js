/**
 * jsdom for component tests, with the few Web APIs that Node has and jsdom leaves out (react-router
 * encodes URLs with TextEncoder; RTK Query expects fetch and its classes to exist). Used through `@jest-environment ./test/support/jsdom-environment.js`.
 */
const { TextDecoder, TextEncoder } = require('node:util');
const { default: JSDOMEnvironment } = require('jest-environment-jsdom');

class WebEnvironment extends JSDOMEnvironment {
  async setup() {
    await super.setup();
    Object.assign(this.global, { TextEncoder, TextDecoder, fetch, Request, Response, Headers });
  }
}

module.exports = WebEnvironment;
