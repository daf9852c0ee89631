import type { Router } from 'express';
import { rateSchema, ratingCommentSchema, ratingsQuerySchema, reportQuerySchema, updateSatisfactionSettingsSchema } from '#contract/satisfaction';
import type { AppDeps } from '../../app/deps';
import {
  commentOnRating,
  rateTicket,
  ratingsAwaiting,
  satisfactionCsv,
  satisfactionReport,
  ticketSatisfaction,
  updateSatisfactionSettings,
} from '../../app/satisfaction/service';
import { latestRatings, loadSatisfactionSettings } from '../../projections/satisfaction';
import { commandContext, currentUser, requireRole } from '../http/auth';
import { parse } from '../http/validate';
import { scope } from '../http/scopes';

const DAY_MS = 24 * 3600 * 1000;

/** The report's period: `from` and `to` as given, else the last 30 days up to now. */
export function reportPeriod(deps: AppDeps, query: unknown): { from: Date; to: Date } {
  const { from, to } = parse(reportQuerySchema, query);
  const end = to ? new Date(to) : deps.clock();
  return { from: from ? new Date(from) : new Date(end.getTime() - 30 * DAY_MS), to: end };
}

const settingsOf = async (deps: AppDeps) => {
  const { _id: _i, ...settings } = await loadSatisfactionSettings(deps.readStore);
  return settings;
};

/** The signed-in customer's rating on the web, the survey settings, and the reports (docs/satisfaction.md). */
export const satisfactionRoutes = (deps: AppDeps) => (router: Router) => {
  const rater = (req: Parameters<typeof currentUser>[0]) => {
    const user = currentUser(req);
    return { userId: user.id, role: user.role };
  };

  router.get('/tickets/:id/satisfaction', scope('tickets:read'), requireRole(), async (req, res) => {
    res.json({ satisfaction: await ticketSatisfaction(deps, String(req.params.id), rater(req)) });
  });

  router.put('/tickets/:id/satisfaction', scope('tickets:write'), requireRole(), async (req, res) => {
    const { score } = parse(rateSchema, req.body);
    const ticketId = String(req.params.id);
    await rateTicket(deps, { ticketId, rater: rater(req), channel: 'web', score }, commandContext(deps, req));
    res.json({ satisfaction: await ticketSatisfaction(deps, ticketId, rater(req)) });
  });

  router.put('/tickets/:id/satisfaction/comment', scope('tickets:write'), requireRole(), async (req, res) => {
    const { comment } = parse(ratingCommentSchema, req.body);
    const ticketId = String(req.params.id);
    await commentOnRating(deps, { ticketId, rater: rater(req), channel: 'web', comment }, commandContext(deps, req));
    res.json({ satisfaction: await ticketSatisfaction(deps, ticketId, rater(req)) });
  });

  // The signed-in customer's resolved tickets that wait for their rating (their dashboard's notice).
  router.get('/satisfaction/awaiting', scope('admin'), requireRole(), async (req, res) => {
    const user = currentUser(req);
    res.json({ awaiting: await ratingsAwaiting(deps, { userId: user.id, role: user.role }) });
  });

  router.get('/satisfaction/ratings', scope('tickets:read'), requireRole('agent', 'admin'), async (req, res) => {
    const { tickets } = parse(ratingsQuerySchema, req.query);
    res.json({ ratings: await latestRatings(deps.readStore, tickets) });
  });

  router.get('/satisfaction/settings', scope('admin'), requireRole('admin'), async (_req, res) => {
    res.json({ settings: await settingsOf(deps) });
  });

  router.put('/satisfaction/settings', scope('admin'), requireRole('admin'), async (req, res) => {
    const changes = parse(updateSatisfactionSettingsSchema, req.body);
    await updateSatisfactionSettings(deps, changes, commandContext(deps, req));
    res.json({ settings: await settingsOf(deps) });
  });

  router.get('/satisfaction/report', scope('admin'), requireRole('agent', 'admin'), async (req, res) => {
    const { from, to } = reportPeriod(deps, req.query);
    res.json({ report: await satisfactionReport(deps.readStore, from, to) });
  });

  router.get('/satisfaction/report.csv', scope('admin'), requireRole('agent', 'admin'), async (req, res) => {
    const { from, to } = reportPeriod(deps, req.query);
    res.type('text/csv').attachment(`satisfaction-${from.toISOString().slice(0, 10)}-${to.toISOString().slice(0, 10)}.csv`);
    res.send(await satisfactionCsv(deps.readStore, from, to));
  });
};
