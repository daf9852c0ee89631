import { createSlice } from '@reduxjs/toolkit';

export type Theme = 'light' | 'dark';

/** The stored choice (browser storage key 'theme', docs/product.md section 9); light unless dark was chosen. */
export const storedTheme = (): Theme => (localStorage.getItem('theme') === 'dark' ? 'dark' : 'light');

export const applyTheme = (theme: Theme) => {
  document.documentElement.dataset.theme = theme;
  document.documentElement.style.colorScheme = theme;
};

export const themeSlice = createSlice({
  name: 'theme',
  initialState: () => ({ theme: storedTheme() }),
  reducers: {
    themeToggled(state) {
      state.theme = state.theme === 'light' ? 'dark' : 'light';
    },
  },
  selectors: { selectTheme: (state) => state.theme },
});

export const { themeToggled } = themeSlice.actions;
export const { selectTheme } = themeSlice.selectors;
