import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { createLogger } from './logger';

/** A stream that collects what the logger writes and says whether it is a terminal, as process.stdout does. */
function output(isTTY: boolean) {
  const stream = Object.assign(new PassThrough(), { isTTY });
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  return { stream, text: () => chunks.join('') };
}

describe('createLogger', () => {
  it('when standard output is a terminal, then lines are pretty for a person: level word and message, not JSON', () => {
    const out = output(true);
    createLogger({ level: 'info', destination: out.stream }).info({ tickets: 3 }, 'read models caught up');
    const coloured = out.text();
    expect(coloured).toContain('\u001b[');
    const line = stripVTControlCharacters(coloured);
    expect(line).toContain('read models caught up');
    expect(line).toContain('INFO');
    expect(line).toContain('tickets: 3');
    expect(() => JSON.parse(line)).toThrow();
  });

  it('when standard output is not a terminal, then every line is one JSON object', () => {
    const out = output(false);
    createLogger({ level: 'info', destination: out.stream }).info({ tickets: 3 }, 'read models caught up');
    const lines = out.text().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, msg: 'read models caught up', tickets: 3 });
  });

  it('when LOG_FORMAT forces a format, then it wins over the guess from the terminal', () => {
    const terminal = output(true);
    createLogger({ level: 'info', format: 'json', destination: terminal.stream }).warn('disk almost full');
    expect(JSON.parse(terminal.text())).toMatchObject({ level: 40, msg: 'disk almost full' });
    const pipe = output(false);
    createLogger({ level: 'info', format: 'pretty', destination: pipe.stream }).warn('disk almost full');
    expect(pipe.text()).toContain('WARN');
    expect(pipe.text()).not.toContain('\u001b[');
  });

  it('when a line is below the level, then nothing is written', () => {
    const out = output(true);
    createLogger({ level: 'warn', destination: out.stream }).info('chatty');
    expect(out.text()).toBe('');
  });
});
