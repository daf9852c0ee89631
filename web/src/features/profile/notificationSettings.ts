/** The local copy of the staff notification settings (browser storage key 'notificationSettings'). */
export interface LocalNotificationSettings {
  newTickets: boolean;
  ticketUpdates: boolean;
}

const KEY = 'notificationSettings';

export function readLocalSettings(): LocalNotificationSettings {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY) ?? '{}') as Partial<LocalNotificationSettings>;
    return { newTickets: stored.newTickets === true, ticketUpdates: stored.ticketUpdates === true };
  } catch {
    return { newTickets: false, ticketUpdates: false };
  }
}

export function writeLocalSettings(settings: LocalNotificationSettings): void {
  localStorage.setItem(KEY, JSON.stringify({ newTickets: settings.newTickets, ticketUpdates: settings.ticketUpdates }));
}

export const notificationsSupported = () => typeof window !== 'undefined' && 'Notification' in window;
export const permissionGranted = () => notificationsSupported() && Notification.permission === 'granted';
