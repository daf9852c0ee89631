/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { act, fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AGENT, CUSTOMER, canned, message } from '../../test/fixtures';
import { renderWeb } from '../../test/render';
import { useState } from 'react';
import { ChatInput, MessageItem, MessageList } from './Conversation';
import type { Queued } from '../../lib/outbox';
import type { StaffMemberView } from '#contract/notifications';

const CANNED = [
  canned({ shortcode: 'refund', title: 'Refund issued', content: 'Your refund is on its way.' }),
  canned({ shortcode: 'hello', title: 'Greeting', content: 'Hi there!' }),
];

function Input({
  staff = false,
  closedForMe = false,
  onSend = jest.fn(async (): Promise<string | null> => null),
  onTyping = jest.fn(),
  onCanned = jest.fn(),
  colleagues = [] as StaffMemberView[],
  fileLimits = undefined as { maxFileSize: number; maxFiles: number } | undefined,
}) {
  const [text, setText] = useState('');
  return (
    <ChatInput
      text={text}
      onText={setText}
      staff={staff}
      closedForMe={closedForMe}
      onSend={onSend}
      onTyping={onTyping}
      canned={CANNED}
      onCanned={onCanned}
      colleagues={colleagues}
      fileLimits={fileLimits}
    />
  );
}

describe('Chat input', () => {
  it('when Enter is pressed, then the text is sent and cleared; Shift+Enter adds a line', async () => {
    const onSend = jest.fn(async () => null);
    renderWeb(<Input onSend={onSend} />);
    const user = userEvent.setup();
    const box = screen.getByRole('textbox', { name: 'Message' });
    await user.type(box, 'First line{Shift>}{Enter}{/Shift}second');
    expect(onSend).not.toHaveBeenCalled();
    await user.keyboard('{Enter}');
    expect(onSend).toHaveBeenCalledWith({ content: 'First line\nsecond', isInternal: false, files: [] });
    expect(box).toHaveValue('');
  });

  it('when there is no text and no file, then nothing can be sent', async () => {
    const onSend = jest.fn(async () => null);
    renderWeb(<Input onSend={onSend} />);
    const user = userEvent.setup();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), '   {Enter}');
    expect(onSend).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Send message' })).toBeDisabled();
  });

  it('when the text passes 1500 characters, then the n/2000 counter appears', () => {
    renderWeb(<Input />);
    const box = screen.getByRole('textbox', { name: 'Message' });
    fireEvent.change(box, { target: { value: 'a'.repeat(1500) } });
    expect(screen.queryByText('1500/2000')).not.toBeInTheDocument();
    fireEvent.change(box, { target: { value: 'a'.repeat(1501) } });
    expect(screen.getByText('1501/2000')).toBeInTheDocument();
    expect(box).toHaveAttribute('maxLength', '2000');
  });

  it('when files are chosen, then they are listed in KB, removable, and sent with the message', async () => {
    const onSend = jest.fn(async () => null);
    renderWeb(<Input onSend={onSend} />);
    const user = userEvent.setup();
    const picker = screen.getByTestId('file-input');
    expect(picker).toHaveAttribute('accept', 'image/*,.pdf,.doc,.docx,.txt,.csv');
    const report = new File(['x'.repeat(2048)], 'report.pdf', { type: 'application/pdf' });
    const photo = new File(['x'.repeat(512)], 'photo.png', { type: 'image/png' });
    await user.upload(picker, [report, photo]);
    expect(screen.getByText('report.pdf')).toBeInTheDocument();
    expect(screen.getByText('(2.0 KB)')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Remove photo.png' }));
    expect(screen.queryByText('photo.png')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Send message' }));
    expect(onSend).toHaveBeenCalledWith({ content: '', isInternal: false, files: [report] });
  });

  it("when a chosen file is over the desk's size or past its count, then it is refused at once in the server's words and the rest are kept", async () => {
    const onSend = jest.fn(async () => null);
    renderWeb(<Input onSend={onSend} fileLimits={{ maxFileSize: 1024 * 1024, maxFiles: 2 }} />);
    const user = userEvent.setup();
    const picker = screen.getByTestId('file-input');
    const big = new File(['x'.repeat(1024 * 1024 + 1)], 'big.pdf', { type: 'application/pdf' });
    const [a, b, c] = ['a.pdf', 'b.pdf', 'c.pdf'].map((name) => new File(['x'], name, { type: 'application/pdf' }));
    await user.upload(picker, [a!, big]);
    expect(screen.getByRole('alert')).toHaveTextContent('big.pdf: File too large: each file can be at most 1 MB');
    expect(screen.queryByText('big.pdf')).not.toBeInTheDocument();
    await user.upload(picker, [b!, c!]);
    expect(screen.getByRole('alert')).toHaveTextContent('c.pdf: Too many files: at most 2 per message');
    expect(screen.queryByText('c.pdf')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Send message' }));
    expect(onSend).toHaveBeenCalledWith({ content: '', isInternal: false, files: [a, b] });
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('when staff write, then an internal-note toggle marks the message; customers have no toggle', async () => {
    const onSend = jest.fn(async () => null);
    const { unmount } = renderWeb(<Input staff onSend={onSend} />);
    const user = userEvent.setup();
    await user.click(screen.getByLabelText('Internal note (only visible to staff)'));
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'note{Enter}');
    expect(onSend).toHaveBeenCalledWith({ content: 'note', isInternal: true, files: [] });
    unmount();
    renderWeb(<Input />);
    expect(screen.queryByLabelText('Internal note (only visible to staff)')).not.toBeInTheDocument();
  });

  it('when sending fails, then the text comes back and the reason shows', async () => {
    renderWeb(<Input onSend={jest.fn(async () => 'Ticket is closed')} />);
    const user = userEvent.setup();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'hello{Enter}');
    expect(await screen.findByRole('alert')).toHaveTextContent('Ticket is closed');
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveValue('hello');
  });

  it('when a message is on its way, then the box is already empty and a second Enter sends nothing', async () => {
    let answer: (failure: string | null) => void = () => undefined;
    const onSend = jest.fn(() => new Promise<string | null>((resolve) => (answer = resolve)));
    renderWeb(<Input onSend={onSend} />);
    const user = userEvent.setup();
    const box = screen.getByRole('textbox', { name: 'Message' });
    await user.type(box, 'hello{Enter}');
    expect(box).toHaveValue('');
    await user.keyboard('{Enter}');
    await user.click(screen.getByRole('button', { name: 'Send message' }));
    expect(onSend).toHaveBeenCalledTimes(1);
    await act(async () => answer(null));
    expect(box).toHaveValue('');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('when sending fails after more was typed, then the failed text comes back ahead of it with its files', async () => {
    let answer: (failure: string | null) => void = () => undefined;
    const onSend = jest.fn(() => new Promise<string | null>((resolve) => (answer = resolve)));
    renderWeb(<Input onSend={onSend} />);
    const user = userEvent.setup();
    const report = new File(['x'], 'report.pdf', { type: 'application/pdf' });
    await user.upload(screen.getByTestId('file-input'), [report]);
    const box = screen.getByRole('textbox', { name: 'Message' });
    await user.type(box, 'first{Enter}');
    expect(screen.queryByText('report.pdf')).not.toBeInTheDocument();
    await user.type(box, 'second');
    await act(async () => answer('Failed to send message'));
    expect(screen.getByRole('alert')).toHaveTextContent('Failed to send message');
    expect(box).toHaveValue('first\nsecond');
    expect(screen.getByText('report.pdf')).toBeInTheDocument();
  });

  it('when staff type #shortcode, then matching canned messages are offered and Tab or a click inserts one', async () => {
    const onCanned = jest.fn();
    renderWeb(<Input staff onCanned={onCanned} />);
    const user = userEvent.setup();
    const box = screen.getByRole('textbox', { name: 'Message' });
    await user.type(box, 'Good news: #re');
    expect(screen.getAllByRole('button', { name: /^#/ }).map((b) => b.textContent)).toEqual(['#refund Refund issued']);
    await user.keyboard('{Tab}');
    expect(box).toHaveValue('Good news: Your refund is on its way.');
    expect(onCanned).toHaveBeenCalledWith(CANNED[0]);
    await user.type(box, ' #');
    await user.click(screen.getByRole('button', { name: '#hello Greeting' }));
    expect(box).toHaveValue('Good news: Your refund is on its way. Hi there!');
  });

  it('when suggestions show and staff press Enter, then the first is chosen and nothing is sent; Enter then sends the text', async () => {
    const onSend = jest.fn(async () => null);
    renderWeb(<Input staff onSend={onSend} />);
    const user = userEvent.setup();
    const box = screen.getByRole('textbox', { name: 'Message' });
    await user.type(box, '#hel{Enter}');
    expect(onSend).not.toHaveBeenCalled();
    expect(box).toHaveValue('Hi there!');
    await user.keyboard('{Enter}');
    expect(onSend).toHaveBeenCalledWith(expect.objectContaining({ content: 'Hi there!' }));
  });

  it('when staff type the #shortcode of a macro, then it is offered beside canned replies and choosing it takes the #code out and opens it', async () => {
    const macro = {
      _id: 'm1',
      name: 'Refund issued',
      shortcode: 'refund-done',
      reply: 'Hi',
      actions: [],
      shared: true,
      version: 1,
      owner: { _id: 'a1', firstName: 'Ana', lastName: 'Lopez' },
      createdAt: '2026-11-21T10:00:00.000Z',
      updatedAt: '2026-11-21T10:00:00.000Z',
    };
    const onMacro = jest.fn();
    function WithMacros() {
      const [text, setText] = useState('');
      return (
        <ChatInput
          text={text}
          onText={setText}
          staff
          closedForMe={false}
          onSend={jest.fn()}
          onTyping={jest.fn()}
          canned={CANNED}
          macros={[macro]}
          onMacro={onMacro}
        />
      );
    }
    renderWeb(<WithMacros />);
    const user = userEvent.setup();
    const box = screen.getByRole('textbox', { name: 'Message' });
    await user.type(box, 'Done #refund');
    expect(screen.getAllByRole('button', { name: /^#/ }).map((b) => b.textContent)).toEqual(['#refund Refund issued', '#refund-done Macro: Refund issued']);
    await user.click(screen.getByRole('button', { name: '#refund-done Macro: Refund issued' }));
    expect(onMacro).toHaveBeenCalledWith(macro);
    expect(box).toHaveValue('Done');
  });

  it('when staff type @ in an internal note, then colleagues are offered by name and Tab or a click writes their username; a reply offers none', async () => {
    const colleagues = [
      { _id: 'u1', username: 'bob_k', firstName: 'Bob', lastName: 'King' },
      { _id: 'u2', username: 'ana_t', firstName: 'Ana', lastName: 'Tester' },
    ];
    renderWeb(<Input staff colleagues={colleagues} />);
    const user = userEvent.setup();
    const box = screen.getByRole('textbox', { name: 'Message' });
    await user.type(box, 'Ask @bo');
    expect(screen.queryByRole('button', { name: /^@/ })).not.toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: /Internal note/ }));
    expect(screen.getAllByRole('button', { name: /^@/ }).map((b) => b.textContent)).toEqual(['@bob_k Bob King']);
    await user.click(box);
    await user.keyboard('{Tab}');
    expect(box).toHaveValue('Ask @bob_k ');
    await user.type(box, 'and @tes');
    await user.click(screen.getByRole('button', { name: '@ana_t Ana Tester' }));
    expect(box).toHaveValue('Ask @bob_k and @ana_t ');
  });

  it('when a customer types #, then nothing is offered', async () => {
    renderWeb(<Input />);
    await userEvent.setup().type(screen.getByRole('textbox', { name: 'Message' }), '#re');
    expect(screen.queryByRole('button', { name: /#refund/ })).not.toBeInTheDocument();
  });

  it("when a customer's ticket is closed, then the input is disabled with 'This ticket is closed'", () => {
    renderWeb(<Input closedForMe />);
    expect(screen.getByPlaceholderText('This ticket is closed')).toBeDisabled();
  });
});

describe('Message', () => {
  const noop = jest.fn(async () => null);

  it("when a message was edited, then it shows '(edited)'", () => {
    renderWeb(
      <ul>
        <MessageItem
          message={message({ editedAt: '2026-11-20T10:06:00.000Z' })}
          myId={AGENT._id}
          editing={false}
          onEdit={jest.fn()}
          onSave={noop}
          onCancel={jest.fn()}
        />
      </ul>,
    );
    expect(screen.getByText('(edited)')).toBeInTheDocument();
  });

  it('when it is my text message, then I can edit it; not others, nor files', () => {
    const { unmount } = renderWeb(
      <ul>
        <MessageItem message={message({})} myId={CUSTOMER._id} editing={false} onEdit={jest.fn()} onSave={noop} onCancel={jest.fn()} />
      </ul>,
    );
    expect(screen.getByRole('button', { name: 'Edit message' })).toBeInTheDocument();
    unmount();
    renderWeb(
      <ul>
        <MessageItem message={message({})} myId={AGENT._id} editing={false} onEdit={jest.fn()} onSave={noop} onCancel={jest.fn()} />
      </ul>,
    );
    expect(screen.queryByRole('button', { name: 'Edit message' })).not.toBeInTheDocument();
  });

  it('when a message is a copy a merge or a split brought, then staff may move it on, and its sender may not edit it (docs/tickets.md)', () => {
    const copy = message({ _id: 'ticket-2~message-1', mergedFrom: { _id: 'ticket-3', ticketId: 1003 } });
    const onMove = jest.fn();
    const { unmount } = renderWeb(
      <ul>
        <MessageItem message={copy} myId={AGENT._id} staff onMove={onMove} editing={false} onEdit={jest.fn()} onSave={noop} onCancel={jest.fn()} />
      </ul>,
    );
    expect(screen.queryByRole('button', { name: 'Move to a new ticket' })).not.toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Message actions' }));
    fireEvent.click(screen.getByRole('menuitem', { name: 'Move to a new ticket' }));
    expect(onMove).toHaveBeenCalled();
    unmount();
    renderWeb(
      <ul>
        <MessageItem message={copy} myId={CUSTOMER._id} editing={false} onEdit={jest.fn()} onSave={noop} onCancel={jest.fn()} />
      </ul>,
    );
    expect(screen.getByText('Merged from #1003')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Edit message' })).not.toBeInTheDocument();
  });

  it('when staff open the message actions with the keyboard, then Move is focused, and Escape closes the menu back onto its button', async () => {
    const onMove = jest.fn();
    renderWeb(
      <ul>
        <MessageItem message={message({})} myId={AGENT._id} staff onMove={onMove} editing={false} onEdit={jest.fn()} onSave={noop} onCancel={jest.fn()} />
      </ul>,
    );
    const user = userEvent.setup();
    const button = screen.getByRole('button', { name: 'Message actions' });
    expect(button).toHaveAttribute('aria-haspopup', 'menu');
    button.focus();
    await user.keyboard('{Enter}');
    expect(button).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('menuitem', { name: 'Move to a new ticket' })).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
    expect(button).toHaveFocus();
    await user.keyboard('{Enter}');
    await user.keyboard('{Enter}');
    expect(onMove).toHaveBeenCalledTimes(1);
  });

  it('when editing, then Enter saves, Shift+Enter adds a line, Escape cancels, and the hint names 5 minutes', async () => {
    const onSave = jest.fn(async () => null);
    const onCancel = jest.fn();
    renderWeb(
      <ul>
        <MessageItem message={message({ content: 'Helo' })} myId={CUSTOMER._id} editing onEdit={jest.fn()} onSave={onSave} onCancel={onCancel} />
      </ul>,
    );
    expect(screen.getByText(/5 minutes/)).toBeInTheDocument();
    const user = userEvent.setup();
    const editor = screen.getByRole('textbox', { name: 'Edit message' });
    await user.clear(editor);
    await user.type(editor, 'Hello{Shift>}{Enter}{/Shift}again');
    expect(onSave).not.toHaveBeenCalled();
    await user.keyboard('{Enter}');
    expect(onSave).toHaveBeenCalledWith('Hello\nagain');
    await user.keyboard('{Escape}');
    expect(onCancel).toHaveBeenCalled();
  });

  it('when a message is an internal note or came from Telegram, then it says so', () => {
    renderWeb(
      <ul>
        <MessageItem
          message={message({ isInternal: true, platform: 'telegram' })}
          myId={AGENT._id}
          editing={false}
          onEdit={jest.fn()}
          onSave={noop}
          onCancel={jest.fn()}
        />
      </ul>,
    );
    expect(screen.getByText('Internal note')).toBeInTheDocument();
    expect(screen.getByText('Telegram')).toBeInTheDocument();
  });
});

describe('Outbox in the conversation', () => {
  const queued = (key: string, content: string, extra: Partial<Queued> = {}): Queued => ({
    key,
    ticketId: 'ticket-1',
    ticketKey: '1001',
    content,
    isInternal: false,
    writtenAt: '2026-11-20T10:00:00.000Z',
    refused: null,
    sending: false,
    ...extra,
  });

  it('when messages wait for the connection, then they follow the conversation in order with Cancel; a refused one shows why with Retry and Discard', async () => {
    const onCancelQueued = jest.fn();
    const onRetryQueued = jest.fn();
    const waiting = queued('k1', 'Written offline');
    const refused = queued('k2', 'Refused one', { refused: 'Ticket is closed' });
    renderWeb(
      <MessageList
        messages={[message({ content: 'Sent before' })]}
        myId={AGENT._id}
        staff
        onEdit={noopEdit}
        typing={null}
        queued={[waiting, refused, queued('k3', 'On its way', { sending: true })]}
        onCancelQueued={onCancelQueued}
        onRetryQueued={onRetryQueued}
      />,
    );
    const items = screen.getAllByRole('listitem').map((item) => item.textContent);
    expect(items.slice(-4)).toEqual([
      expect.stringContaining('Sent before'),
      expect.stringContaining('Waiting for the connection…'),
      expect.stringContaining('Not sent'),
      expect.stringContaining('Sending…'),
    ]);
    expect(screen.getByText('Ticket is closed')).toBeInTheDocument();
    const user = userEvent.setup();
    const cancels = screen.getAllByRole('button', { name: 'Cancel' });
    expect(cancels[1]).toBeDisabled();
    await user.click(cancels[0]!);
    expect(onCancelQueued).toHaveBeenCalledWith(waiting);
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(onRetryQueued).toHaveBeenCalledWith(refused);
    await user.click(screen.getByRole('button', { name: 'Discard' }));
    expect(onCancelQueued).toHaveBeenLastCalledWith(refused);
  });
});

const noopEdit = async () => null;
