import argon2 from 'argon2';
import { categoryDecider } from '../src/domain/category/decide';
import { categoryStream } from '../src/domain/category/category';
import { type TicketCommand, ticketDecider } from '../src/domain/ticket/decide';
import { TICKET_NUMBER_STREAM, FIRST_TICKET_NUMBER, type TicketEvent, type TicketState, ticketStream } from '../src/domain/ticket/ticket';
import type { Priority } from '#contract/tickets';
import { userDecider } from '../src/domain/user/decide';
import { userStream } from '../src/domain/user/user';
import type { Role } from '#contract/users';
import { claim } from '../src/app/reservations';
import { OPEN_TICKET_MESSAGE, ticketOwners } from '../src/app/tickets/service';
import { userOwners } from '../src/app/identity/service';
import { type CommandContext, handleCommand, metadataOf } from '../src/platform/commands';
import type { EventStore, NewEvent } from '../src/platform/eventstore/port';
import { textGenerator } from './text';

/**
 * Builds a desk with a history: staff, customers, categories, and tickets that lived a whole life
 * (opened, taken, talked through, an outcome, resolved, some closed), the newest ones still open.
 * Every event is decided by the domain's own deciders and appended through the EventStore port, so
 * the log is what the app itself would have written; only the argon2 hash is computed once and
 * shared, and a ticket's whole life goes in one append (the batching the append figure measures).
 */
export interface SeedOptions {
  tickets: number;
  /** Total events to aim for; messages per ticket are spread to reach it. */
  events: number;
  agents?: number;
  categories?: number;
  /** Share of the newest tickets left open (one per customer, as the one-open-ticket rule wants). */
  openShare?: number;
  password: string;
  onProgress?: (done: number, total: number) => void;
}

export interface SeededDesk {
  admin: Person;
  agents: Person[];
  customers: Person[];
  categories: string[];
  /** Open tickets with their customer, newest first. */
  openTickets: Array<{ ticketId: string; number: number; customer: Person; status: string }>;
  tickets: number;
  events: number;
}

export interface Person {
  userId: string;
  email: string;
  role: Role;
}

const WORDS = (
  'account password login order invoice refund shipping delivery payment card subscription plan upgrade ' +
  'error page loading slow mobile app email address change cancel renew discount code missing item ' +
  'package tracking number warranty replacement broken screen battery settings profile notification'
).split(' ');
const COLORS = ['#007bff', '#28a745', '#dc3545', '#ffc107', '#17a2b8', '#6f42c1', '#fd7e14', '#20c997'];
const PRIORITIES: Priority[] = ['low', 'medium', 'medium', 'high', 'urgent'];
const DAY = 24 * 60 * 60 * 1000;

/** mulberry32: a small seeded generator, so two runs build the same desk. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
    words: (count: number) => Array.from({ length: count }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' '),
  };
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
/** Deterministic UUID-shaped ids, readable in a dump: kind in the first group, index in the last. */
const idOf = (kind: number, index: number) => `${hex(kind, 8)}-0000-4000-8000-${hex(index, 12)}`;

