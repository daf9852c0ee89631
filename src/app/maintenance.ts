/** What everyone but admins is told while maintenance mode is on: on the web, the live socket and the bot alike. */
export const maintenanceMessage = (systemName: string) => `${systemName} is down for maintenance. Please try again later.`;
