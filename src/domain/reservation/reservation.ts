import { ConflictError } from '#contract/errors';
import type { Decider, DomainEvent } from '../shared/decider';

/**
 * A reservation stream holds one unique value (an e-mail, a username, a customer's open ticket).
 * Every claim appends a reservation at the revision it read, so of two concurrent claims exactly
 * one lands, and the value has exactly one holder at every position of the log: its owner keeps it
 * until its release is written or a takeover proves, at exact revisions, that it let the value go.
 */
export const reservationStream = (kind: string, value: string) => `reservation-${kind}-${value.toLowerCase()}`;

export type ReservationEvent =
  /** `takenOverFrom`: the earlier owner, shown to have let the value go (see `ClaimWithdrawn`). */
  | DomainEvent<'ValueReserved', { kind: string; value: string; ownerId: string; takenOverFrom?: string }>
  | DomainEvent<'ValueReleased', { kind: string; value: string; ownerId: string }>;

/**
 * Written into the stream of an owner that claimed a value and never came to hold it (a crash or a
 * pause between its claim and its own event), at that stream's exact revision, before the value is
 * taken over. The owner's pending command then meets it and is refused, or it landed first and
 * this marker is refused: never both. `reservation` is the revision of the withdrawn reservation.
 */
export const CLAIM_WITHDRAWN = 'ClaimWithdrawn';
export type ClaimWithdrawnEvent = DomainEvent<typeof CLAIM_WITHDRAWN, { kind: string; value: string; ownerId: string; reservation: number; by: string }>;

export type ReservationState = { ownerId: string | null };

export type ReservationCommand =
  | {
      type: 'Reserve';
      kind: string;
      value: string;
      ownerId: string;
      conflictMessage: string;
      conflictCode: string;
      /** Claims the value from this owner: the handler proved it let the value go at the revision it appends at. */
      takeOverFrom?: string;
    }
  | { type: 'Release'; kind: string; value: string; ownerId: string };

export const reservationDecider: Decider<ReservationCommand, ReservationEvent, ReservationState> = {
  initialState: { ownerId: null },
  evolve: (_state, event) => ({ ownerId: event.type === 'ValueReserved' ? event.data.ownerId : null }),
  decide(command, state) {
    const { kind, value, ownerId } = command;
    if (command.type === 'Reserve') {
      // An owner claiming again writes a fresh reservation: a takeover decided on the earlier one,
      // at the earlier revision, can then no longer land.
      if (state.ownerId === ownerId) return [{ type: 'ValueReserved', data: { kind, value, ownerId } }];
      if (state.ownerId !== null && state.ownerId !== command.takeOverFrom) throw new ConflictError(command.conflictMessage, command.conflictCode);
      const takenOverFrom = state.ownerId ?? undefined;
      return [{ type: 'ValueReserved', data: { kind, value, ownerId, ...(takenOverFrom ? { takenOverFrom } : {}) } }];
    }
    if (state.ownerId !== ownerId) return [];
    return [{ type: 'ValueReleased', data: { kind, value, ownerId } }];
  },
};
