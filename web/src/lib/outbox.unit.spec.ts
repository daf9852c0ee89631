/** @jest-environment ./test/support/jsdom-environment.js */
import {
  type Delivery,
  type Outgoing,
  discardMessage,
  enqueueMessage,
  flushAllOutboxes,
  flushOutbox,
  noteSending,
  recoverSending,
  retryMessage,
} from './outbox';

const USER = 'user-1';
const TICKET = 'ticket-1';
const OTHER_TICKET = 'ticket-2';
const WRITTEN_AT = '2026-11-20T10:00:00.000Z';
const stored = (ticketId = TICKET, userId = USER) => JSON.parse(localStorage.getItem(`outbox:${userId}:${ticketId}`) ?? '[]') as Outgoing[];
const write = (key: string, content: string, ticketId = TICKET) =>
  enqueueMessage(USER, { key, ticketId, ticketKey: ticketId, content, isInternal: false, writtenAt: WRITTEN_AT });

/** A server stand-in for the send seam: answers each try with the next outcome given, and logs what it got. */
function desk(...outcomes: Delivery[]) {
  const got: Array<{ key: string; content: string }> = [];
  const send = jest.fn(async (message: Outgoing): Promise<Delivery> => {
    got.push({ key: message.key, content: message.content });
    return outcomes.shift() ?? 'sent';
  });
  return { got, send };
}

const setOnline = (online: boolean) => Object.defineProperty(window.navigator, 'onLine', { configurable: true, get: () => online });

describe('Outbox (messages written while the desk cannot be reached)', () => {
  beforeEach(() => {
    setOnline(true);
    // Empty whatever a previous test left, through the module so its cache forgets it too.
    for (const ticketId of [TICKET, OTHER_TICKET]) for (const { key } of stored(ticketId)) discardMessage(USER, ticketId, key);
    localStorage.clear();
  });

  it('when messages are written, then they are kept in the order written, in storage per user and ticket', () => {
    write('k1', 'first');
    write('k2', 'second');
    write('k3', 'elsewhere', OTHER_TICKET);
    expect(stored().map((message) => [message.key, message.content, message.refused])).toEqual([
      ['k1', 'first', null],
      ['k2', 'second', null],
    ]);
    expect(stored(OTHER_TICKET).map((message) => message.content)).toEqual(['elsewhere']);
    expect(stored(TICKET, 'user-2')).toEqual([]);
  });

  it('when the page is loaded again, then what was stored is sent from storage', async () => {
    localStorage.setItem(
      `outbox:${USER}:${TICKET}`,
      JSON.stringify([
        { key: 'k9', ticketId: TICKET, ticketKey: '1001', content: 'from before the reload', isInternal: true, writtenAt: WRITTEN_AT, refused: null },
      ]),
    );
    const { got, send } = desk();
    await jest.isolateModulesAsync(async () => {
      const fresh = await import('./outbox');
      await fresh.flushAllOutboxes(USER, send);
    });
    expect(got).toEqual([{ key: 'k9', content: 'from before the reload' }]);
    expect(localStorage.getItem(`outbox:${USER}:${TICKET}`)).toBeNull();
  });

  it('when a page is reloaded while a message is on its way, then the next page sends it again with its key; a settled one is forgotten', async () => {
    const message = (key: string, content: string, writtenAt: string): Outgoing => ({
      key,
      ticketId: TICKET,
      ticketKey: '1001',
      content,
      isInternal: false,
      writtenAt,
      refused: null,
    });
    const settled = noteSending(USER, message('k0', 'answered', WRITTEN_AT));
    settled();
    noteSending(USER, message('k2', 'second on its way', '2026-11-20T10:00:02.000Z'));
    noteSending(USER, message('k1', 'first on its way', '2026-11-20T10:00:01.000Z'));
    // This page does not take its own sends from under itself.
    recoverSending(USER);
    expect(stored()).toEqual([]);
    const { got, send } = desk();
    await jest.isolateModulesAsync(async () => {
      const fresh = await import('./outbox');
      fresh.recoverSending(USER);
      fresh.recoverSending(USER);
      await fresh.flushAllOutboxes(USER, send);
    });
    expect(got).toEqual([
      { key: 'k1', content: 'first on its way' },
      { key: 'k2', content: 'second on its way' },
    ]);
    expect(Object.keys(localStorage)).toEqual([]);
  });

  it('when the connection returns, then each message is sent once, in order, with its own key, however often it is asked', async () => {
    write('k1', 'first');
    write('k2', 'second');
    const { got, send } = desk();
    await Promise.all([flushOutbox(USER, TICKET, send), flushOutbox(USER, TICKET, send), flushAllOutboxes(USER, send)]);
    expect(got).toEqual([
      { key: 'k1', content: 'first' },
      { key: 'k2', content: 'second' },
    ]);
    expect(stored()).toEqual([]);
  });

  it('when a try gets no answer, then it and the later ones wait, and the next return sends them with the same keys', async () => {
    write('k1', 'first');
    write('k2', 'second');
    const { got, send } = desk('unreachable');
    await flushOutbox(USER, TICKET, send);
    expect(got).toEqual([{ key: 'k1', content: 'first' }]);
    expect(stored().map((message) => message.key)).toEqual(['k1', 'k2']);
    await flushOutbox(USER, TICKET, send);
    expect(got.map((message) => message.key)).toEqual(['k1', 'k1', 'k2']);
    expect(stored()).toEqual([]);
  });

  it('when the browser is offline, then nothing is tried, and once it is back the message goes', async () => {
    write('k1', 'first');
    setOnline(false);
    const { send } = desk();
    await flushOutbox(USER, TICKET, send);
    expect(send).not.toHaveBeenCalled();
    expect(stored()).toHaveLength(1);
    setOnline(true);
    await flushOutbox(USER, TICKET, send);
    expect(send).toHaveBeenCalledTimes(1);
    expect(stored()).toEqual([]);
  });

  it('when the server refuses one, then it keeps the reason and is not sent again until Retry; the later ones go on', async () => {
    write('k1', 'refused one');
    write('k2', 'second');
    const { got, send } = desk({ refused: 'Ticket is closed' });
    await flushOutbox(USER, TICKET, send);
    expect(got.map((message) => message.key)).toEqual(['k1', 'k2']);
    expect(stored()).toEqual([expect.objectContaining({ key: 'k1', refused: 'Ticket is closed' })]);
    await flushOutbox(USER, TICKET, send);
    expect(got).toHaveLength(2);
    retryMessage(USER, TICKET, 'k1');
    await flushOutbox(USER, TICKET, send);
    expect(got.map((message) => message.key)).toEqual(['k1', 'k2', 'k1']);
    expect(stored()).toEqual([]);
  });

  it('when a waiting message is cancelled, then it is never sent; one on its way cannot be cancelled', async () => {
    write('k1', 'on its way');
    write('k2', 'cancelled');
    let answer: (delivery: Delivery) => void = () => undefined;
    const got: string[] = [];
    const send = (message: Outgoing) => {
      got.push(message.key);
      return new Promise<Delivery>((resolve) => (answer = resolve));
    };
    const flushed = flushOutbox(USER, TICKET, send);
    discardMessage(USER, TICKET, 'k1');
    discardMessage(USER, TICKET, 'k2');
    answer('sent');
    await flushed;
    expect(got).toEqual(['k1']);
    expect(stored()).toEqual([]);
  });
});
