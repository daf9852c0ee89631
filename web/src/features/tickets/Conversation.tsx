import { type ChangeEvent, Fragment, type KeyboardEvent, type RefObject, useEffect, useRef, useState } from 'react';
import { AuthFile } from '../../components/AuthFile';
import { Icon } from '../../components/icons';
import { Badge } from '../../components/ui';
import { formatDateTime, formatKb, formatTime, fullName } from '../../lib/format';
import { useLiveConnected } from '../../lib/live';
import type { Queued } from '../../lib/outbox';
import { editMessageSchema } from '#contract/tickets';
import { MESSAGE_MAX, fileTooLargeText, tooManyFilesText } from '#contract/tickets';
import { isBlankText } from '#contract/text';
import type { CannedMessage, Message, MessageVersion } from '../../entities/ticket/types';
import type { Macro } from '#contract/responses';
import type { StaffMemberView } from '#contract/notifications';

const SHORTCODE_AT_END = /(^|\s)#([a-z0-9_-]*)$/;

/** Canned messages (or macros) whose shortcode starts with the `#code` being typed at the end of the text. */
function shortcodeSuggestions<Item extends { shortcode: string }>(text: string, canned: Item[]): Item[] {
  const typed = SHORTCODE_AT_END.exec(text);
  if (!typed) return [];
  return canned.filter((candidate) => candidate.shortcode.startsWith(typed[2]!)).slice(0, 5);
}

/** The text with the trailing `#code` replaced by the canned message's content. */
const expandShortcode = (text: string, canned: CannedMessage) =>
  text.replace(SHORTCODE_AT_END, (_match, space: string) => `${space}${canned.content}`).slice(0, MESSAGE_MAX);

const MENTION_AT_END = /(^|\s)@([A-Za-z0-9_]{0,30})$/;

/** Colleagues whose username or name starts with the `@name` being typed at the end of an internal note. */
function mentionSuggestions(text: string, staff: StaffMemberView[]): StaffMemberView[] {
  const typed = MENTION_AT_END.exec(text);
  if (!typed) return [];
  const start = typed[2]!.toLowerCase();
  return staff.filter((member) => [member.username, member.firstName, member.lastName].some((name) => name.toLowerCase().startsWith(start))).slice(0, 5);
}

/** The note with the trailing `@name` replaced by the colleague's username: what the server reads as a mention. */
const insertMention = (text: string, member: StaffMemberView) =>
  text.replace(MENTION_AT_END, (_match, space: string) => `${space}@${member.username} `).slice(0, MESSAGE_MAX);

/** The counter appears above 1500 characters (docs/product.md section 5). */
const COUNTER_FROM = 1500;
const ACCEPTED_FILES = 'image/*,.pdf,.doc,.docx,.txt,.csv';
const EDIT_HINT = 'Enter to save · Shift+Enter for a new line · Esc to cancel. Messages can be edited for 5 minutes after sending.';

/** Only one's own text messages can be edited (docs/product.md section 4). */
/** One's own text messages; never a copy a merge or a split brought (record id `<ticket>~<message>`), which keeps its words (docs/tickets.md). */
const canEdit = (message: Message, myId: string) => message.sender._id === myId && message.messageType === 'text' && !message._id.includes('~');

function MessageEditor({ message, onSave, onCancel }: { message: Message; onSave: (content: string) => Promise<string | null>; onCancel: () => void }) {
  const [text, setText] = useState(message.content);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const save = async () => {
    const checked = editMessageSchema.safeParse({ content: text });
    if (!checked.success) return setError(checked.error.issues[0]!.message);
    if (text.trim() === message.content.trim()) return onCancel();
    setSaving(true);
    const failure = await onSave(text);
    setSaving(false);
    if (failure) setError(failure);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      onCancel();
    } else if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      void save();
    }
  };
  return (
    <div className="message-editor">
      <textarea
        aria-label="Edit message"
        autoFocus
        value={text}
        maxLength={MESSAGE_MAX}
        disabled={saving}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        rows={Math.min(6, text.split('\n').length + 1)}
      />
      <p className="hint">{EDIT_HINT}</p>
      {error && <p className="field-error">{error}</p>}
    </div>
  );
}

