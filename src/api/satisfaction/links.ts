import express, { type ErrorRequestHandler, type Express, type Request } from 'express';
import { z } from 'zod';
import { DomainError } from '#contract/errors';
import { MESSAGE_MAX } from '#contract/tickets';
import { ratingCommentSchema } from '#contract/satisfaction';
import type { AppDeps } from '../../app/deps';
import { type LinkClaims, verifyRatingLink } from '../../app/satisfaction/links';
import { commentOnRating, rateTicket } from '../../app/satisfaction/service';
import { findEpisode, loadSatisfactionSettings } from '../../projections/satisfaction';
import { maintenance, rateLimit, whileStarting } from '../http/guards';
import { parse } from '../http/validate';

/** Where the e-mailed links lead, outside /api: plain HTML forms that work without the web app or a session. */
const RATE_PATH = '/rate/:ticketId';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
  `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;

const linkQuery = z.object({
  t: z.string({ message: 'The link has no token' }).min(1, 'The link has no token'),
  score: z.coerce.number().int().min(1).max(5).optional(),
});
const rateForm = z.object({
  t: z.string().min(1, 'The link has no token'),
  score: z.coerce.number({ message: 'Choose a score' }).int().min(1, 'Choose a score from 1 to 5').max(5, 'Choose a score from 1 to 5'),
});
/** The comment as the API takes it (ratingCommentSchema): the same limits and the same text rules. */
const commentForm = z.object({
  t: z.string().min(1, 'The link has no token'),
  comment: ratingCommentSchema.shape.comment,
});

/**
 * The links of the survey e-mail. A GET never changes anything (mail scanners and link previews
 * fetch every link): it shows the question with the clicked score chosen and a button that POSTs.
 * The POST rates, then offers the comment form. The token decides who rates which episode of which ticket.
 */
export const ratingLinkPages = (deps: AppDeps) => (app: Express) => {
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  // Public pages that write: the API's guards apply (not while starting, the rate limit per address, maintenance).
  app.use('/rate', whileStarting(deps.startup), rateLimit(deps), maintenance(deps));

  const claimsOf = (req: Request, token: string) => verifyRatingLink(deps, token, String(req.params.ticketId), deps.clock());
  /** The link's customer acts, by e-mail, on the link's episode. */
  const asLinked = (claims: LinkClaims) => ({
    input: { ticketId: claims.ticketId, rater: { userId: claims.customerId, role: 'customer' as const }, channel: 'email' as const, episode: claims.episode },
    context: { actor: { userId: claims.customerId, role: 'customer', platform: 'web' as const }, now: deps.clock() },
  });
  const action = (req: Request, suffix = '') => `/rate/${encodeURIComponent(String(req.params.ticketId))}${suffix}`;

  const commentPage = (req: Request, token: string, note: string) =>
    page(
      'Thank you for your rating',
      `<p>${escapeHtml(note)}</p><form method="post" action="${action(req, '/comment')}"><input type="hidden" name="t" value="${escapeHtml(token)}">` +
        `<p><label for="comment">Anything to add?</label></p><p><textarea id="comment" name="comment" rows="5" cols="60" maxlength="${MESSAGE_MAX}"></textarea></p>` +
        `<p><button type="submit">Send comment</button></p></form>`,
    );

  app.get(RATE_PATH, async (req, res) => {
    const { t, score } = parse(linkQuery, req.query);
    const claims = claimsOf(req, t);
    const settings = await loadSatisfactionSettings(deps.readStore);
    const episode = await findEpisode(deps.readStore, claims.ticketId, claims.episode);
    const choices = settings.labels
      .map((label, index) => {
        const value = index + 1;
        return `<p><label><input type="radio" name="score" value="${value}"${value === score ? ' checked' : ''} required> ${value} – ${escapeHtml(label)}</label></p>`;
      })
      .join('');
    const current = episode?.score ? `<p>Your current rating is ${episode.score} of 5.</p>` : '';
    res
      .type('html')
      .send(
        page(
          settings.question,
          `<p>Ticket #${episode?.number ?? ''} ${escapeHtml(episode?.title ?? '')}</p>${current}<form method="post" action="${action(req)}">` +
            `<input type="hidden" name="t" value="${escapeHtml(t)}">${choices}<p><button type="submit">Confirm my rating</button></p></form>`,
        ),
      );
  });

  app.post(RATE_PATH, form, async (req, res) => {
    const { t, score } = parse(rateForm, req.body);
    const { input, context } = asLinked(claimsOf(req, t));
    await rateTicket(deps, { ...input, score }, context);
    res.type('html').send(commentPage(req, t, `Your rating of ${score} of 5 is recorded. You can change it from the e-mail for 7 days.`));
  });

  app.post(`${RATE_PATH}/comment`, form, async (req, res) => {
    const { t, comment } = parse(commentForm, req.body);
    const { input, context } = asLinked(claimsOf(req, t));
    await commentOnRating(deps, { ...input, comment }, context);
    res.type('html').send(page('Thank you', `<p>Your comment is recorded:</p><blockquote>${escapeHtml(comment)}</blockquote>`));
  });

  const htmlErrors: ErrorRequestHandler = (error: unknown, _req, res, next) => {
    if (!(error instanceof DomainError)) return next(error);
    res
      .status(error.status)
      .type('html')
      .send(page('This link cannot be used', `<p>${escapeHtml(error.message)}</p>`));
  };
  app.use('/rate', htmlErrors);
};
