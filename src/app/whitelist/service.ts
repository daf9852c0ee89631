import { accessRequestDecider, whitelistDecider } from '../../domain/whitelist/decide';
import { type AccessAttempt, type WhitelistFields, accessRequestStream, whitelistStream } from '../../domain/whitelist/whitelist';
import { type CommandContext, handleCommand, loadState } from '../../platform/commands';
import { ACCESS_REQUESTS, type AccessRequestView, WHITELIST, type WhitelistEntryView } from '../../projections/whitelist';
import { runCommand, readYourWrites } from '../commands';
import type { AppDeps } from '../deps';
import { NotFoundError, ValidationError } from '#contract/errors';
import { normaliseTelegramId } from '#contract/whitelist';

/**
 * The screens address entries and requests by record id or by Telegram ID (docs/contract.md); both are
 * accepted. The ID as stored comes first (an entry kept as `00123` from before IDs were normalised
 * stays reachable), then in its one spelling (`00123` finds `123`).
 */
export async function findEntry(deps: AppDeps, key: string): Promise<WhitelistEntryView> {
  const entries = deps.readStore.collection<WhitelistEntryView>(WHITELIST);
  const found =
    (await entries.findOne({ _id: key })) ?? (await entries.findOne({ telegramId: key })) ?? (await entries.findOne({ telegramId: normaliseTelegramId(key) }));
  if (!found) throw new NotFoundError('Whitelist entry');
  return found;
}

export async function findRequest(deps: AppDeps, key: string): Promise<AccessRequestView> {
  const requests = deps.readStore.collection<AccessRequestView>(ACCESS_REQUESTS);
  const found =
    (await requests.findOne({ _id: key })) ??
    (await requests.findOne({ telegramId: key })) ??
    (await requests.findOne({ telegramId: normaliseTelegramId(key) }));
  if (!found) throw new NotFoundError('Access request');
  return found;
}

async function addEntry(deps: AppDeps, telegramId: string, fields: WhitelistFields, source: 'manual' | 'access_request', context: CommandContext) {
  const entryId = deps.newId();
  const result = await handleCommand(
    deps.events,
    whitelistStream(telegramId),
    whitelistDecider,
    { type: 'AddWhitelistEntry', entryId, telegramId, fields, source },
    context,
  );
  return { entryId, position: result.position };
}

/**
 * An ID added by hand while its owner's access request is pending: the request is approved with it,
 * so it leaves the pending list and the user is told (the same notice as an approval).
 */
export async function addEntryByHand(deps: AppDeps, telegramId: string, fields: WhitelistFields, context: CommandContext): Promise<string> {
  const added = await addEntry(deps, telegramId, fields, 'manual', context);
  const { state } = await loadState(deps.events, accessRequestStream(telegramId), accessRequestDecider);
  const position =
    state.status === 'pending'
      ? (await handleCommand(deps.events, accessRequestStream(telegramId), accessRequestDecider, { type: 'ApproveAccessRequest' }, context)).position
      : 0;
  await readYourWrites(deps, Math.max(added.position, position));
  return added.entryId;
}

/**
 * Records a message from a Telegram user who is not whitelisted (the bot calls this): the first one
 * opens a pending request, later ones count attempts and keep the last message.
 */
export async function recordAccessAttempt(deps: AppDeps, telegramId: string, attempt: AccessAttempt, context: CommandContext): Promise<number> {
  const message = attempt.message.slice(0, 1000);
  const result = await handleCommand(
    deps.events,
    accessRequestStream(telegramId),
    accessRequestDecider,
    { type: 'RecordAccessAttempt', requestId: deps.newId(), telegramId, ...attempt, message },
    context,
  );
  return result.position;
}

/**
 * Approving whitelists the user first (or re-activates an inactive entry) and then closes the
 * request, so a crash between the two never leaves an approved user outside the list. Answers the
 * entry's id once the read models include both.
 */
export async function approveRequest(deps: AppDeps, request: AccessRequestView, context: CommandContext): Promise<string> {
  const { telegramId, username, firstName, lastName } = request;
  const { state } = await loadState(deps.events, whitelistStream(telegramId), whitelistDecider);
  let entryId: string;
  let position: number;
  if (state.status === 'listed') {
    entryId = state.entryId;
    const activated = await handleCommand(
      deps.events,
      whitelistStream(telegramId),
      whitelistDecider,
      { type: 'UpdateWhitelistEntry', changes: { isActive: true } },
      context,
    );
    position = activated.position;
  } else {
    const added = await addEntry(
      deps,
      telegramId,
      { username, firstName, lastName, notes: 'Approved from an access request', isActive: true },
      'access_request',
      context,
    );
    entryId = added.entryId;
    position = added.position;
  }
  const approved = await handleCommand(deps.events, accessRequestStream(telegramId), accessRequestDecider, { type: 'ApproveAccessRequest' }, context);
  await readYourWrites(deps, Math.max(position, approved.position));
  return entryId;
}

export async function rejectRequest(deps: AppDeps, request: AccessRequestView, context: CommandContext): Promise<void> {
  await runCommand(deps, accessRequestStream(request.telegramId), accessRequestDecider, { type: 'RejectAccessRequest' }, context);
}

export async function removeRequest(deps: AppDeps, request: AccessRequestView, context: CommandContext): Promise<void> {
  await runCommand(deps, accessRequestStream(request.telegramId), accessRequestDecider, { type: 'RemoveAccessRequest' }, context);
}

/** Changes an entry; its Telegram ID is what the entry is, so it never changes. */
export async function updateEntry(
  deps: AppDeps,
  entry: WhitelistEntryView,
  { telegramId, ...changes }: Partial<WhitelistFields> & { telegramId?: string },
  context: CommandContext,
): Promise<void> {
  if (telegramId !== undefined && telegramId !== normaliseTelegramId(entry.telegramId)) {
    throw new ValidationError('The Telegram ID cannot be changed; add a new entry instead', [
      { path: 'telegramId', message: 'The Telegram ID cannot be changed' },
    ]);
  }
  await runCommand(deps, whitelistStream(entry.telegramId), whitelistDecider, { type: 'UpdateWhitelistEntry', changes }, context);
}

export async function deleteEntry(deps: AppDeps, key: string, context: CommandContext): Promise<void> {
  const entry = await findEntry(deps, key);
  await runCommand(deps, whitelistStream(entry.telegramId), whitelistDecider, { type: 'DeleteWhitelistEntry' }, context);
}
