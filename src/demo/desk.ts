import { randomUUID } from 'node:crypto';
import { satisfactionDecider } from '../domain/satisfaction/decide';
import { choosePolicy } from '../domain/sla/policy';
import { SLA_SETTINGS_STREAM, slaSettingsDecider } from '../domain/sla/settings';
import type { SlaSettings } from '#contract/sla';
import argon2 from 'argon2';
import { cannedDecider } from '../domain/canned/decide';
import { cannedStream } from '../domain/canned/canned';
import { categoryDecider } from '../domain/category/decide';
import { macroDecider } from '../domain/macro/decide';
import { ruleDecider } from '../domain/rule/decide';
import { type RuleDetails, ruleStream } from '../domain/rule/rule';
import { type MacroDetails, macroStream } from '../domain/macro/macro';
import { categoryStream } from '../domain/category/category';
import type { CustomField } from '#contract/categories';
import { ConflictError } from '#contract/errors';
import { reservationDecider, reservationStream } from '../domain/reservation/reservation';
import { type CategoryLookup, type TeamLookup, type TicketActor, type TicketCommand, ticketDecider } from '../domain/ticket/decide';
import { teamDecider } from '../domain/team/decide';
import { teamStream } from '../domain/team/team';
import { viewDecider } from '../domain/view/decide';
import { type ViewDetails, scopeKey, viewStream } from '../domain/view/view';
import { OPEN_STATUSES } from '#contract/tickets';
import type { CustomFieldAnswer } from '#contract/customFields';
import { FIRST_TICKET_NUMBER, type MessagesMovedOutData, TICKET_NUMBER_STREAM, type TicketOpenedData, ticketStream } from '../domain/ticket/ticket';
import { type Priority, type TicketStatus, isOpenStatus } from '#contract/tickets';
import { userDecider } from '../domain/user/decide';
import { userStream } from '../domain/user/user';
import type { Role } from '#contract/users';
import { type CommandContext, foldStream, handleCommand, metadataOf } from '../platform/commands';
import type { EventStore } from '../platform/eventstore/port';

/**
 * A desk a newcomer can look around in: people with names, categories with custom fields, canned
 * replies, and tickets in every status with their conversations, internal notes and outcomes, spread
 * over the last three weeks. Everything is decided by the domain's deciders and appended through the
 * EventStore port, so the read models are built from it exactly as from a desk that was really used.
 */

/** The demo's passwords are fixed and printed: it is a demo, not a desk to keep. */
export const DEMO_PASSWORDS = { admin: 'demo-admin', agent: 'demo-agent', customer: 'demo-customer' } as const;

export class DemoRefusedError extends Error {}

const MACROS: MacroDetails[] = [
  {
    name: 'Refund issued',
    shortcode: 'refund-done',
    reply:
      'Hi {{customer.firstName}}, we have issued your refund for ticket #{{ticket.number}}; it shows on your statement in 3 to 5 working days. {{agent.firstName}}',
    actions: [
      { type: 'status', status: 'resolved' },
      { type: 'note', text: 'Refund issued by {{agent.name}}' },
    ],
    shared: true,
  },
  {
    name: 'Taking this one',
    shortcode: 'mine',
    reply: 'Hi {{customer.firstName}}, I\'m {{agent.firstName}} and I\'ll look after "{{ticket.title}}" from here.',
    actions: [
      { type: 'assign', agentId: 'me' },
      { type: 'priority', priority: 'high' },
    ],
    shared: false,
  },
];

interface DemoAccount {
  role: Role;
  name: string;
  email: string;
  password: string;
}

export interface DemoDesk {
  /** One account of each role to sign in with; every agent and customer shares its role's password. */
  accounts: { admin: DemoAccount; agent: DemoAccount; customer: DemoAccount };
  agents: number;
  customers: number;
  categories: number;
  cannedMessages: number;
  macros: number;
  rules: number;
  ticketsByStatus: Record<TicketStatus, number>;
  events: number;
}

interface Person {
  userId: string;
  role: Role;
  firstName: string;
  lastName: string;
  username: string;
  email: string;
}

const AGENTS = [
  ['Priya', 'Raman'],
  ['Marcus', 'Lee'],
  ['Sofia', 'Alvarez'],
  ['Tom', 'Becker'],
] as const;

const CUSTOMERS = [
  ['Emma', 'Johnson'],
  ['Liam', 'Chen'],
  ['Olivia', 'Brown'],
  ['Noah', 'Patel'],
  ['Ava', 'Martinez'],
  ['Lucas', 'Novak'],
  ['Mia', 'Rossi'],
  ['Ethan', 'Walker'],
  ['Hannah', 'Kim'],
  ['Sofia', 'Garcia'],
] as const;

type CategoryKey = 'billing' | 'technical' | 'account' | 'shipping';

