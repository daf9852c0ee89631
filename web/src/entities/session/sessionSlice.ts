import { type PayloadAction, createSlice } from '@reduxjs/toolkit';
import type { User } from '#contract/responses';

export type { User };
export type Role = User['role'];

/** docs/product.md section 4: the session is loading (restoring), authenticated or anonymous. */
export type Session = { status: 'loading'; user: null } | { status: 'authenticated'; user: User } | { status: 'anonymous'; user: null };

export const sessionSlice = createSlice({
  name: 'session',
  initialState: { status: 'loading', user: null } as Session,
  reducers: {
    signedIn: (_state, action: PayloadAction<User>): Session => ({ status: 'authenticated', user: action.payload }),
    signedOut: (): Session => ({ status: 'anonymous', user: null }),
  },
  selectors: {
    selectSession: (state) => state,
    selectUser: (state) => state.user,
  },
});

export const { signedIn, signedOut } = sessionSlice.actions;
export const { selectSession, selectUser } = sessionSlice.selectors;
