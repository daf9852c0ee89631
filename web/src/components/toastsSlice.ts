import { type PayloadAction, createSlice, nanoid } from '@reduxjs/toolkit';

export type ToastKind = 'success' | 'error' | 'warning' | 'info';
export interface Toast {
  id: string;
  kind: ToastKind;
  message: string;
}

/** docs/product.md section 9: toasts last 5 s, errors 7 s. */
export const toastDuration = (kind: ToastKind) => (kind === 'error' ? 7000 : 5000);

export const toastsSlice = createSlice({
  name: 'toasts',
  initialState: [] as Toast[],
  reducers: {
    toastShown: {
      reducer(state, action: PayloadAction<Toast>) {
        state.push(action.payload);
      },
      prepare: (kind: ToastKind, message: string) => ({ payload: { id: nanoid(), kind, message } }),
    },
    toastDismissed(state, action: PayloadAction<string>) {
      return state.filter((toast) => toast.id !== action.payload);
    },
  },
  selectors: { selectToasts: (state) => state },
});

export const { toastShown, toastDismissed } = toastsSlice.actions;
export const { selectToasts } = toastsSlice.selectors;
