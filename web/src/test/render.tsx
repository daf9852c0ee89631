import { type RenderOptions, render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { Provider } from 'react-redux';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { createStore } from '../app/store';
import type { Session, User } from '../entities/session/sessionSlice';

/** Component tests render with the app's real store and router, starting from a given session and path. */
export function renderWeb(
  ui: ReactElement,
  { session = { status: 'anonymous', user: null }, path = '/', routes }: { session?: Session; path?: string; routes?: Record<string, ReactElement> } = {},
  options?: RenderOptions,
) {
  const store = createStore({ session });
  const result = render(
    <Provider store={store}>
      <MemoryRouter initialEntries={[path]}>
        {routes ? (
          <Routes>
            <Route path={path.split('?')[0]} element={ui} />
            {Object.entries(routes).map(([route, element]) => (
              <Route key={route} path={route} element={element} />
            ))}
          </Routes>
        ) : (
          ui
        )}
        <Where />
      </MemoryRouter>
    </Provider>,
    options,
  );
  return { ...result, store };
}

/** Shows the current path so a test can see where a redirect went. */
function Where() {
  const location = useLocation();
  return <span data-testid="location">{`${location.pathname}${location.search}`}</span>;
}

export const signedInAs = (user: User): Session => ({ status: 'authenticated', user });
