import { ConflictError, ForbiddenError, NotFoundError } from '../shared/errors';
import type { Decider } from '../shared/decider';
import { type Role, type UserEvent, type UserProfile, type UserState, evolve, initialState } from './user';

export type UserCommand =
  | { type: 'CreateUser'; userId: string; profile: UserProfile; role: Role; isActive: boolean; passwordHash: string }
  | { type: 'RecordSignIn'; userId: string };

export function decide(command: UserCommand, state: UserState): UserEvent[] {
  switch (command.type) {
    case 'CreateUser': {
      if (state.status !== 'none') throw new ConflictError('User already exists', 'USER_EXISTS');
      const { userId, profile, role, isActive, passwordHash } = command;
      return [{ type: 'UserCreated', data: { userId, ...profile, role, isActive, passwordHash } }];
    }
    case 'RecordSignIn':
      if (state.status === 'none') throw new NotFoundError('User');
      if (state.status === 'inactive') throw new ForbiddenError('This account has been deactivated', 'ACCOUNT_DEACTIVATED');
      return [{ type: 'UserSignedIn', data: { userId: command.userId } }];
  }
}

export const userDecider: Decider<UserCommand, UserEvent, UserState> = { decide, evolve, initialState };
