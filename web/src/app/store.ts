import { combineSlices, configureStore } from '@reduxjs/toolkit';
import { toastsSlice } from '../components/toastsSlice';
import { sessionSlice } from '../entities/session/sessionSlice';
import { themeSlice } from '../lib/theme';
import { api } from './api';

const rootReducer = combineSlices(api, sessionSlice, themeSlice, toastsSlice);
export type RootState = ReturnType<typeof rootReducer>;

export const createStore = (preloadedState?: Partial<RootState>) =>
  configureStore({
    reducer: rootReducer,
    middleware: (getDefault) => getDefault().concat(api.middleware),
    ...(preloadedState ? { preloadedState } : {}),
  });

type AppStore = ReturnType<typeof createStore>;
export type AppDispatch = AppStore['dispatch'];
