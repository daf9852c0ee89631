import { ConflictError } from '#contract/errors';
import type { Decider, DomainEvent } from '../shared/decider';

/**
 * A reservation stream holds one unique value (an e-mail, a username, a customer's open ticket).
 * Appending with the revision that was read makes claiming it race-free: of two concurrent claims
 * exactly one append succeeds, and the loser decides again and sees the value taken.
 */
export const reservationStream = (kind: string, value: string) => `reservation-${kind}-${value.toLowerCase()}`;

export type ReservationEvent =
  | DomainEvent<'ValueReserved', { kind: string; value: string; ownerId: string }>
  | DomainEvent<'ValueReleased', { kind: string; value: string; ownerId: string }>;

export type ReservationState = { ownerId: string | null };

export type ReservationCommand =
  | {
      type: 'Reserve';
      kind: string;
      value: string;
      ownerId: string;
      conflictMessage: string;
      conflictCode: string;
      /** Claims the value even though this owner holds it: the handler found that owner abandoned it. */
      takeOverFrom?: string;
    }
  | { type: 'Release'; kind: string; value: string; ownerId: string };

export const reservationDecider: Decider<ReservationCommand, ReservationEvent, ReservationState> = {
  initialState: { ownerId: null },
  evolve: (_state, event) => ({ ownerId: event.type === 'ValueReserved' ? event.data.ownerId : null }),
  decide(command, state) {
    const { kind, value, ownerId } = command;
    if (command.type === 'Reserve') {
      if (state.ownerId === ownerId) return [];
      if (state.ownerId !== null && state.ownerId !== command.takeOverFrom) throw new ConflictError(command.conflictMessage, command.conflictCode);
      return [{ type: 'ValueReserved', data: { kind, value, ownerId } }];
    }
    if (state.ownerId !== ownerId) return [];
    return [{ type: 'ValueReleased', data: { kind, value, ownerId } }];
  },
};
