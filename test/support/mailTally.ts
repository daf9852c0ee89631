import { type Tally, tally } from './tally';

/** A GET of the desk's API as the admin, answering the JSON body. */
export type AdminGet = (route: string) => Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test helper reads arbitrary JSON

/** Each ticket's texts that start with `prefix` (its description, then its messages in order), as many times as each is there. */
export async function textsByTicket(get: AdminGet, prefix: string): Promise<string[][]> {
  const list = (await get('/api/tickets?limit=100')).tickets as Array<{ _id: string }>;
  const tickets: string[][] = [];
  for (const { _id } of list) {
    const { ticket, messages } = await get(`/api/tickets/${_id}?limit=100`);
    const texts = [ticket.description, ...messages.map((message: { content: string }) => message.content)].filter((text: string) => text.startsWith(prefix));
    if (texts.length > 0) tickets.push(texts);
  }
  return tickets;
}

/**
 * What arrived of the mails `expected` (in the order put in the mailbox, `senderOf` each one's sender):
 * lost and doubled over the whole desk; order per sender, since each sender's mails are one ticket's
 * conversation (one open ticket each), each ticket held to its sender's mails in the order sent.
 */
export function mailTally(expected: string[], senderOf: Map<string, string>, byTicket: string[][]): Tally {
  const inOrder = byTicket.flatMap((texts) => expected.filter((text) => senderOf.get(text) === senderOf.get(texts[0]!)));
  return { ...tally(expected, byTicket.flat()), reordered: tally(inOrder, byTicket.flat()).reordered };
}
