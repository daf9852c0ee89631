import { apiTokensProjection } from './apiTokens';
import { applyingPages } from './buffered';
import { botCommandsProjection } from './botCommands';
import { cannedProjection } from './canned';
import { categoriesProjection } from './categories';
import { directoryProjection } from './directory';
import { feedProjection } from './feed';
import { macrosProjection } from './macros';
import { notificationsProjection } from './notifications';
import { viewsProjection } from './views';
import type { Projection } from './runner';
import { rulesProjection } from './rules';
import { satisfactionProjection } from './satisfaction';
import { searchProjection } from './search';
import { slaProjection } from './sla';
import { sessionsProjection } from './sessions';
import { settingsProjection } from './settings';
import { tagsProjection } from './tags';
import { teamsProjection } from './teams';
import { ticketActivityProjection } from './ticketActivity';
import { ticketsProjection } from './tickets';
import { usersProjection } from './users';
import { webhooksProjection } from './webhooks';
import { whitelistProjection } from './whitelist';

/**
 * Every read model of the product, in the order the runner applies them to each event; each applies a
 * page at a time (those written event by event through `applyingPages`, src/projections/buffered.ts).
 */
export const allProjections: Projection[] = [
  usersProjection,
  sessionsProjection,
  categoriesProjection,
  teamsProjection,
  settingsProjection,
  botCommandsProjection,
  whitelistProjection,
  apiTokensProjection,
  webhooksProjection,
  // Before the read models that take names from it.
  directoryProjection,
  ticketsProjection,
  ticketActivityProjection,
  feedProjection,
  cannedProjection,
  macrosProjection,
  viewsProjection,
  rulesProjection,
  satisfactionProjection,
  slaProjection,
  tagsProjection,
  searchProjection,
  notificationsProjection,
].map(applyingPages);
