import { existsSync } from 'node:fs';
import path from 'node:path';
import cors from 'cors';
import express, { Router } from 'express';
import helmet from 'helmet';
import type { AppDeps } from '../app/deps';
import { apiTokenRoutes } from './apiTokens/routes';
import { categoryRoutes } from './categories/routes';
import { teamRoutes } from './teams/routes';
import { notificationRoutes } from './notifications/routes';
import { eventFeedRoutes } from './events/routes';
import { webhookRoutes } from './webhooks/routes';
import { deliveryRoutes } from './deliveries/routes';
import { healthRoutes } from './health/routes';
import { authenticate } from './http/auth';
import { refuseInvalidUtf8, requireKnownBody } from './http/contentType';
import { corsOrigin, maintenance, rateLimit, whileStarting } from './http/guards';
import { errorHandler, notFoundHandler } from './http/errors';
import { markMount, trackRequests } from './http/requests';
import { metricsRoute } from './metrics/routes';
import { openApiRoutes } from './openapi/routes';
import { identityRoutes } from './identity/routes';
import { userRoutes } from './users/routes';
import { botRoutes } from './bot/routes';
import { settingsRoutes } from './settings/routes';
import { whitelistRoutes } from './whitelist/routes';
import { ticketRoutes } from './tickets/routes';
import { satisfactionRoutes } from './satisfaction/routes';
import { slaRoutes } from './sla/routes';
import { ratingLinkPages } from './satisfaction/links';
import { searchRoutes } from './search/routes';
import { auditRoutes } from './audit/routes';
import { cannedRoutes } from './canned/routes';
import { macroRoutes } from './macros/routes';
import { viewRoutes } from './views/routes';
import { ruleRoutes } from './rules/routes';
import { telegramWebhookRoutes } from './telegram/routes';

/**
 * Mounted on one router, matched in this order: the ticket routes (conversations, the busiest calls
 * by far) first, so a chat message is not matched against some sixty other routes' patterns before
 * its own. No two modules share a path, so the order changes nothing else.
 */
const routeModules = [
  ticketRoutes,
  searchRoutes,
  healthRoutes,
  auditRoutes,
  identityRoutes,
  userRoutes,
  categoryRoutes,
  teamRoutes,
  settingsRoutes,
  botRoutes,
  whitelistRoutes,
  deliveryRoutes,
  cannedRoutes,
  macroRoutes,
  viewRoutes,
  ruleRoutes,
  satisfactionRoutes,
  apiTokenRoutes,
  eventFeedRoutes,
  webhookRoutes,
  slaRoutes,
  notificationRoutes,
];

/** Builds the HTTP app without listening (tests and the server both use it). */
export function createApp(deps: AppDeps, options: { webDir?: string } = {}): express.Express {
  const app = express();
  // Paths match as written: /api/Tickets or /api/tickets/ is no route (404), not another spelling of one.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.TRUST_PROXY);
  // First, so every answer (an error, a refusal, a static file) is logged and timed with its request id.
  app.use(trackRequests(deps));
  // Helmet's default CSP asks browsers to upgrade every request to https: on a plain-http host other
  // than localhost the scripts then fail to load and the page stays blank. Ask only when served on https.
  const https = deps.config.PUBLIC_URL?.startsWith('https://') ?? false;
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          'img-src': ["'self'", 'data:', 'blob:'],
          'connect-src': ["'self'", 'ws:', 'wss:'],
          'upgrade-insecure-requests': https ? [] : null,
        },
      },
    }),
  );

  metricsRoute(deps)(app);
  // The e-mailed rating links: HTML forms outside /api, before the web app's catch-all.
  ratingLinkPages(deps)(app);

  const api = Router({ caseSensitive: true, strict: true });
  api.use(markMount);
  api.use(cors({ origin: corsOrigin(deps), maxAge: 600 }));
  // The API reference is public and holds no data: it answers while starting and in maintenance too.
  openApiRoutes()(api);
  api.use(express.json({ limit: '1mb', verify: refuseInvalidUtf8 }));
  api.use(whileStarting(deps.startup));
  api.use(requireKnownBody);
  telegramWebhookRoutes(deps)(api);
  api.use(authenticate(deps));
  api.use(rateLimit(deps));
  api.use(maintenance(deps));
  for (const mount of routeModules) mount(deps)(api);
  api.use(notFoundHandler);
  app.use('/api', api);

  const webDir = options.webDir;
  if (webDir && existsSync(path.join(webDir, 'index.html'))) {
    app.use(express.static(webDir, { index: false, maxAge: '1h' }));
    // Client-side routes: every other GET that is not a file gets the app shell.
    app.get(/^(?!\/api\/|\/socket\.io\/).*/i, (_req, res) => res.sendFile(path.join(webDir, 'index.html')));
  }
  app.use(errorHandler(deps.logger));
  return app;
}