/** The demo's rules: an urgent Billing ticket is tagged and Payments told; a breached target raises the priority; a ticket resolved for 4 days is closed (switched off). */
function demoRules(teams: Partial<Record<CategoryKey, TeamLookup>>, categories: Record<CategoryKey, CategoryLookup>): Array<Omit<RuleDetails, 'order'>> {
  const payments = teams.billing!;
  return [
    {
      name: 'Urgent billing: tag and tell Payments',
      enabled: true,
      trigger: { kind: 'event', events: ['ticket_created'] },
      conditions: [
        { field: 'priority', op: 'is', values: ['urgent'] },
        { field: 'category', op: 'is', values: [categories.billing.categoryId] },
      ],
      actions: [
        { type: 'tag', tag: 'urgent-billing' },
        { type: 'notify_team', teamId: payments.teamId, text: 'Urgent billing ticket #{{ticket.number}} from {{customer.name}}: {{ticket.title}}' },
      ],
    },
    {
      name: 'Breached: raise to urgent',
      enabled: true,
      trigger: { kind: 'event', events: ['sla_breach'] },
      conditions: [{ field: 'status', op: 'is_not', values: ['resolved', 'closed'] }],
      actions: [
        { type: 'priority', priority: 'urgent' },
        { type: 'note', text: 'An SLA target of #{{ticket.number}} was breached: the priority was raised to urgent.' },
      ],
    },
    // Switched off: on, it would close at once the stories' tickets resolved over 4 days ago; its dry run lists them.
    {
      name: 'Auto-close after 4 days',
      enabled: false,
      trigger: { kind: 'time', after: { amount: 4, unit: 'days' } },
      conditions: [{ field: 'status', op: 'is', values: ['resolved'] }],
      actions: [{ type: 'status', status: 'closed' }],
    },
  ];
}

/** The demo's teams: the category whose new tickets each takes, its name and its agents (by place in AGENTS; Marcus is in both). */
const TEAMS: Array<[CategoryKey, string, number[]]> = [
  ['billing', 'Payments', [0, 1]],
  ['technical', 'Technical Support', [1, 2, 3]],
];

const CATEGORIES: Record<CategoryKey, { name: string; description: string; color: string; customFields: CustomField[] }> = {
  billing: {
    name: 'Billing',
    description: 'Invoices, charges, refunds and payment methods.',
    color: '#28a745',
    customFields: [
      {
        fieldName: 'invoiceNumber',
        fieldType: 'text',
        prompt: 'Invoice number (on the top right of your invoice)',
        placeholder: 'INV-2026-0001',
        required: false,
        validation: { pattern: '^INV-\\d{4}-\\d{4}$' },
        order: 0,
      },
      {
        fieldName: 'amount',
        fieldType: 'number',
        prompt: 'Amount in question (EUR)',
        placeholder: '49.90',
        required: false,
        validation: { min: 0, max: 100000 },
        order: 1,
      },
    ],
  },
  technical: {
    name: 'Technical',
    description: 'Something does not work as it should: errors, crashes, slowness.',
    color: '#dc3545',
    customFields: [
      {
        fieldName: 'device',
        fieldType: 'text',
        prompt: 'Device and browser or app version',
        placeholder: 'iPhone 15, app 4.2.1',
        required: true,
        validation: { minLength: 3, maxLength: 100 },
        order: 0,
      },
      {
        fieldName: 'stepsToReproduce',
        fieldType: 'textarea',
        prompt: 'What did you do before it happened?',
        placeholder: '1. Open… 2. Tap…',
        required: false,
        validation: { maxLength: 1000 },
        order: 1,
      },
    ],
  },
  account: {
    name: 'Account',
    description: 'Signing in, profile details, security and closing an account.',
    color: '#007bff',
    customFields: [
      {
        fieldName: 'accountEmail',
        fieldType: 'text',
        prompt: 'Email address of the account concerned',
        placeholder: 'you@example.com',
        required: true,
        validation: { maxLength: 120 },
        order: 0,
      },
    ],
  },
  shipping: {
    name: 'Shipping',
    description: 'Deliveries, tracking and returns.',
    color: '#fd7e14',
    customFields: [
      {
        fieldName: 'orderNumber',
        fieldType: 'text',
        prompt: 'Order number',
        placeholder: 'ORD-48213',
        required: true,
        validation: { pattern: '^ORD-\\d{5}$' },
        order: 0,
      },
    ],
  },
};

const CANNED: Array<{ shortcode: string; title: string; content: string; category: CategoryKey | null }> = [
  { shortcode: 'hello', title: 'Greeting', content: 'Hi there, thanks for reaching out! I am looking into this for you now.', category: null },
  {
    shortcode: 'moreinfo',
    title: 'Ask for details',
    content: 'Could you tell me a little more: what you expected to happen, what happened instead, and when it started?',
    category: null,
  },
  {
    shortcode: 'thanks-bye',
    title: 'Closing',
    content: 'Glad we could sort this out. If anything else comes up, just reply here. Have a great day!',
    category: null,
  },
  {
    shortcode: 'refund',
    title: 'Refund issued',
    content: 'I have issued the refund. It usually shows on your statement within 5 to 7 business days.',
    category: 'billing',
  },
  {
    shortcode: 'invoice-copy',
    title: 'Invoice copy',
    content: 'You can download every invoice under Account > Billing > Invoices. I have also attached a copy here.',
    category: 'billing',
  },
  {
    shortcode: 'cache',
    title: 'Clear cache',
    content: 'Please sign out, clear your browser cache (or reinstall the app), sign in again and tell me if it still happens.',
    category: 'technical',
  },
  {
    shortcode: 'reset-pw',
    title: 'Password reset',
    content: 'I have sent a password reset link to the email on your account. The link is valid for one hour.',
    category: 'account',
  },
  {
    shortcode: 'tracking',
    title: 'Tracking link',
    content: 'Your parcel is on its way. You can follow it with the tracking link in your shipping confirmation email.',
    category: 'shipping',
  },
];

/** One line of a ticket's life: who says what (c customer, a agent, note an internal note). */
type Line = ['c' | 'a' | 'note', string];

