import { api } from '../../app/api';
import type { User } from '../../entities/session/sessionSlice';

interface SignedIn {
  user: User;
  accessToken: string;
  refreshToken: string;
}

export interface Registration {
  username: string;
  email: string;
  password: string;
  firstName: string;
  lastName: string;
}

const authApi = api.injectEndpoints({
  endpoints: (build) => ({
    login: build.mutation<SignedIn, { email: string; password: string }>({
      query: (body) => ({ url: '/auth/login', method: 'POST', body }),
    }),
    register: build.mutation<SignedIn, Registration>({
      query: (body) => ({ url: '/auth/register', method: 'POST', body }),
    }),
    setPassword: build.mutation<void, { token: string; password: string }>({
      query: (body) => ({ url: '/auth/set-password', method: 'POST', body }),
    }),
  }),
});

export const { useLoginMutation, useRegisterMutation, useSetPasswordMutation } = authApi;