/** Every version of an edited message, oldest first (staff, from the ticket's history). */
function MessageVersions({ versions }: { versions: MessageVersion[] }) {
  return (
    <ol className="message-versions" aria-label="Earlier versions">
      {versions.slice(0, -1).map((version, index) => (
        <li key={version.at + index}>
          <time dateTime={version.at}>{formatDateTime(version.at)}</time>
          <p className="message-text">{version.content}</p>
        </li>
      ))}
    </ol>
  );
}

export function MessageItem({
  message,
  myId,
  staff = false,
  editing,
  onEdit,
  onSave,
  onCancel,
  onMove,
}: {
  message: Message & { versions?: MessageVersion[] };
  myId: string;
  /** Staff: "Move to a new ticket" from this message, a copy a merge or a split brought included. */
  onMove?: () => void;
  /** Whose side the reader is on: staff see the desk's messages on the right, a customer their own. */
  staff?: boolean;
  editing: boolean;
  onEdit: () => void;
  onSave: (content: string) => Promise<string | null>;
  onCancel: () => void;
}) {
  const [showVersions, setShowVersions] = useState(false);
  const mine = message.sender._id === myId;
  const ours = staff ? message.sender.role !== 'customer' : mine;
  const earlier = (message.versions?.length ?? 1) - 1;
  if (message.messageType === 'system') {
    return (
      <li className="message message-system">
        <span>{message.content}</span>
        <time dateTime={message.createdAt} title={formatDateTime(message.createdAt)}>
          {formatTime(message.createdAt)}
        </time>
      </li>
    );
  }
  return (
    <li
      className={`message ${ours ? 'message-ours' : 'message-theirs'} ${mine ? 'message-mine' : ''} ${message.isInternal ? 'message-internal' : ''}`}
      data-message-id={message._id}
    >
      <div className="message-meta">
        <strong>{mine ? 'You' : fullName(message.sender)}</strong>
        {message.sender.role !== 'customer' && <Badge variant="secondary">{message.sender.role}</Badge>}
        {message.platform === 'telegram' && <Badge variant="default">Telegram</Badge>}
        {message.isInternal && (
          <Badge variant="warning">
            <Icon name="lock" size={12} /> Internal note
          </Badge>
        )}
        {message.mergedFrom && <Badge variant="default">Merged from #{message.mergedFrom.ticketId}</Badge>}
        <time dateTime={message.createdAt} title={formatDateTime(message.createdAt)}>
          {formatTime(message.createdAt)}
        </time>
        {message.editedAt &&
          (earlier > 0 ? (
            <button type="button" className="link-button edited" aria-expanded={showVersions} onClick={() => setShowVersions((shown) => !shown)}>
              (edited: {showVersions ? 'hide' : 'show'} {earlier} earlier {earlier === 1 ? 'version' : 'versions'})
            </button>
          ) : (
            <span className="edited">(edited)</span>
          ))}
        {canEdit(message, myId) && !editing && (
          <button type="button" className="icon-button message-edit" onClick={onEdit} aria-label="Edit message" title="Edit message">
            <Icon name="edit" size={14} />
          </button>
        )}
        {onMove && <MessageMenu onMove={onMove} />}
      </div>
      {showVersions && message.versions && <MessageVersions versions={message.versions} />}
      {editing ? <MessageEditor message={message} onSave={onSave} onCancel={onCancel} /> : message.content && <p className="message-text">{message.content}</p>}
      {message.attachments.length > 0 && (
        <div className="message-attachments">
          {message.attachments.map((file) => (
            <AuthFile key={file.url} file={file} />
          ))}
        </div>
      )}
    </li>
  );
}

/**
 * A message's quieter actions (staff): a "⋯" button, shown on hover or focus of the bubble, opens a
 * menu. Arrow keys move in it, Escape closes it and gives the focus back to the button.
 */
function MessageMenu({ onMove }: { onMove: () => void }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return undefined;
    menu.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const close = (event: MouseEvent) => {
      if (!menu.current?.contains(event.target as Node) && !button.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [open]);
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (event.key === 'Escape' || event.key === 'Tab') {
      if (event.key === 'Escape') event.preventDefault();
      setOpen(false);
      button.current?.focus();
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      items[(at + (event.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus();
    }
  };
  return (
    <span className={`message-menu ${open ? 'message-menu-open' : ''}`}>
      <button
        ref={button}
        type="button"
        className="icon-button message-menu-button"
        aria-label="Message actions"
        title="Message actions"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((shown) => !shown)}
      >
        ⋯
      </button>
      {open && (
        <div ref={menu} role="menu" aria-label="Message actions" className="message-menu-list" onKeyDown={onKeyDown}>
          <button
            type="button"
            role="menuitem"
            onClick={() => {
              setOpen(false);
              onMove();
            }}
          >
            Move to a new ticket
          </button>
        </div>
      )}
    </span>
  );
}

/** A message of the outbox (docs/web.md, "Outbox"): waiting for the connection, on its way, or refused. */
function QueuedMessage({ message, onCancel, onRetry }: { message: Queued; onCancel: () => void; onRetry: () => void }) {
  return (
    <li className={`message message-ours message-mine message-queued ${message.isInternal ? 'message-internal' : ''}`} data-queued-key={message.key}>
      <div className="message-meta">
        <strong>You</strong>
        {message.isInternal && (
          <Badge variant="warning">
            <Icon name="lock" size={12} /> Internal note
          </Badge>
        )}
        <span className="queued-state">{message.refused ? 'Not sent' : message.sending ? 'Sending…' : 'Waiting for the connection…'}</span>
      </div>
      <p className="message-text">{message.content}</p>
      {message.refused && <p className="field-error">{message.refused}</p>}
      <div className="queued-actions">
        {message.refused ? (
          <>
            <button type="button" className="button button-secondary button-small" onClick={onRetry}>
              Retry
            </button>
            <button type="button" className="button button-ghost button-small" onClick={onCancel}>
              Discard
            </button>
          </>
        ) : (
          <button type="button" className="button button-ghost button-small" onClick={onCancel} disabled={message.sending}>
            Cancel
          </button>
        )}
      </div>
    </li>
  );
}

/** The day a separator names: 'Today', 'Yesterday', or the full date. */
function dayLabel(iso: string, now = new Date()): string {
  const day = new Date(iso);
  const startOf = (date: Date) => new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
  const days = Math.round((startOf(now) - startOf(day)) / 86_400_000);
  if (days === 0) return 'Today';
  if (days === 1) return 'Yesterday';
  return day.toLocaleDateString([], { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' });
}
const dayKey = (iso: string) => new Date(iso).toDateString();

/**
 * Opens at the bottom and stays there while the reader is there: when the list gets shorter (the
 * "Reconnecting…" banner takes a line of the window, the composer grows with an error), the browser
 * keeps the top where it was and the last message would slide out of view; pinned, the list scrolls
 * with it. A reader who scrolled up is left where they are.
 */
function useKeptAtBottom(list: RefObject<HTMLOListElement | null>): void {
  useEffect(() => {
    const element = list.current;
    if (!element) return undefined;
    element.scrollTop = element.scrollHeight;
    let pinned = true;
    const onScroll = () => (pinned = element.scrollHeight - element.scrollTop - element.clientHeight < 8);
    element.addEventListener('scroll', onScroll);
    // jsdom has no ResizeObserver (and no layout to observe).
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => pinned && (element.scrollTop = element.scrollHeight));
    observer?.observe(element);
    return () => {
      element.removeEventListener('scroll', onScroll);
      observer?.disconnect();
    };
  }, [list]);
}

export function MessageList({
  messages,
  myId,
  staff = false,
  onEdit,
  onMove,
  typing,
  queued = [],
  onCancelQueued,
  onRetryQueued,
}: {
  messages: Message[];
  myId: string;
  staff?: boolean;
  onEdit: (message: Message, content: string) => Promise<string | null>;
  onMove?: (message: Message) => void;
  typing: string | null;
  /** My messages still in the outbox, after the conversation. */
  queued?: readonly Queued[];
  onCancelQueued?: (message: Queued) => void;
  onRetryQueued?: (message: Queued) => void;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  const list = useRef<HTMLOListElement>(null);
  const last = messages.at(-1);
  useEffect(() => {
    const element = list.current;
    if (!element) return;
    const nearBottom = element.scrollHeight - element.scrollTop - element.clientHeight < 160;
    if (nearBottom || last?.sender._id === myId) element.scrollTop = element.scrollHeight;
  }, [last?._id, last?.sender._id, myId, typing, queued.length]);
  useKeptAtBottom(list);
  return (
    // Focusable so the keyboard can scroll it even when no message holds a control.
    <ol className="message-list" ref={list} aria-label="Messages" aria-live="polite" tabIndex={0}>
      {messages.length === 0 && <li className="message-empty muted">No messages yet. Start the conversation below.</li>}
      {messages.map((message, index) => (
        <Fragment key={message._id}>
          {(index === 0 || dayKey(messages[index - 1]!.createdAt) !== dayKey(message.createdAt)) && (
            <li className="day-separator">
              <time dateTime={message.createdAt.slice(0, 10)}>{dayLabel(message.createdAt)}</time>
            </li>
          )}
          <MessageItem
            message={message}
            myId={myId}
            staff={staff}
            editing={editing === message._id}
            {...(onMove ? { onMove: () => onMove(message) } : {})}
            onEdit={() => setEditing(message._id)}
            onCancel={() => setEditing(null)}
            onSave={async (content) => {
              const failure = await onEdit(message, content);
              if (!failure) setEditing(null);
              return failure;
            }}
          />
        </Fragment>
      ))}
      {queued.map((message) => (
        <QueuedMessage key={message.key} message={message} onCancel={() => onCancelQueued?.(message)} onRetry={() => onRetryQueued?.(message)} />
      ))}
    </ol>
  );
}

export interface ChatSend {
  content: string;
  isInternal: boolean;
  files: File[];
}

/**
 * The chat input of docs/product.md sections 2 and 5: Enter sends, a counter above 1500 characters, files
 * listed with sizes in KB and removable, the internal-note toggle for staff, nothing to send without
 * text or a file, disabled for customers on a closed ticket.
 */
export function ChatInput({
  text,
  onText,
  staff,
  closedForMe,
  onSend,
  onTyping,
  canned = [],
  onCanned,
  macros = [],
  onMacro,
  internal: controlledInternal,
  onInternal,
  colleagues = [],
  fileLimits,
}: {
  /**
   * The desk's limits on a message's files (public settings): a file over the size, or one past the count, is refused
   * as it is chosen, in the server's words, rather than after its upload. Unknown (settings not loaded): the server's
   * answer says it.
   */
  fileLimits?: { maxFileSize: number; maxFiles: number };
  /** Staff an internal note may mention: suggested after `@` while writing a note. */
  colleagues?: StaffMemberView[];
  /** Whether a note is being written, when the page controls it (the `n` shortcut); else the box keeps it. */
  internal?: boolean;
  onInternal?: (internal: boolean) => void;
  canned?: CannedMessage[];
  onCanned?: (canned: CannedMessage) => void;
  /** Macros answer `#shortcode` too: choosing one takes the `#code` out and opens its preview (docs/macros.md). */
  macros?: Macro[];
  onMacro?: (macro: Macro) => void;
  text: string;
  onText: (text: string) => void;
  staff: boolean;
  closedForMe: boolean;
  onSend: (send: ChatSend) => Promise<string | null>;
  onTyping: (typing: boolean, isInternal: boolean) => void;
}) {
  const [files, setFiles] = useState<File[]>([]);
  const [ownInternal, setOwnInternal] = useState(false);
  const internal = controlledInternal ?? ownInternal;
  const setInternal = onInternal ?? setOwnInternal;
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const picker = useRef<HTMLInputElement>(null);
  // A ref, not state: a second Enter can arrive before React re-renders with `sending` set.
  const inFlight = useRef(false);
  const latestText = useRef(text);
  latestText.current = text;
  const canSend = !sending && !closedForMe && (!isBlankText(text) || files.length > 0) && text.length <= MESSAGE_MAX;

  /**
   * The box empties the moment a message leaves, so a message is never both posted (the live channel
   * may show it before the POST answers) and still waiting to be sent again. A failure puts the text
   * and files back, ahead of anything typed since, with the reason.
   */
  const send = async () => {
    if (!canSend || inFlight.current) return;
    inFlight.current = true;
    const sent = { content: text, isInternal: staff && internal, files };
    setSending(true);
    setError(null);
    onTyping(false, internal);
    onText('');
    setFiles([]);
    const failure = await onSend(sent);
    inFlight.current = false;
    setSending(false);
    if (!failure) return;
    setError(failure);
    const typedSince = latestText.current;
    onText(typedSince ? `${sent.content}\n${typedSince}` : sent.content);
    setFiles((current) => [...sent.files, ...current]);
  };
  const suggestions = staff ? shortcodeSuggestions(text, canned) : [];
  const macroSuggestions = staff ? shortcodeSuggestions(text, macros) : [];
  const mentions = staff && internal ? mentionSuggestions(text, colleagues) : [];
  const mention = (member: StaffMemberView) => onText(insertMention(text, member));
  const chooseMacro = (macro: Macro) => {
    onText(text.replace(SHORTCODE_AT_END, '$1').trimEnd());
    onMacro?.(macro);
  };
  const choose = (chosen: CannedMessage) => {
    onText(expandShortcode(text, chosen));
    onCanned?.(chosen);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    const enter = event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing;
    // While suggestions show, Enter chooses one as Tab does: a half-typed `#hel` never goes to the customer as text.
    const picking = enter || (event.key === 'Tab' && !event.shiftKey);
    if (picking && suggestions[0]) {
      event.preventDefault();
      choose(suggestions[0]);
    } else if (picking && mentions[0]) {
      event.preventDefault();
      mention(mentions[0]);
    } else if (enter && macroSuggestions[0]) {
      event.preventDefault();
      chooseMacro(macroSuggestions[0]);
    } else if (enter) {
      event.preventDefault();
      void send();
    } else if (event.key === 'Escape') {
      // Back to the page's shortcuts; what was typed stays.
      event.currentTarget.blur();
    }
  };
  const pick = (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = [...(event.target.files ?? [])];
    event.target.value = '';
    if (!fileLimits) return setFiles((current) => [...current, ...chosen]);
    const { maxFileSize, maxFiles } = fileLimits;
    const fitting = chosen.filter((file) => file.size <= maxFileSize);
    const kept = fitting.slice(0, Math.max(0, maxFiles - files.length));
    const names = (refused: File[]) => refused.map((file) => file.name).join(', ');
    const tooLarge = chosen.filter((file) => file.size > maxFileSize);
    const tooMany = fitting.slice(kept.length);
    const refusals = [
      ...(tooLarge.length > 0 ? [`${names(tooLarge)}: ${fileTooLargeText(maxFileSize)}`] : []),
      ...(tooMany.length > 0 ? [`${names(tooMany)}: ${tooManyFilesText(maxFiles)}`] : []),
    ];
    setError(refusals.length > 0 ? refusals.join('. ') : null);
    setFiles((current) => [...current, ...kept]);
  };

  if (closedForMe) {
    return (
      <div className="chat-input chat-closed">
        <textarea aria-label="Message" disabled placeholder="This ticket is closed" />
      </div>
    );
  }
  return (
    <div className={`chat-input ${internal ? 'chat-internal' : ''}`}>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {files.length > 0 && (
        <ul className="chosen-files" aria-label="Files to send">
          {files.map((file, index) => (
            <li key={`${file.name}-${index}`}>
              <Icon name="file" size={14} /> {file.name} <span className="muted">({formatKb(file.size)})</span>
              <button
                type="button"
                className="icon-button"
                aria-label={`Remove ${file.name}`}
                onClick={() => setFiles((current) => current.filter((_file, at) => at !== index))}
              >
                <Icon name="close" size={14} />
              </button>
            </li>
          ))}
        </ul>
      )}
      {suggestions.length > 0 && (
        <ul className="shortcode-suggestions" aria-label="Canned messages (Tab inserts the first)">
          {suggestions.map((suggestion) => (
            <li key={suggestion._id}>
              <button type="button" onClick={() => choose(suggestion)} title={suggestion.content.slice(0, 100)}>
                <strong>#{suggestion.shortcode}</strong> {suggestion.title}
              </button>
            </li>
          ))}
        </ul>
      )}
      {mentions.length > 0 && (
        <ul className="shortcode-suggestions" aria-label="Mention a colleague (Tab inserts the first)">
          {mentions.map((member) => (
            <li key={member._id}>
              <button type="button" onClick={() => mention(member)}>
                <strong>@{member.username}</strong> {member.firstName} {member.lastName}
              </button>
            </li>
          ))}
        </ul>
      )}
      {macroSuggestions.length > 0 && (
        <ul className="shortcode-suggestions" aria-label="Macros for this shortcode">
          {macroSuggestions.map((macro) => (
            <li key={macro._id}>
              <button type="button" onClick={() => chooseMacro(macro)}>
                <strong>#{macro.shortcode}</strong> Macro: {macro.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      {text.length > COUNTER_FROM && (
        <span className={`counter chat-counter ${text.length > MESSAGE_MAX ? 'over' : ''}`}>
          {text.length}/{MESSAGE_MAX}
        </span>
      )}
      <div className="chat-row">
        <textarea
          aria-label="Message"
          placeholder={internal ? 'Write an internal note...' : 'Type your message...'}
          title="Enter to send, Shift+Enter for a new line"
          value={text}
          maxLength={MESSAGE_MAX}
          rows={2}
          onChange={(e) => {
            onText(e.target.value);
            onTyping(e.target.value.length > 0, internal);
          }}
          onKeyDown={onKeyDown}
        />
        <input ref={picker} type="file" multiple accept={ACCEPTED_FILES} hidden onChange={pick} data-testid="file-input" />
        <button type="button" className="icon-button" aria-label="Attach files" title="Attach files" onClick={() => picker.current?.click()}>
          <Icon name="paperclip" />
        </button>
        <button type="button" className="button button-primary" onClick={() => void send()} disabled={!canSend} aria-label="Send message">
          <Icon name="send" /> {sending ? 'Sending...' : 'Send'}
        </button>
      </div>
      {staff && (
        <label className="toggle">
          <input type="checkbox" checked={internal} onChange={(e) => setInternal(e.target.checked)} />
          <span>Internal note (only visible to staff)</span>
        </label>
      )}
    </div>
  );
}

export function ConversationHeader({ count }: { count: number }) {
  const live = useLiveConnected();
  return (
    <header className="card-header">
      <h2>
        Conversation <Badge variant="secondary">{count}</Badge>
      </h2>
      <Badge variant={live ? 'live' : 'secondary'}>
        <span className="live-dot" aria-hidden="true" /> {live ? 'Live' : 'Offline'}
      </Badge>
    </header>
  );
}