const targets = (firstResponse: number, nextResponse: number, resolution: number) => ({ firstResponse, nextResponse, resolution });

/**
 * Billing answers around the clock and fast; everything else in business hours. With the stories'
 * timings this gives targets met, breached (answered late and still waiting), running and paused.
 */
function demoSlaSettings(billingId: string): SlaSettings {
  const office = [{ start: '08:00', end: '18:00' }];
  return {
    calendars: [
      {
        id: 'support-hours',
        name: 'Support hours (Berlin)',
        timeZone: 'Europe/Berlin',
        week: [[], office, office, office, office, office, []],
        holidays: [
          { date: '2026-12-24', name: 'Christmas Eve' },
          { date: '2026-12-25', name: 'Christmas Day' },
          { date: '2026-12-31', name: "New Year's Eve" },
          { date: '2027-01-01', name: "New Year's Day" },
        ],
      },
    ],
    defaultCalendarId: 'support-hours',
    policies: [
      {
        id: 'billing',
        name: 'Billing (around the clock)',
        categoryId: billingId,
        calendarId: null,
        targets: { low: targets(240, 480, 2880), medium: targets(60, 240, 1440), high: targets(30, 120, 480), urgent: targets(15, 60, 240) },
      },
      {
        id: 'standard',
        name: 'Standard',
        categoryId: null,
        calendarId: 'support-hours',
        targets: { low: targets(960, 960, 4800), medium: targets(480, 480, 2400), high: targets(240, 240, 1200), urgent: targets(60, 120, 480) },
      },
    ],
    pauseStatuses: ['pending_customer'],
    warnPercent: 80,
  };
}

interface Story {
  customer: number;
  agent: number | null;
  category: CategoryKey;
  priority: Priority;
  title: string;
  description: string;
  answers: Record<string, CustomFieldAnswer>;
  platform?: 'web' | 'telegram';
  daysAgo: number;
  lines: Line[];
  outcome?: string;
  status: TicketStatus;
  /** Put on by the agent (or the first agent) once the ticket is theirs (docs/teams.md, "Tags"). */
  tags?: string[];
}

/**
 * The customers' ratings of resolved stories, by story index: some with a comment, one resolution
 * left unrated, so the dashboard shows a CSAT score below 100% and a response rate below 100%.
 */
const RATINGS: Record<number, { score: number; comment?: string }> = {
  0: { score: 5, comment: 'The refund came through quickly, thank you!' },
  1: { score: 4 },
  2: { score: 2, comment: 'It took three days to get a first answer.' },
  3: { score: 5 },
  4: { score: 4, comment: 'Clear instructions, it works now.' },
  5: { score: 3 },
  14: { score: 5, comment: 'Quick and clear, thank you.' },
};

