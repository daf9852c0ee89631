import { MongoNetworkTimeoutError, MongoServerError } from 'mongodb';
import { TransientStoreError } from './port';
import { isTransient, isTransientMongoError } from './transient';

const serverError = (code: number, errmsg: string) => new MongoServerError({ code, errmsg, ok: 0 });

describe('Store errors, classified once', () => {
  it('when MongoDB answers not primary, stepping down, shutting down or out of time, then it is transient', () => {
    for (const [code, message] of [
      [10107, 'not writable primary'],
      [13435, 'not primary and secondaryOk=false'],
      [189, 'primary stepped down'],
      [91, 'shutdown in progress'],
      [11602, 'interrupted due to repl state change'],
      [50, 'operation exceeded time limit'],
    ] as const) {
      expect(isTransientMongoError(serverError(code, message))).toBe(true);
    }
    expect(isTransientMongoError(new MongoNetworkTimeoutError('timed out'))).toBe(true);
  });

  it('when MongoDB refuses what was asked (a document too large, a bad update), then it is not transient', () => {
    expect(isTransientMongoError(serverError(10334, 'BSONObj size is invalid'))).toBe(false);
    expect(isTransientMongoError(serverError(9, 'Modifiers operate on fields but we found type string instead'))).toBe(false);
  });

  it('when a connection breaks under any store, then it is transient; an error of the event is not', () => {
    expect(isTransient(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isTransient(new TransientStoreError('tickets', new Error('away')))).toBe(true);
    expect(isTransient(new TypeError("Cannot read properties of undefined (reading 'name')"))).toBe(false);
  });
});
