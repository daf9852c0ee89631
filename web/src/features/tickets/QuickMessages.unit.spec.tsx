/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { canned } from '../../test/fixtures';
import { renderWeb } from '../../test/render';
import { QuickMessages } from './QuickMessages';

const MESSAGES = [
  canned({ shortcode: 'refund', title: 'Refund issued', content: 'Your refund is on its way.', usageCount: 2 }),
  canned({ shortcode: 'hello', title: 'Greeting', content: 'Hi! '.repeat(40), usageCount: 5 }),
  canned({ shortcode: 'bye', title: 'Closing', content: 'Glad we could help.', usageCount: 2 }),
];

describe('Quick Messages panel', () => {
  it('when listed, then the most used come first, then by shortcode, each with its use count', () => {
    renderWeb(<QuickMessages messages={MESSAGES} loading={false} failed={false} onChoose={jest.fn()} />);
    const codes = within(screen.getByRole('list'))
      .getAllByRole('button')
      .map((button) => button.querySelector('.quick-code')?.textContent);
    expect(codes).toEqual(['#hello', '#bye', '#refund']);
    expect(screen.getByText('5 uses')).toBeInTheDocument();
  });

  it('when hovering, then the tooltip previews the first 100 characters', () => {
    renderWeb(<QuickMessages messages={MESSAGES} loading={false} failed={false} onChoose={jest.fn()} />);
    const hello = screen.getByRole('button', { name: /#hello/ });
    expect(hello.getAttribute('title')).toBe(`${'Hi! '.repeat(40).slice(0, 100)}...`);
  });

  it('when searching, then shortcode, title and content match regardless of case', async () => {
    renderWeb(<QuickMessages messages={MESSAGES} loading={false} failed={false} onChoose={jest.fn()} />);
    const user = userEvent.setup();
    const search = screen.getByRole('searchbox', { name: 'Search quick messages' });
    await user.type(search, 'REFUND');
    expect(screen.getAllByRole('button', { name: /#/ })).toHaveLength(1);
    await user.clear(search);
    await user.type(search, 'glad we');
    expect(screen.getByRole('button', { name: /#bye/ })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /#hello/ })).not.toBeInTheDocument();
  });

  it('when one is chosen, then it is handed over; the panel collapses and expands', async () => {
    const onChoose = jest.fn();
    renderWeb(<QuickMessages messages={MESSAGES} loading={false} failed={false} onChoose={onChoose} />);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: /#refund/ }));
    expect(onChoose).toHaveBeenCalledWith(MESSAGES[0]);
    await user.click(screen.getByRole('button', { name: 'Collapse quick messages' }));
    expect(screen.queryByRole('searchbox')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Expand quick messages' }));
    expect(screen.getByRole('searchbox')).toBeInTheDocument();
  });
});