/** Oldest first, so ticket numbers follow the dates; every status appears, open ones one per customer. */
const STORIES: Story[] = [
  {
    customer: 0,
    agent: 0,
    category: 'billing',
    priority: 'high',
    daysAgo: 20,
    status: 'closed',
    title: 'Charged twice for my March subscription',
    tags: ['refund', 'double-charge'],
    description: 'My card statement shows two charges of 49.90 on the same day for the monthly plan.',
    answers: { invoiceNumber: 'INV-2026-0311', amount: 49.9 },
    lines: [
      ['c', 'Hello, I was charged twice this month. Can you refund one of them?'],
      ['a', 'Hi Emma, thanks for reaching out! I can see both charges; the second one came from a retried payment.'],
      ['note', 'Payment provider retried after a timeout. Refund the second charge, reference PX-88213.'],
      ['a', 'I have issued the refund. It usually shows on your statement within 5 to 7 business days.'],
      ['c', 'Great, thank you for the quick help!'],
    ],
    outcome: 'Duplicate charge caused by a payment retry; refunded 49.90.',
  },
  {
    customer: 1,
    agent: 1,
    category: 'technical',
    priority: 'medium',
    daysAgo: 18,
    status: 'closed',
    platform: 'telegram',
    title: 'App crashes when uploading a photo',
    tags: ['bug', 'mobile'],
    description: 'Every time I attach a photo to my profile the app closes.',
    answers: { device: 'Pixel 8, app 4.1.0', stepsToReproduce: '1. Open profile 2. Tap the photo 3. Pick one from the gallery' },
    lines: [
      ['c', 'The app closes as soon as I pick a photo.'],
      ['a', 'Sorry about that, Liam. Which version of the app do you have installed?'],
      ['c', '4.1.0 from the Play Store.'],
      ['note', 'Known crash with large HEIC images in 4.1.0, fixed in 4.1.2.'],
      ['a', 'This is fixed in version 4.1.2, which is out now. Could you update and try again?'],
      ['c', 'Updated, it works now. Thanks!'],
    ],
    outcome: 'Crash on large photos, fixed by updating the app to 4.1.2.',
  },
  {
    customer: 2,
    agent: 2,
    category: 'account',
    priority: 'low',
    daysAgo: 16,
    status: 'closed',
    title: 'Change the email address on my account',
    description: 'I have a new work email and would like to use it to sign in.',
    answers: { accountEmail: 'olivia.brown@example.com' },
    lines: [
      ['c', 'Can you move my account to olivia.b@newjob.example?'],
      ['a', 'Of course. For security I have sent a confirmation link to your current address; once you click it the change is done.'],
      ['c', 'Done, I can sign in with the new one.'],
    ],
    outcome: 'Email changed after confirmation from the old address.',
  },
  {
    customer: 3,
    agent: 3,
    category: 'shipping',
    priority: 'medium',
    daysAgo: 14,
    status: 'closed',
    title: 'Parcel marked as delivered but not received',
    tags: ['shipping'],
    description: 'Tracking says delivered yesterday, but nothing arrived and my neighbours have not seen it.',
    answers: { orderNumber: 'ORD-48213' },
    lines: [
      ['c', 'The tracking page says delivered, but there is nothing here.'],
      ['a', 'Hi Noah, I am sorry to hear that. I have opened an investigation with the carrier.'],
      ['note', 'Carrier claim #C-55120 opened. Reship if no answer in 48 h.'],
      ['a', 'The carrier could not locate it, so I have sent a replacement at no cost. It should arrive on Thursday.'],
      ['c', 'The replacement arrived today. Thanks a lot.'],
    ],
    outcome: 'Lost by the carrier; replacement shipped free of charge.',
  },
  {
    customer: 4,
    agent: 0,
    category: 'billing',
    priority: 'medium',
    daysAgo: 10,
    status: 'resolved',
    title: 'Need an invoice with my company details',
    tags: ['invoice'],
    description: 'Our accounting needs the company name and VAT number on the invoice for February.',
    answers: { invoiceNumber: 'INV-2026-0207' },
    lines: [
      ['c', 'Could you add Martinez Design SL and VAT ES-B12345678 to the invoice?'],
      ['a', 'Sure. I have reissued the invoice with your company details; you will find it under Account > Billing > Invoices.'],
      ['c', 'Perfect, that is what we needed.'],
    ],
    outcome: 'Invoice reissued with the company name and VAT number.',
  },
  {
    customer: 5,
    agent: 1,
    category: 'technical',
    priority: 'high',
    daysAgo: 7,
    status: 'resolved',
    title: 'Dashboard takes a minute to load',
    tags: ['bug', 'performance'],
    description: 'Since Monday the dashboard is very slow for our whole team.',
    answers: { device: 'Chrome 131 on Windows 11', stepsToReproduce: 'Sign in and open the dashboard.' },
    lines: [
      ['c', 'The dashboard has been very slow all week, for everyone in the office.'],
      ['a', 'Thanks Lucas, I can reproduce it on your workspace. Our engineers are on it.'],
      ['note', 'Slow query on workspaces with more than 10k items; hotfix deployed Wednesday.'],
      ['a', 'A fix has been deployed. Could you check whether it loads normally again?'],
      ['c', 'Yes, it loads in a second now.'],
    ],
    outcome: 'Slow dashboard query on large workspaces, fixed by a hotfix.',
  },
  {
    customer: 0,
    agent: 2,
    category: 'account',
    priority: 'medium',
    daysAgo: 4,
    status: 'resolved',
    title: 'Locked out after too many sign-in attempts',
    description: 'I mistyped my password a few times and now I cannot sign in.',
    answers: { accountEmail: 'emma.johnson@example.com' },
    lines: [
      ['c', 'My account says it is locked. What can I do?'],
      ['a', 'I have sent a password reset link to the email on your account. The link is valid for one hour.'],
      ['c', 'That worked, I am back in.'],
    ],
    outcome: 'Account unlocked with a password reset.',
  },
  {
    customer: 6,
    agent: 3,
    category: 'shipping',
    priority: 'medium',
    daysAgo: 5,
    status: 'pending_customer',
    title: 'Return label for a damaged item',
    tags: ['shipping', 'refund'],
    description: 'The lamp I ordered arrived with a cracked shade. I would like to return it.',
    answers: { orderNumber: 'ORD-50877' },
    lines: [
      ['c', 'The shade is cracked, I would like to send it back.'],
      ['a', 'Sorry about that, Mia! Could you send a photo of the damage so I can create a free return label?'],
    ],
  },
  {
    customer: 7,
    agent: 0,
    category: 'billing',
    priority: 'low',
    daysAgo: 3,
    status: 'pending_customer',
    title: 'Switch from monthly to yearly billing',
    description: 'I would like to pay yearly to get the discount. What happens to the current month?',
    answers: {},
    lines: [
      ['c', 'If I switch to yearly now, do I lose what I paid for this month?'],
      ['a', 'Not at all: the unused part of this month is credited to the yearly plan. Shall I make the switch for you?'],
    ],
  },
  {
    customer: 1,
    agent: 1,
    category: 'technical',
    priority: 'urgent',
    daysAgo: 2,
    status: 'in_progress',
    title: 'Export to CSV fails with an error',
    tags: ['bug'],
    description: 'Exporting the monthly report shows "Something went wrong" and no file is downloaded.',
    answers: { device: 'Firefox 133 on macOS', stepsToReproduce: 'Reports > Monthly > Export > CSV' },
    lines: [
      ['c', 'We need this report for a board meeting tomorrow morning.'],
      ['a', 'Understood, Liam. I have escalated it to our engineers and will keep you posted.'],
      ['note', 'Export times out for reports with more than 50k rows. Engineering ticket ENG-2231.'],
    ],
  },
  {
    customer: 2,
    agent: 2,
    category: 'account',
    priority: 'medium',
    daysAgo: 1,
    status: 'in_progress',
    title: 'Two-factor codes are not arriving',
    description: 'I enabled two-factor sign-in but the SMS codes never arrive.',
    answers: { accountEmail: 'olivia.b@newjob.example' },
    lines: [
      ['c', 'No SMS code has arrived in the last hour.'],
      ['a', 'Thanks Olivia. Could you check that the phone number on your profile is correct, including the country code?'],
      ['c', 'It is +44 7700 900123, that looks right to me.'],
    ],
  },
  {
    customer: 3,
    agent: null,
    category: 'billing',
    priority: 'medium',
    daysAgo: 1,
    status: 'open',
    title: 'Discount code not applied at checkout',
    description: 'The code SPRING20 was accepted but the total did not change.',
    answers: { amount: 120 },
    lines: [['c', 'I have a screenshot of the checkout if that helps.']],
  },
  {
    customer: 4,
    agent: null,
    category: 'technical',
    priority: 'low',
    daysAgo: 0,
    status: 'open',
    platform: 'telegram',
    title: 'Notifications arrive twice',
    description: 'Every notification on my phone shows up two times.',
    answers: { device: 'iPhone 15, app 4.2.1' },
    lines: [['c', 'Not a big deal, but a little annoying.']],
  },
  {
    customer: 8,
    agent: null,
    category: 'shipping',
    priority: 'high',
    daysAgo: 0,
    status: 'open',
    title: 'Wrong size delivered',
    description: 'I ordered the jacket in M and received an XL.',
    answers: { orderNumber: 'ORD-51302' },
    lines: [],
  },
  // A duplicate and its original (docs/tickets.md, merging): the newer one is merged into the older, which reopens.
  {
    customer: 9,
    agent: 1,
    category: 'billing',
    priority: 'medium',
    daysAgo: 9,
    status: 'closed',
    title: 'Card payment declined at checkout',
    description: 'My card is declined when I pay for the yearly plan, although it works elsewhere.',
    answers: { amount: 499 },
    lines: [
      ['c', 'The checkout says "payment declined" every time.'],
      ['a', 'Hi Sofia, the bank asked for a 3-D Secure check that did not open. Could you try again in another browser?'],
      ['c', 'That worked, thank you.'],
    ],
    outcome: 'The 3-D Secure window was blocked by the browser; paying in another browser worked.',
  },
  {
    customer: 9,
    agent: null,
    category: 'billing',
    priority: 'medium',
    daysAgo: 0,
    status: 'open',
    title: 'Payment declined again',
    description: 'The yearly renewal was declined again, the same as last time.',
    answers: { amount: 499 },
    lines: [['c', 'Another browser does not help this time.']],
  },
];

