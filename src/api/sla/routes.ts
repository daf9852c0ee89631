import type { Router } from 'express';
import { slaSettingsSchema } from '#contract/sla';
import { NotFoundError } from '#contract/errors';
import { ticketIdsQuery } from '#contract/tickets';
import type { AppDeps } from '../../app/deps';
import { slaReport, slaCsv } from '../../app/sla/report';
import { updateSlaSettings } from '../../app/sla/service';
import { findSlaTicket, loadSlaSettings, slaOf, slaOfTickets } from '../../projections/sla';
import { commandContext, currentUser, requireRole } from '../http/auth';
import { parse } from '../http/validate';
import { reportPeriod } from '../satisfaction/routes';
import { findVisibleTicket } from '../tickets/views';
import { scope } from '../http/scopes';

const settingsOf = async (deps: AppDeps) => {
  const { _id: _i, ...settings } = await loadSlaSettings(deps.readStore);
  return settings;
};

/** Calendars and policies (admin), the tickets' due times and the attainment report (docs/sla.md). */
export const slaRoutes = (deps: AppDeps) => (router: Router) => {
  router.get('/sla/settings', scope('admin'), requireRole('admin'), async (_req, res) => {
    res.json({ settings: await settingsOf(deps) });
  });

  router.put('/sla/settings', scope('admin'), requireRole('admin'), async (req, res) => {
    const settings = parse(slaSettingsSchema, req.body);
    await updateSlaSettings(deps, settings, commandContext(deps, req));
    res.json({ settings: await settingsOf(deps) });
  });

  router.get('/sla/tickets', scope('admin'), requireRole('agent', 'admin'), async (req, res) => {
    const { tickets } = parse(ticketIdsQuery, req.query);
    res.json({ now: deps.clock().toISOString(), tickets: await slaOfTickets(deps.readStore, tickets, deps.clock().getTime()) });
  });

  router.get('/tickets/:id/sla', scope('tickets:read'), requireRole('agent', 'admin'), async (req, res) => {
    const ticket = await findVisibleTicket(deps.readStore, String(req.params.id), currentUser(req));
    const entry = await findSlaTicket(deps.readStore, ticket._id);
    if (!entry) throw new NotFoundError('Ticket');
    res.json({ now: deps.clock().toISOString(), sla: slaOf(entry.clock, deps.clock().getTime()) });
  });

  router.get('/sla/report', scope('admin'), requireRole('agent', 'admin'), async (req, res) => {
    const { from, to } = reportPeriod(deps, req.query);
    res.json({ report: await slaReport(deps.readStore, from, to, deps.clock()) });
  });

  router.get('/sla/report.csv', scope('admin'), requireRole('agent', 'admin'), async (req, res) => {
    const { from, to } = reportPeriod(deps, req.query);
    res.type('text/csv').attachment(`sla-${from.toISOString().slice(0, 10)}-${to.toISOString().slice(0, 10)}.csv`);
    res.send(await slaCsv(deps.readStore, from, to, deps.clock()));
  });
};
