import { z } from 'zod';
import { loginSchema, logoutSchema, notificationPreferencesSchema, refreshSchema, registerSchema, setPasswordSchema } from '#contract/users';
import { AVAILABILITIES, activitySchema, availabilitySchema } from '#contract/teams';
import type { ApiRegistry } from '../openapi/registry';
import { NotificationPreferences, SignedIn, Tokens, User } from '#contract/responses';
import { noToken, open } from '../http/scopes';

const preferences = z.strictObject({ notificationPreferences: NotificationPreferences });

export function describeIdentity(docs: ApiRegistry): void {
  docs.route({
    method: 'post',
    path: '/auth/register',
    token: noToken,
    summary: 'Create a customer account and sign in',
    access: 'public',
    body: registerSchema,
    responses: { 201: { description: 'The new user and their tokens', schema: SignedIn } },
    errors: [403, 409],
  });
  docs.route({
    method: 'post',
    path: '/auth/login',
    token: noToken,
    summary: 'Sign in',
    description: 'Repeated failures slow the answers down (sign-in throttling).',
    access: 'public',
    body: loginSchema,
    responses: { 200: { description: 'The user and their tokens', schema: SignedIn } },
    errors: [401],
  });
  docs.route({
    method: 'post',
    path: '/auth/set-password',
    token: noToken,
    summary: 'Set a password with an e-mailed password link',
    description:
      'The token is the `token` of the link the desk mailed (`/set-password#token=...`). It works once: a used link or one a newer link replaced is 410 `LINK_USED`/`LINK_REPLACED`, an expired one 410 `LINK_EXPIRED`, a token the desk never issued 404. Every session of the user ends.',
    access: 'public',
    body: setPasswordSchema,
    responses: { 204: { description: 'The password is set; sign in with it' } },
    errors: [403, 404, 410],
  });
  docs.route({
    method: 'post',
    path: '/auth/refresh',
    token: noToken,
    summary: 'Trade a refresh token for new tokens (rotation)',
    access: 'public',
    body: refreshSchema,
    responses: { 200: { description: 'New access and refresh tokens', schema: Tokens } },
    errors: [401],
  });
  docs.route({
    method: 'post',
    path: '/auth/logout',
    token: noToken,
    summary: 'End the session of the refresh token sent, or else of the access token used (staff become Offline)',
    access: 'public',
    body: logoutSchema,
    responses: { 204: { description: 'Signed out' } },
    errors: [401],
  });
  docs.route({
    method: 'get',
    path: '/auth/profile',
    token: open,
    summary: 'The signed-in user',
    access: 'signed-in',
    responses: { 200: { description: 'The user', schema: z.strictObject({ user: User }) } },
  });
  docs.route({
    method: 'get',
    path: '/auth/notifications/preferences',
    token: noToken,
    summary: 'Notification preferences',
    access: ['agent', 'admin'],
    responses: { 200: { description: 'The preferences', schema: preferences } },
  });
  docs.route({
    method: 'put',
    path: '/auth/notifications/preferences',
    token: noToken,
    summary: 'Change notification preferences',
    access: ['agent', 'admin'],
    body: notificationPreferencesSchema,
    responses: { 200: { description: 'The preferences after the change', schema: preferences } },
  });
  const availability = z.strictObject({ availability: z.enum(AVAILABILITIES) });
  docs.route({
    method: 'get',
    path: '/auth/availability',
    token: noToken,
    summary: 'My availability for automatic assignment',
    access: ['agent', 'admin'],
    responses: { 200: { description: 'available, away or offline', schema: availability } },
  });
  docs.route({
    method: 'put',
    path: '/auth/availability',
    token: noToken,
    summary: 'Set my availability (Away or Offline: no automatic assignments)',
    access: ['agent', 'admin'],
    body: availabilitySchema,
    responses: { 200: { description: 'The availability after the change', schema: availability } },
  });
  docs.route({
    method: 'post',
    path: '/auth/activity',
    token: noToken,
    summary: 'Report activity in the web app (at most once a minute): the idle time that sets Available staff Away starts again',
    access: ['agent', 'admin'],
    body: activitySchema,
    responses: { 204: { description: 'Recorded (or nothing to record: idle Away is off, or the caller is not Available)' } },
  });
}
