/** Display rules of docs/product.md section 9, shared by every screen. */

/** '< 1m' below a minute, minutes below 60, hours below 1440 minutes, otherwise days; '0m' by default. */
export function formatDuration(minutes: number | null | undefined): string {
  if (minutes === null || minutes === undefined || !Number.isFinite(minutes) || minutes <= 0) return '0m';
  if (minutes < 1) return '< 1m';
  if (minutes < 60) return `${Math.round(minutes)}m`;
  if (minutes < 1440) return `${Math.round(minutes / 60)}h`;
  return `${Math.round(minutes / 1440)}d`;
}

export const formatDate = (iso: string) => new Date(iso).toLocaleDateString();
export const formatDateTime = (iso: string) => new Date(iso).toLocaleString();
export const formatTime = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/** Attachment sizes are shown in KB (docs/product.md section 9). */
export const formatKb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

export const initialsOf = (firstName = '', lastName = '') => `${firstName.charAt(0)}${lastName.charAt(0)}`.toUpperCase() || '?';

export const fullName = (person: { firstName?: string; lastName?: string } | null | undefined) =>
  [person?.firstName, person?.lastName].filter(Boolean).join(' ');

/** 'Just now', 'n mins ago', 'n hours ago', 'n days ago', then the date after 7 days. */
export function timeAgo(iso: string, now = Date.now()): string {
  const minutes = Math.floor((now - new Date(iso).getTime()) / 60_000);
  if (minutes < 1) return 'Just now';
  if (minutes < 60) return `${minutes} min${minutes === 1 ? '' : 's'} ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} hour${hours === 1 ? '' : 's'} ago`;
  const days = Math.floor(hours / 24);
  if (days <= 7) return `${days} day${days === 1 ? '' : 's'} ago`;
  return formatDate(iso);
}

/** A count with its noun: '1 ticket', '2 tickets', '0 uses' (issue 25). */
export const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** How long someone has waited, as short as a table cell needs: '<1 min', '5 min', '2 h', '3 d'. */
export function waitedForShort(iso: string, now = Date.now()): string {
  const minutes = Math.floor((now - new Date(iso).getTime()) / 60_000);
  if (minutes < 1) return '<1 min';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 24 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
}
