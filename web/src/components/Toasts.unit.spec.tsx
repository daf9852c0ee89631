/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { act, screen } from '@testing-library/react';
import { renderWeb } from '../test/render';
import { Toasts } from './Toasts';
import { toastShown } from './toastsSlice';

describe('Toasts', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('when toasts of each kind show, then they go after 5 s and errors after 7 s', () => {
    const { store } = renderWeb(<Toasts />);
    act(() => {
      store.dispatch(toastShown('success', 'Saved'));
      store.dispatch(toastShown('info', 'FYI'));
      store.dispatch(toastShown('warning', 'Careful'));
      store.dispatch(toastShown('error', 'Broken'));
    });
    expect(screen.getByRole('alert')).toHaveTextContent('Broken');
    expect(screen.getByText('Saved').closest('.toast')).toHaveClass('toast-success');
    expect(screen.getByText('Careful').closest('.toast')).toHaveClass('toast-warning');
    act(() => jest.advanceTimersByTime(5001));
    expect(screen.queryByText('Saved')).not.toBeInTheDocument();
    expect(screen.queryByText('FYI')).not.toBeInTheDocument();
    expect(screen.getByText('Broken')).toBeInTheDocument();
    act(() => jest.advanceTimersByTime(2000));
    expect(screen.queryByText('Broken')).not.toBeInTheDocument();
  });
});
