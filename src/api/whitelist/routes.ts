import type { Router } from 'express';
import { addWhitelistSchema, listWhitelistQuery, normaliseTelegramId, updateWhitelistSchema } from '#contract/whitelist';
import { ACCESS_REQUESTS, type AccessRequestView, WHITELIST, type WhitelistEntryView, toAccessRequest, toWhitelistEntry } from '../../projections/whitelist';
import type { AppDeps } from '../../app/deps';
import { commandContext, requireRole } from '../http/auth';
import { findPage } from '../http/paging';
import { parse } from '../http/validate';
import { addEntryByHand, approveRequest, deleteEntry, findEntry, findRequest, rejectRequest, removeRequest, updateEntry } from '../../app/whitelist/service';
import { scope } from '../http/scopes';

/** docs/product.md section 4: the messages name the request by username, else by Telegram ID. */
const who = (request: Pick<AccessRequestView, 'username' | 'telegramId'>) => request.username || request.telegramId;

/** The Telegram whitelist and its access requests (docs/product.md section 6: admins). */
export const whitelistRoutes = (deps: AppDeps) => (router: Router) => {
  const admin = requireRole('admin');
  const entries = () => deps.readStore.collection<WhitelistEntryView>(WHITELIST);
  const requests = () => deps.readStore.collection<AccessRequestView>(ACCESS_REQUESTS);
  const entryById = async (id: string) => toWhitelistEntry(await findEntry(deps, id));

  router.get('/whitelist', scope('admin'), admin, async (req, res) => {
    const { items, pagination } = await findPage(entries(), {}, { createdAt: -1, _id: 1 }, parse(listWhitelistQuery, req.query));
    res.json({ entries: items.map(toWhitelistEntry), pagination });
  });

  router.post('/whitelist', scope('admin'), admin, async (req, res) => {
    const { telegramId, ...fields } = parse(addWhitelistSchema, req.body);
    const entryId = await addEntryByHand(deps, telegramId, fields, commandContext(deps, req));
    res.status(201).json({ entry: await entryById(entryId), message: 'Telegram ID added to whitelist' });
  });

  router.get('/whitelist/check/:value', scope('admin'), admin, async (req, res) => {
    const value = (req.params.value as string).trim().replace(/^@/, '');
    // Only a whole Telegram ID or a whole username matches: an empty value, or one with characters a
    // username cannot hold, matches nothing (stripping them once turned `*` into '' and matched any
    // entry without a username).
    const id = normaliseTelegramId(value);
    const byId = /^\d{1,20}$/.test(id) ? await entries().findOne({ telegramId: id }) : null;
    const byUsername = !byId && /^[A-Za-z0-9_]{1,32}$/.test(value) ? await entries().findOne({ username: { $regex: `^${value}$`, $options: 'i' } }) : null;
    const entry = byId ?? byUsername;
    res.json({ whitelisted: entry?.isActive === true, ...(entry ? { entry: toWhitelistEntry(entry) } : {}) });
  });

  router.get('/whitelist/access-requests', scope('admin'), admin, async (req, res) => {
    const { items, pagination } = await findPage(requests(), {}, { lastAttemptAt: -1, _id: 1 }, parse(listWhitelistQuery, req.query));
    res.json({ requests: items.map(toAccessRequest), pagination });
  });

  router.post('/whitelist/access-requests/:key/approve', scope('admin'), admin, async (req, res) => {
    const request = await findRequest(deps, req.params.key as string);
    const entryId = await approveRequest(deps, request, commandContext(deps, req));
    res.json({ entry: await entryById(entryId), message: `Approved ${who(request)} and added to whitelist` });
  });

  router.post('/whitelist/access-requests/:key/reject', scope('admin'), admin, async (req, res) => {
    const request = await findRequest(deps, req.params.key as string);
    await rejectRequest(deps, request, commandContext(deps, req));
    res.json({ message: `Rejected access request from ${who(request)}` });
  });

  router.delete('/whitelist/access-requests/entry/:id', scope('admin'), admin, async (req, res) => {
    const request = await findRequest(deps, req.params.id as string);
    await removeRequest(deps, request, commandContext(deps, req));
    res.status(204).end();
  });

  router.put('/whitelist/:key', scope('admin'), admin, async (req, res) => {
    const changes = parse(updateWhitelistSchema, req.body);
    const entry = await findEntry(deps, req.params.key as string);
    await updateEntry(deps, entry, changes, commandContext(deps, req));
    const updated = await entryById(entry._id);
    const message =
      changes.isActive !== undefined && changes.isActive !== entry.isActive
        ? changes.isActive
          ? 'User activated successfully'
          : 'User deactivated successfully'
        : 'Whitelist entry updated successfully';
    res.json({ entry: updated, message });
  });

  const remove = (key: string, req: Parameters<typeof commandContext>[1]) => deleteEntry(deps, key, commandContext(deps, req));
  router.delete('/whitelist/entry/:id', scope('admin'), admin, async (req, res) => {
    await remove(req.params.id as string, req);
    res.status(204).end();
  });
  router.delete('/whitelist/:key', scope('admin'), admin, async (req, res) => {
    await remove(req.params.key as string, req);
    res.status(204).end();
  });
};
