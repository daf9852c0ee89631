/** Browser storage keys of spec.md section 9. */
export const tokens = {
  access: () => localStorage.getItem('accessToken'),
  save(accessToken: string, refreshToken?: string) {
    localStorage.setItem('accessToken', accessToken);
    if (refreshToken) localStorage.setItem('refreshToken', refreshToken);
  },
  clear() {
    localStorage.removeItem('accessToken');
    localStorage.removeItem('refreshToken');
  },
};
