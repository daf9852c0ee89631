/** Staff availability's timers and team fills (docs/teams.md): one queue, jobs named by their kind. */
export const AVAILABILITY_QUEUE = 'availability';

export type AvailabilityJob =
  /** Away once `since` (the last activity, or becoming Available) is the idle time old, if nothing moved it. */
  | { kind: 'idle'; userId: string; since: string; hop: number }
  /** The agent's tickets go back to their teams once the Offline of `offlineEventId` is the grace period old, if it still stands. */
  | { kind: 'grace'; userId: string; offlineEventId: string; offlineAt: string; hop: number }
  /** Capacity freed or someone came back: the team's waiting tickets find agents. */
  | { kind: 'fill'; teamId: string };