const DAY = 24 * 60 * 60 * 1000;
const MINUTE = 60 * 1000;
const system = (now: Date): CommandContext => ({ actor: { userId: 'system', role: 'system', platform: 'system' }, now });
/** A customer's one open ticket (docs/tickets.md): claimed or let go in its reservation stream, as the app does, by `by` (the customer by default). */
const openTicketClaim = (events: EventStore, type: 'Reserve' | 'Release', customer: Person, ticketId: string, at: Date, by: Person = customer) =>
  handleCommand(
    events,
    reservationStream('openticket', customer.userId),
    reservationDecider,
    type === 'Reserve'
      ? { type, kind: 'openticket', value: customer.userId, ownerId: ticketId, conflictMessage: 'open ticket exists', conflictCode: 'OPEN_TICKET_EXISTS' }
      : { type, kind: 'openticket', value: customer.userId, ownerId: ticketId },
    contextOf(by, at),
  );

const contextOf = (person: Person, now: Date, platform: 'web' | 'telegram' = 'web'): CommandContext => ({
  actor: { userId: person.userId, role: person.role, platform },
  now,
});
const nameOf = (person: Person) => `${person.firstName} ${person.lastName}`;

/**
 * Seeds the demo desk into an empty event log; refuses a log that already has events, since mixing a
 * demo into a real desk (or seeding twice) cannot be undone in an append-only log.
 */
