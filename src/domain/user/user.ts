import type { DomainEvent } from '../shared/decider';

export const userStream = (userId: string) => `user-${userId}`;

export const ROLES = ['customer', 'agent', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export interface UserProfile {
  username: string;
  email: string;
  firstName: string;
  lastName: string;
}

export type UserEvent =
  | DomainEvent<'UserRegistered', { userId: string; passwordHash: string } & UserProfile>
  | DomainEvent<'UserCreated', { userId: string; role: Role; isActive: boolean; passwordHash: string } & UserProfile>
  | DomainEvent<'UserSignedIn', { userId: string }>;

export type UserState =
  | { status: 'none' }
  | ({ status: 'active' | 'inactive'; userId: string; role: Role; passwordHash: string } & UserProfile);

export const initialState: UserState = { status: 'none' };

export function evolve(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserRegistered': {
      const { userId, passwordHash, ...profile } = event.data;
      return { status: 'active', userId, role: 'customer', passwordHash, ...profile };
    }
    case 'UserCreated': {
      const { userId, passwordHash, role, isActive, ...profile } = event.data;
      return { status: isActive ? 'active' : 'inactive', userId, role, passwordHash, ...profile };
    }
    case 'UserSignedIn':
      return state;
  }
}