export async function seedDesk(events: EventStore, options: SeedOptions): Promise<SeededDesk> {
  const rnd = random(20261121);
  const text = textGenerator(rnd);
  const agentCount = options.agents ?? 10;
  const categoryCount = options.categories ?? 8;
  const customerCount = Math.max(10, Math.round(options.tickets / 10));
  const openCount = Math.max(1, Math.min(customerCount, Math.round(options.tickets * (options.openShare ?? 0.05))));
  const passwordHash = await argon2.hash(options.password, { type: argon2.argon2id });
  const start = Date.now() - 90 * DAY;
  const span = 90 * DAY - 60 * 60 * 1000;
  const deps = { events };
  let appended = 0;

  const system = (now: Date): CommandContext => ({ actor: { userId: 'system', role: 'system', platform: 'system' }, now });
  const person = async (index: number, role: Role, prefix: string, now: Date): Promise<Person> => {
    const userId = idOf(role === 'customer' ? 3 : role === 'agent' ? 2 : 1, index);
    const profile = {
      username: `${prefix}${index}`,
      email: `${prefix}${index}@bench.example`,
      firstName: `${prefix[0]!.toUpperCase()}${prefix.slice(1)}`,
      lastName: `Number${index}`,
    };
    const context = { ...system(now), actor: { userId, role, platform: 'web' as const } };
    for (const [kind, value, code] of [
      ['email', profile.email, 'EMAIL_TAKEN'],
      ['username', profile.username, 'USERNAME_TAKEN'],
    ] as const) {
      await claim(deps, userId, { kind, value, conflictMessage: 'taken', conflictCode: code }, context, userOwners);
    }
    const command =
      role === 'customer'
        ? { type: 'RegisterUser' as const, userId, profile, passwordHash }
        : { type: 'CreateUser' as const, userId, profile, role, isActive: true, passwordHash, telegramUsername: null };
    await handleCommand(events, userStream(userId), userDecider, command, context);
    appended += 3;
    return { userId, email: profile.email, role };
  };

  const admin = await person(0, 'admin', 'admin', new Date(start - DAY));
  const agents: Person[] = [];
  for (let i = 0; i < agentCount; i++) agents.push(await person(i, 'agent', 'agent', new Date(start - DAY)));
  const categories: string[] = [];
  for (let i = 0; i < categoryCount; i++) {
    const categoryId = idOf(4, i);
    const input = { name: `${rnd.pick(WORDS)} ${i}`, description: rnd.words(8), color: COLORS[i % COLORS.length]!, order: i, isActive: true, customFields: [] };
    await handleCommand(events, categoryStream(categoryId), categoryDecider, { type: 'CreateCategory', categoryId, input }, system(new Date(start - DAY)));
    categories.push(categoryId);
    appended++;
  }
  const customers: Person[] = [];
  for (let i = 0; i < customerCount; i++) customers.push(await person(i, 'customer', 'customer', new Date(start - DAY + i)));

  const openTickets: SeededDesk['openTickets'] = [];
  let numbers: NewEvent[] = [];
  let numberRevision: number | null = null;
  const flushNumbers = async () => {
    if (numbers.length === 0) return;
    const result = await events.append(TICKET_NUMBER_STREAM, numbers, numberRevision ?? 'no_stream');
    numberRevision = result.nextRevision;
    appended += numbers.length;
    numbers = [];
  };

  for (let i = 0; i < options.tickets; i++) {
    const ticketId = idOf(5, i);
    const number = FIRST_TICKET_NUMBER + i;
    const customer = customers[i % customerCount]!;
    const agent = agents[rnd.int(0, agents.length - 1)]!;
    const stillOpen = i >= options.tickets - openCount;
    let now = start + (span * i) / options.tickets;
    const life: NewEvent[] = [];
    let state: TicketState = ticketDecider.initialState;
    const run = (command: TicketCommand, actor: Person, platform: 'web' | 'telegram' = 'web') => {
      now += rnd.int(1, 30) * 60_000;
      const context: CommandContext = { actor: { userId: actor.userId, role: actor.role, platform }, now: new Date(now) };
      const decided = ticketDecider.decide(command, state) as TicketEvent[];
      for (const event of decided) {
        state = ticketDecider.evolve(state, event);
        life.push({ type: event.type, data: event.data as Record<string, unknown>, metadata: metadataOf(context) });
      }
    };
    const as = (who: Person) => ({ userId: who.userId, role: who.role });
    const say = (who: Person, isInternal = false) =>
      run(
        {
          type: 'PostMessage',
          ticketId,
          messageId: `${ticketId.slice(0, 24)}${hex(life.length, 12)}`,
          actor: as(who),
          content: text.sentences(1, 4),
          isInternal,
          platform: 'web',
          attachments: [],
          now: new Date(now),
        },
        who,
      );

    numbers.push({
      type: 'TicketNumberAllocated',
      data: { number, ticketId },
      metadata: metadataOf({ actor: { userId: customer.userId, role: 'customer', platform: 'web' }, now: new Date(now) }),
    });
    const platform = rnd.next() < 0.15 ? 'telegram' : 'web';
    run(
      {
        type: 'OpenTicket',
        ticketId,
        number,
        customerId: customer.userId,
        platform,
        title: text.title(),
        description: text.sentences(2, 5),
        priority: rnd.pick(PRIORITIES),
        category: { categoryId: rnd.pick(categories), isActive: true, customFields: [] },
        answers: {},
      },
      customer,
      platform,
    );
    // Spread the remaining event budget over the remaining tickets: about 6 events of ceremony each.
    const budget = (options.events - appended - numbers.length) / (options.tickets - i);
    const messages = Math.max(1, Math.round(budget - 6.5 + (rnd.next() - 0.5) * 2));
    say(customer);
    if (stillOpen) {
      const stage = rnd.int(0, 2);
      if (stage >= 1) {
        run({ type: 'AssignTicket', ticketId, actor: as(agent), agent: { userId: agent.userId, role: 'agent', isActive: true } }, agent);
        for (let m = 1; m < messages; m++) say(m % 2 === 1 ? agent : customer);
      }
      if (stage === 2) run({ type: 'ChangeTicketStatus', ticketId, actor: as(agent), status: 'pending_customer' }, agent);
      openTickets.push({ ticketId, number, customer, status: stage === 0 ? 'open' : stage === 1 ? 'in_progress' : 'pending_customer' });
    } else {
      run({ type: 'AssignTicket', ticketId, actor: as(agent), agent: { userId: agent.userId, role: 'agent', isActive: true } }, agent);
      for (let m = 1; m < messages; m++) say(m % 2 === 1 ? agent : customer, m === 1 && rnd.next() < 0.3);
      run({ type: 'MarkMessagesRead', ticketId, actor: as(customer) }, customer);
      run({ type: 'RecordOutcome', ticketId, actor: as(agent), outcomeMessage: rnd.words(rnd.int(5, 15)) }, agent);
      run({ type: 'ChangeTicketStatus', ticketId, actor: as(agent), status: 'resolved' }, agent);
      if (rnd.next() < 0.5) run({ type: 'ChangeTicketStatus', ticketId, actor: as(agent), status: 'closed' }, agent);
    }
    if (numbers.length >= 1000) await flushNumbers();
    await events.append(ticketStream(ticketId), life, 'no_stream');
    appended += life.length;
    options.onProgress?.(i + 1, options.tickets);
  }
  await flushNumbers();
  // One open ticket per customer, held in the reservation the API itself checks.
  for (const open of openTickets) {
    const context: CommandContext = { actor: { userId: open.customer.userId, role: 'customer', platform: 'web' }, now: new Date() };
    await claim(
      deps,
      open.ticketId,
      { kind: 'openticket', value: open.customer.userId, conflictMessage: OPEN_TICKET_MESSAGE, conflictCode: 'OPEN_TICKET_EXISTS' },
      context,
      ticketOwners,
    );
  }
  openTickets.reverse();
  return { admin, agents, customers, categories, openTickets, tickets: options.tickets, events: await events.headPosition() };
}