export async function seedDemoDesk(
  events: EventStore,
  { adminEmail, adminPassword, now = new Date() }: { adminEmail: string; adminPassword?: string; now?: Date },
): Promise<DemoDesk> {
  const head = await events.headPosition();
  if (head > 0) {
    throw new DemoRefusedError(
      `The demo desk is only seeded into an empty data directory, and this one already has ${head} events. Point DATA_DIR at a new directory to try the demo.`,
    );
  }
  const passwords = { ...DEMO_PASSWORDS, admin: adminPassword ?? DEMO_PASSWORDS.admin };
  const hashes = {
    admin: await argon2.hash(passwords.admin, { type: argon2.argon2id }),
    agent: await argon2.hash(passwords.agent, { type: argon2.argon2id }),
    customer: await argon2.hash(passwords.customer, { type: argon2.argon2id }),
  };
  const start = now.getTime() - 22 * DAY;

  const person = async (role: Role, firstName: string, lastName: string, email: string, at: Date): Promise<Person> => {
    const userId = randomUUID();
    // The user form's own rule (lowercase letters, digits, underscores), so an admin can edit a seeded account as it is.
    const username = `${firstName}_${lastName}`.toLowerCase().replace(/[^a-z0-9_]/g, '');
    const profile = { username, email, firstName, lastName };
    const context = role === 'customer' ? contextOf({ userId, role, firstName, lastName, username, email }, at) : system(at);
    // The same unique claims the sign-up and user forms make, so the addresses stay taken.
    for (const [kind, value, code] of [
      ['email', email, 'EMAIL_TAKEN'],
      ['username', username, 'USERNAME_TAKEN'],
    ] as const) {
      await handleCommand(
        events,
        reservationStream(kind, value),
        reservationDecider,
        { type: 'Reserve', kind, value, ownerId: userId, conflictMessage: `${kind} taken`, conflictCode: code },
        context,
      );
    }
    const command =
      role === 'customer'
        ? { type: 'RegisterUser' as const, userId, profile, passwordHash: hashes.customer }
        : { type: 'CreateUser' as const, userId, profile, role, isActive: true, passwordHash: hashes[role], telegramUsername: null };
    await handleCommand(events, userStream(userId), userDecider, command, context);
    return { userId, role, firstName, lastName, username, email };
  };

  // The admin's e-mail claim is the seeding's first write, so two starts that both found the log empty
  // part here: the one that loses the claim has written nothing and stops, the other seeds the whole desk.
  const admin = await person('admin', 'Dana', 'Whitfield', adminEmail.toLowerCase(), new Date(start)).catch((error: unknown) => {
    if (!(error instanceof ConflictError)) throw error;
    throw new DemoRefusedError(
      'The demo desk is being seeded into this data directory by another start at this moment; this one wrote nothing and stops. Use the desk the other start serves, or point DATA_DIR at a new directory.',
    );
  });
  const agents: Person[] = [];
  for (const [first, last] of AGENTS) agents.push(await person('agent', first, last, `${first}.${last}@desk.demo`.toLowerCase(), new Date(start + MINUTE)));

  // Teams (docs/teams.md): Billing routes its new tickets to Payments, Technical to Technical Support.
  const teams: Partial<Record<CategoryKey, TeamLookup>> = {};
  for (const [key, name, members] of TEAMS) {
    const teamId = randomUUID();
    await handleCommand(
      events,
      teamStream(teamId),
      teamDecider,
      { type: 'CreateTeam', teamId, name, members: members.map((index) => ({ userId: agents[index]!.userId, role: 'agent' as const, isActive: true })) },
      contextOf(admin, new Date(start + 2 * MINUTE)),
    );
    teams[key] = { teamId, name, archived: false };
  }

  const categories = {} as Record<CategoryKey, CategoryLookup>;
  let order = 0;
  for (const [key, category] of Object.entries(CATEGORIES) as Array<[CategoryKey, (typeof CATEGORIES)[CategoryKey]]>) {
    const categoryId = randomUUID();
    const routeTeam = teams[key] ?? null;
    const input = {
      name: category.name,
      description: category.description,
      color: category.color,
      order: order++,
      isActive: true,
      customFields: category.customFields,
      ...(routeTeam ? { routeTeamId: routeTeam.teamId } : {}),
    };
    await handleCommand(
      events,
      categoryStream(categoryId),
      categoryDecider,
      { type: 'CreateCategory', categoryId, input },
      contextOf(admin, new Date(start + 2 * MINUTE)),
    );
    categories[key] = { categoryId, isActive: true, customFields: category.customFields, routeTeam };
  }

  // Service levels (docs/sla.md): a business-hours calendar, and two policies, billing's around the clock.
  const slaSettings = demoSlaSettings(categories.billing.categoryId);
  await handleCommand(
    events,
    SLA_SETTINGS_STREAM,
    slaSettingsDecider,
    { type: 'UpdateSlaSettings', settings: slaSettings },
    contextOf(admin, new Date(start + 3 * MINUTE)),
  );

  for (const canned of CANNED) {
    const cannedId = randomUUID();
    const context = contextOf(admin, new Date(start + 3 * MINUTE));
    await handleCommand(
      events,
      reservationStream('shortcode', canned.shortcode),
      reservationDecider,
      { type: 'Reserve', kind: 'shortcode', value: canned.shortcode, ownerId: cannedId, conflictMessage: 'shortcode taken', conflictCode: 'SHORTCODE_TAKEN' },
      context,
    );
    const details = {
      shortcode: canned.shortcode,
      title: canned.title,
      content: canned.content,
      categoryId: canned.category ? categories[canned.category].categoryId : null,
    };
    await handleCommand(events, cannedStream(cannedId), cannedDecider, { type: 'CreateCannedMessage', cannedId, createdBy: admin.userId, details }, context);
  }

  // Macros (docs/macros.md): one shared by the admin, one personal to the first agent.
  for (const [owner, macro] of [
    [admin, MACROS[0]!],
    [agents[0]!, MACROS[1]!],
  ] as const) {
    const macroId = randomUUID();
    const actor = { userId: owner.userId, role: owner.role };
    await handleCommand(
      events,
      macroStream(macroId),
      macroDecider,
      { type: 'CreateMacro', macroId, actor, details: macro },
      contextOf(owner, new Date(start + 4 * MINUTE)),
    );
  }

  // Saved views (docs/views.md): one for everyone (the admin's), one shared with Payments, one the demo agent's own.
  const open = OPEN_STATUSES.join(',');
  const views: Array<[Person, ViewDetails]> = [
    [
      admin,
      {
        name: 'Urgent and high',
        scope: 'everyone',
        teamId: null,
        filters: { priority: 'high,urgent', status: open },
        sort: 'priority',
        columns: ['number', 'priority', 'status', 'customer', 'assignee', 'sla'],
      },
    ],
    [
      agents[0]!,
      {
        name: 'Payments queue',
        scope: 'team',
        teamId: teams.billing!.teamId,
        filters: { team: teams.billing!.teamId, status: open },
        sort: 'waiting',
        columns: ['number', 'status', 'customer', 'assignee', 'waiting', 'sla'],
      },
    ],
    [
      agents[0]!,
      {
        name: 'My billing',
        scope: 'personal',
        teamId: null,
        filters: { assigned: 'me', category: categories.billing.categoryId },
        sort: 'latest',
        columns: ['number', 'priority', 'status', 'customer', 'waiting'],
      },
    ],
  ];
  for (const [owner, details] of views) {
    const viewId = randomUUID();
    const context = contextOf(owner, new Date(start + 4 * MINUTE));
    const value = `${scopeKey({ ...details, ownerId: owner.userId })}:${details.name.toLowerCase()}`;
    await handleCommand(
      events,
      reservationStream('view-name', value),
      reservationDecider,
      { type: 'Reserve', kind: 'view-name', value, ownerId: viewId, conflictMessage: 'view name taken', conflictCode: 'VIEW_NAME_TAKEN' },
      context,
    );
    const actor = { userId: owner.userId, role: owner.role, teamIds: [teams.billing!.teamId] };
    await handleCommand(events, viewStream(viewId), viewDecider, { type: 'CreateView', viewId, actor, details, teamExists: true, scopeCount: 0 }, context);
  }

  // Rules (docs/automation.md): they run on what happens from now on, not on the seeded history.
  const rules = demoRules(teams, categories);
  for (const [index, details] of rules.entries()) {
    const ruleId = randomUUID();
    await handleCommand(
      events,
      ruleStream(ruleId),
      ruleDecider,
      { type: 'CreateRule', ruleId, actor: { userId: admin.userId, role: 'admin' }, details: { ...details, order: index + 1 } },
      contextOf(admin, new Date(start + 5 * MINUTE)),
    );
  }

  const customers: Person[] = [];
  for (const [i, [first, last]] of CUSTOMERS.entries())
    customers.push(await person('customer', first, last, `${first}.${last}@example.com`.toLowerCase(), new Date(start + DAY * (i / 2))));

  /** The customer rates the resolution on their platform, then comments (docs/satisfaction.md). */
  const rate = async (ticketId: string, customer: Person, platform: 'web' | 'telegram', rating: { score: number; comment?: string }, when: Date) => {
    const common = { ticketId, actor: { userId: customer.userId, role: customer.role }, channel: platform, now: when } as const;
    const context = contextOf(customer, when, platform);
    await handleCommand(events, ticketStream(ticketId), satisfactionDecider, { ...common, type: 'RateTicket', score: rating.score }, context);
    if (rating.comment)
      await handleCommand(events, ticketStream(ticketId), satisfactionDecider, { ...common, type: 'CommentOnRating', comment: rating.comment }, context);
  };

  const ticketIds: string[] = [];
  const openings: TicketOpenedData[] = [];
  for (const [index, story] of STORIES.entries()) {
    const ticketId = randomUUID();
    ticketIds.push(ticketId);
    const number = FIRST_TICKET_NUMBER + index;
    const customer = customers[story.customer]!;
    const agent = story.agent === null ? null : agents[story.agent]!;
    const platform = story.platform ?? 'web';
    // A ticket opened today starts a couple of hours ago, so all of its life lies in the past.
    let at = Math.min(now.getTime() - story.daysAgo * DAY - 9 * 60 * MINUTE + index * 37 * MINUTE, now.getTime() - 3 * 60 * MINUTE);
    const step = (minutes: number) => new Date((at += minutes * MINUTE));
    const run = (command: TicketCommand, who: Person, when: Date) =>
      handleCommand(events, ticketStream(ticketId), ticketDecider, command, contextOf(who, when, who === customer ? platform : 'web'));
    const actor = (who: Person): TicketActor => ({ userId: who.userId, role: who.role });

    const opened = step(0);
    await events.append(
      TICKET_NUMBER_STREAM,
      [{ type: 'TicketNumberAllocated', data: { number, ticketId }, metadata: metadataOf(contextOf(customer, opened, platform)) }],
      index === 0 ? 'no_stream' : index - 1,
    );
    const { title, description, priority, answers } = story;
    const { events: openedEvents } = await run(
      {
        type: 'OpenTicket',
        ticketId,
        number,
        customerId: customer.userId,
        platform,
        title,
        description,
        priority,
        category: categories[story.category],
        answers,
        sla: choosePolicy(slaSettings, 1, categories[story.category].categoryId, priority),
      },
      customer,
      opened,
    );
    openings.push(openedEvents[0]!.data as TicketOpenedData);
    if (isOpenStatus(story.status)) await openTicketClaim(events, 'Reserve', customer, ticketId, opened);
    if (agent)
      await run({ type: 'AssignTicket', ticketId, actor: actor(agent), agent: { userId: agent.userId, role: agent.role, isActive: true } }, agent, step(25));
    const tagger = agent ?? agents[0]!;
    for (const tag of story.tags ?? []) await run({ type: 'TagTicket', ticketId, actor: actor(tagger), tag, tagged: true }, tagger, step(2));
    for (const [kind, content] of story.lines) {
      const who = kind === 'c' ? customer : agent!;
      const when = step(kind === 'c' ? 40 : 15);
      await run(
        {
          type: 'PostMessage',
          ticketId,
          messageId: randomUUID(),
          actor: actor(who),
          content,
          isInternal: kind === 'note',
          platform: who === customer ? platform : 'web',
          attachments: [],
          now: when,
        },
        who,
        when,
      );
    }
    if (agent && story.lines.length > 0) await run({ type: 'MarkMessagesRead', ticketId, actor: actor(customer) }, customer, step(5));
    if (agent && story.outcome) await run({ type: 'RecordOutcome', ticketId, actor: actor(agent), outcomeMessage: story.outcome }, agent, step(10));
    if (agent && story.status !== 'in_progress') {
      const closing = story.status === 'closed';
      await run({ type: 'ChangeTicketStatus', ticketId, actor: actor(agent), status: closing ? 'resolved' : story.status }, agent, step(1));
      const rating = RATINGS[index];
      if (rating) await rate(ticketId, customer, platform, rating, step(90));
      if (closing) await run({ type: 'ChangeTicketStatus', ticketId, actor: actor(agent), status: 'closed' }, agent, step(3 * 24 * 60));
    }
  }

  // Merge and split (docs/tickets.md), written as the app writes them: the source first, claims moved between.
  const onTicket = (ticketId: string, command: TicketCommand, who: Person, at: Date) =>
    handleCommand(events, ticketStream(ticketId), ticketDecider, command, contextOf(who, at));
  const sofia = customers[9]!;
  const original = ticketIds.at(-2)!;
  const duplicate = ticketIds.at(-1)!;
  const merger = agents[1]!;
  const mergedAt = new Date(now.getTime() - 60 * MINUTE);
  const asMerger = { userId: merger.userId, role: merger.role };
  const target = await foldStream(events, ticketStream(original), ticketDecider);
  await onTicket(
    duplicate,
    { type: 'RecordOutcome', ticketId: duplicate, actor: asMerger, outcomeMessage: 'The same declined payment as before: merged into the first ticket.' },
    merger,
    mergedAt,
  );
  const into = await onTicket(duplicate, { type: 'MergeInto', ticketId: duplicate, actor: asMerger, target: target.state, now: mergedAt }, merger, mergedAt);
  await openTicketClaim(events, 'Release', sofia, duplicate, mergedAt, merger);
  await openTicketClaim(events, 'Reserve', sofia, original, mergedAt, merger);
  await onTicket(original, { type: 'MergeFrom', ticketId: original, actor: asMerger, source: into.state, reopen: true, now: mergedAt }, merger, mergedAt);

  // Lucas writes a new problem into his resolved ticket, which reopens it (his open-ticket claim taken back
  // first, as the app does); the agent moves it to a ticket of its own, which resolves the old one again.
  const lucas = customers[5]!;
  const resolvedIndex = STORIES.findIndex((story) => story.customer === 5);
  const written = new Date(now.getTime() - 50 * MINUTE);
  const messageId = randomUUID();
  await openTicketClaim(events, 'Reserve', lucas, ticketIds[resolvedIndex]!, written);
  await onTicket(
    ticketIds[resolvedIndex]!,
    {
      type: 'PostMessage',
      ticketId: ticketIds[resolvedIndex]!,
      messageId,
      actor: { userId: lucas.userId, role: lucas.role },
      content: 'One more thing: the CSV export of my invoices comes out empty.',
      isInternal: false,
      platform: 'web',
      attachments: [],
      now: written,
      openTicketClaimed: true,
    },
    lucas,
    written,
  );
  const splitter = agents[STORIES[resolvedIndex]!.agent!]!;
  const splitAt = new Date(now.getTime() - 30 * MINUTE);
  const newTicketId = randomUUID();
  const newNumber = FIRST_TICKET_NUMBER + STORIES.length;
  await events.append(
    TICKET_NUMBER_STREAM,
    [{ type: 'TicketNumberAllocated', data: { number: newNumber, ticketId: newTicketId }, metadata: metadataOf(contextOf(splitter, splitAt)) }],
    STORIES.length - 1,
  );
  const asSplitter = { userId: splitter.userId, role: splitter.role };
  const out = await onTicket(
    ticketIds[resolvedIndex]!,
    {
      type: 'MoveOut',
      ticketId: ticketIds[resolvedIndex]!,
      actor: asSplitter,
      messageId,
      withFollowing: false,
      newTicketId,
      newNumber,
      title: 'CSV export of invoices is empty',
    },
    splitter,
    splitAt,
  );
  await openTicketClaim(events, 'Release', lucas, ticketIds[resolvedIndex]!, splitAt, splitter);
  await openTicketClaim(events, 'Reserve', lucas, newTicketId, splitAt, splitter);
  await onTicket(
    newTicketId,
    {
      type: 'OpenSplit',
      ticketId: newTicketId,
      actor: asSplitter,
      sourceOpened: openings[resolvedIndex]!,
      movedOut: out.events[0]!.data as MessagesMovedOutData,
    },
    splitter,
    splitAt,
  );

  const ticketsByStatus: Record<TicketStatus, number> = { open: 0, in_progress: 0, pending_customer: 0, resolved: 0, closed: 0 };
  for (const ticketId of [...ticketIds, newTicketId]) {
    const { state } = await foldStream(events, ticketStream(ticketId), ticketDecider);
    if (state.kind === 'live') ticketsByStatus[state.status]++;
  }

  const account = (who: Person, password: string): DemoAccount => ({ role: who.role, name: nameOf(who), email: who.email, password });
  return {
    accounts: { admin: account(admin, passwords.admin), agent: account(agents[0]!, passwords.agent), customer: account(customers[0]!, passwords.customer) },
    agents: agents.length,
    customers: customers.length,
    categories: Object.keys(categories).length,
    cannedMessages: CANNED.length,
    macros: MACROS.length,
    rules: rules.length,
    ticketsByStatus,
    events: await events.headPosition(),
  };
}
