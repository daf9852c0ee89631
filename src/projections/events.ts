import type { ApiTokenEvent } from '../domain/apiToken/apiToken';
import type { BotCommandEvent } from '../domain/botCommand/botCommand';
import type { BotSettingsEvent } from '../domain/botSettings/botSettings';
import type { CannedEvent } from '../domain/canned/canned';
import type { CategoryEvent } from '../domain/category/category';
import type { InboxEvent } from '../domain/inbox/inbox';
import type { MacroEvent } from '../domain/macro/macro';
import type { RuleEvent } from '../domain/rule/rule';
import type { ReservationEvent } from '../domain/reservation/reservation';
import type { SatisfactionSettingsEvent } from '../domain/satisfaction/settings';
import type { SlaSettingsEvent } from '../domain/sla/settings';
import type { SessionEvent } from '../domain/session/session';
import type { SystemSettingsEvent } from '../domain/settings/settings';
import type { DomainEvent } from '../domain/shared/decider';
import type { TeamEvent } from '../domain/team/team';
import type { TelegramChatEvent } from '../domain/telegramChat/chat';
import type { TicketEvent } from '../domain/ticket/ticket';
import type { UserEvent } from '../domain/user/user';
import type { ViewEvent } from '../domain/view/view';
import type { WebhookEvent } from '../domain/webhook/webhook';
import type { AccessRequestEvent, WhitelistEvent } from '../domain/whitelist/whitelist';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { ReadStore } from '../platform/readstore/port';

/** Every event the desk's deciders write: event type names are unique across the domain. */
type DeskEvent =
  | ApiTokenEvent
  | BotCommandEvent
  | BotSettingsEvent
  | CannedEvent
  | CategoryEvent
  | InboxEvent
  | MacroEvent
  | ReservationEvent
  | RuleEvent
  | SatisfactionSettingsEvent
  | SessionEvent
  | SlaSettingsEvent
  | SystemSettingsEvent
  | TeamEvent
  | TelegramChatEvent
  | TicketEvent
  | UserEvent
  | ViewEvent
  | WhitelistEvent
  | AccessRequestEvent
  | WebhookEvent;

type DeskEventType = DeskEvent['type'];

/** A recorded event of one domain type: `Recorded<TicketEvent>` or one member of it. */
type Recorded<E extends DomainEvent> = E extends DomainEvent<infer Type, infer Data> ? RecordedEvent<Type, Data> : never;

/** The recorded event of a given type name. */
export type RecordedOf<Type extends DeskEventType> = Recorded<Extract<DeskEvent, { type: Type }>>;

/** A handler per event type, each given its event typed from the domain unions. */
export type Handlers<Context, Result = void> = { [Type in DeskEventType]?: (event: RecordedOf<Type>, context: Context) => Result };

/**
 * Dispatch on the event's type through a handler map: the one place a log event (typed by the
 * port as any type and data) meets the domain's types. The adapters store exactly what deciders
 * produced, so the type name decides the data's shape.
 */
export function dispatcher<Context, Result>(handlers: Handlers<Context, Result>) {
  const table = handlers as Partial<Record<string, (event: RecordedEvent, context: Context) => Result>>;
  return {
    types: new Set(Object.keys(handlers)),
    handle(event: RecordedEvent, context: Context): Result | undefined {
      return table[event.type]?.(event, context);
    },
  };
}

/** A projection's `apply` and `types` from a handler map: each handler writes its event to the store. */
export function handledBy(handlers: Handlers<ReadStore, Promise<void>>) {
  const { types, handle } = dispatcher(handlers);
  return {
    types,
    async apply(event: RecordedEvent, store: ReadStore): Promise<void> {
      await handle(event, store);
    },
  };
}
