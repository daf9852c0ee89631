import { unlink } from 'node:fs/promises';
import { Telegraf } from 'telegraf';
import type { Update, UserFromGetMe } from 'telegraf/types';
import type { AppDeps } from '../../app/deps';
import { OPEN_TICKET_MESSAGE, openTicket, postMessage } from '../../app/tickets/service';
import { discardFiles, incomingFile, storeFile } from '../../app/tickets/files';
import { maintenanceMessage } from '../../app/maintenance';
import { recordAccessAttempt } from '../../app/whitelist/service';
import { searchIsCurrent, searchTickets } from '../../app/search/service';
import { searchQuery } from '#contract/search';
import { renderBotMessage } from '../../domain/botSettings/botSettings';
import { DomainError } from '#contract/errors';
import type { TelegramChatCommand, TicketDraft } from '../../domain/telegramChat/chat';
import { answerCustomFields, fieldLabel } from '#contract/customFields';
import { createTicketSchema } from '#contract/tickets';
import { type Attachment, OPEN_STATUSES, STATUS_WORDS, fileTooLargeText } from '#contract/tickets';
import type { CommandContext } from '../../platform/commands';
import { loadChat, updateChat } from '../../app/telegram/chat';
import { nameBasedId } from '../../platform/ids';
import { PermanentJobError } from '../../platform/queue/port';
import { FileTooLargeError, type TelegramApi, telegramJobError } from '../../platform/telegram';
import { BOT_COMMANDS, type BotCommandView } from '../../projections/botCommands';
import { CATEGORIES, type CategoryView } from '../../projections/categories';
import { loadBotSettings, loadSystemSettings } from '../../projections/settings';
import { TICKETS, type TicketView } from '../../projections/tickets';
import type { UserView } from '../../projections/users';
import { WHITELIST, type WhitelistEntryView } from '../../projections/whitelist';
import { type TelegramPerson, customerForTelegram, telegramUserActor } from '../../app/telegram/customers';
import { answerSurveyButton, commentFromTelegram } from '../satisfaction/telegram';
import { oneLine } from '../ticketNotices';
import { ticketValues } from './notifications';
import { type InlineButton, type TelegramSendJob, sendJob } from '../../app/jobs/telegram';
import { holderOf } from '../../projections/uniqueKeys';

/** Texts of the conversation that Bot Messages do not cover. */
export const TEXTS = {
  notWhitelisted:
    'Sorry, this support bot is only open to approved users. Your request has been passed to an administrator; you will get a message here once it is approved.',
  privateOnly: 'Please write to me in a private chat.',
  deactivated: 'Your account has been deactivated. Please contact support.',
  noCategories: 'No ticket categories are available yet. Please try again later.',
  chooseCategory: 'Please choose a category for your ticket:',
  useButtons: 'Please choose a category with the buttons below, or send /cancel.',
  askTitle: (category: string) => `Category: ${category}.\nNow send a short title for your ticket (up to 200 characters).`,
  askDescription: 'Thanks. Now describe the problem in detail (up to 2000 characters).',
  optionalHint: 'Send /skip to leave this empty.',
  noOpenTicket: 'You have no open ticket. Use /ticket to open one.',
  reopened: (number: number) => `Your ticket #${number} is open again with your message; an agent will get back to you.`,
  closed: (number: number) => `Your ticket #${number} is closed, so your message was not added to it. Use /ticket to open a new one.`,
  formClosed: 'That form is already closed. Use /ticket to open a ticket.',
  noTickets: 'You have no tickets yet. Use /ticket to open one.',
  searchHow: 'Write the words to look for after the command, for example: /search refund card',
  searchNone: 'Nothing in your tickets matches these words.',
  textOnly: 'I can pass on text, photos and documents only. Please describe it in words.',
  fileInForm: 'Please answer the question above in text; you can send files once your ticket is open.',
  failed: 'Sorry, something went wrong on our side. Please try again in a moment.',
};

const MY_TICKETS_SHOWN = 10;
const SEARCH_HITS_SHOWN = 5;

/** One update being handled: replies get ids from the update, so handling it again sends nothing twice. */
interface Turn {
  botId: number;
  updateId: number;
  chatId: string;
  person: TelegramPerson;
  text: string | null;
  replies: number;
  /** The queue gives up on this update if handling it fails now: tell the user rather than leave them waiting. */
  lastTry: boolean;
}

const sortedFields = (category: CategoryView) => [...category.customFields].sort((a, b) => a.order - b.order);

/**
 * The bot's side of the conversation (docs/product.md section 3), run for every update from the update
 * queue. Telegraf routes the update; every answer goes out through the send queue, so a Bot API
 * failure is retried there and never makes this update run twice.
 */
export class TelegramConversation {
  private readonly bot: Telegraf;

  constructor(
    private readonly deps: AppDeps,
    private readonly api: TelegramApi,
    private readonly token: string,
    readonly botInfo: UserFromGetMe,
  ) {
    this.bot = new Telegraf(token, { telegram: { apiRoot: deps.config.TELEGRAM_API_ROOT } });
    this.bot.botInfo = botInfo;
    // Telegraf's default handler prints the whole update (people's messages) to stderr; the queue
    // logs the failure with its reason instead, and retries it.
    this.bot.catch((error) => {
      throw error;
    });
    this.bot.on('callback_query', async (ctx) => {
      const query = ctx.callbackQuery;
      // Stops the button's spinner; the answer itself comes as a message.
      void this.api.answerCallbackQuery(this.token, query.id).catch((error: unknown) => this.deps.logger.warn({ err: error }, 'answerCallbackQuery failed'));
      const turn = this.turn(ctx.update, query.from, query.message?.chat.id ?? query.from.id, 'data' in query ? (query.data ?? null) : null);
      const customer = await this.admit(turn, query.message?.chat.type ?? 'private');
      if (!customer) return;
      const rated = await answerSurveyButton(this.deps, customer, turn.text ?? '', this.customerContext(customer));
      if (rated !== null) return this.reply(turn, rated);
      const chosen = /^category:(.+)$/.exec(turn.text ?? '')?.[1];
      if (chosen) await this.chooseCategory(turn, customer, chosen);
    });
    this.bot.on('message', async (ctx) => {
      const message = ctx.message;
      const text = 'text' in message ? message.text : null;
      const command = text === null ? null : /^\/([A-Za-z0-9_]{1,64})(?:@(\S+))?(?:\s+([\s\S]*))?$/.exec(text.trim());
      // Another bot's command in a group (`/start@OtherBot`) is not for this bot: not answered, not posted.
      if (command?.[2] && command[2].toLowerCase() !== this.botInfo.username.toLowerCase()) return;
      const turn = this.turn(ctx.update, message.from, message.chat.id, text);
      const customer = await this.admit(turn, message.chat.type);
      if (!customer) return;
      if (text === null) {
        const file = fileOf(message, turn.updateId);
        if (!file) return this.reply(turn, TEXTS.textOnly);
        return this.postFile(turn, customer, file, 'caption' in message ? (message.caption ?? '') : '');
      }
      if (command) return this.command(turn, customer, command[1]!.toLowerCase(), command[3] ?? '');
      return this.plainText(turn, customer, text);
    });
  }

  /** Updates being handled on their last try (telegraf hands handlers the same update object). */
  private readonly lastTries = new WeakSet<object>();

  async handle(update: Update, lastTry = false): Promise<void> {
    if (lastTry) this.lastTries.add(update);
    await this.bot.handleUpdate(update);
  }

  private turn(update: Update, from: TelegramPerson, chatId: number, text: string | null): Turn {
    return { botId: this.botInfo.id, updateId: update.update_id, chatId: String(chatId), person: from, text, replies: 0, lastTry: this.lastTries.has(update) };
  }

  private async reply(turn: Turn, text: string, buttons?: InlineButton[][]): Promise<void> {
    const data: TelegramSendJob = { chatId: turn.chatId, text, kind: 'reply', ...(buttons ? { buttons } : {}) };
    const job = sendJob(`reply:${turn.botId}:${turn.updateId}:${turn.replies++}`, data);
    await this.deps.queue.add(job.queue, job.name, job.data, job.options);
  }

  private context(actor: CommandContext['actor']): CommandContext {
    return { actor, now: this.deps.clock() };
  }

  /** Whitelisted, active users only; anyone else is told so and becomes an access request. */
  private async admit(turn: Turn, chatType: string): Promise<UserView | null> {
    if (turn.person.is_bot) return null;
    // Maintenance holds for the bot as for the web: a notice, and nothing recorded or posted.
    const system = await loadSystemSettings(this.deps.readStore);
    if (system.maintenanceMode) {
      await this.reply(turn, maintenanceMessage(system.systemName));
      return null;
    }
    if (chatType !== 'private') {
      await this.reply(turn, TEXTS.privateOnly);
      return null;
    }
    const telegramId = String(turn.person.id);
    const entry = await this.deps.readStore.collection<WhitelistEntryView>(WHITELIST).findOne({ telegramId });
    if (!entry?.isActive) {
      const attempt = {
        username: turn.person.username ?? '',
        firstName: turn.person.first_name ?? '',
        lastName: turn.person.last_name ?? '',
        message: turn.text ?? '(not a text message)',
      };
      await recordAccessAttempt(this.deps, telegramId, attempt, this.context(telegramUserActor(turn.person)));
      await this.reply(turn, TEXTS.notWhitelisted);
      return null;
    }
    const customer = await customerForTelegram(this.deps, turn.person, this.context({ userId: 'system', role: 'system', platform: 'telegram' }));
    if (!customer.isActive) {
      await this.reply(turn, TEXTS.deactivated);
      return null;
    }
    return customer;
  }

  private customerContext(customer: UserView): CommandContext {
    return this.context({ userId: customer._id, role: customer.role, platform: 'telegram' });
  }

  private async command(turn: Turn, customer: UserView, name: string, words = ''): Promise<void> {
    const { draft } = (await this.chat(turn)).state;
    if (name === 'skip' && draft) return this.answerStep(turn, customer, draft, null);
    const { messages } = await loadBotSettings(this.deps.readStore);
    // The texts an admin writes may name the customer's open ticket, its agent and status.
    const open = await this.openTicketOf(customer);
    const say = (template: string) => this.reply(turn, renderBotMessage(template, open ? ticketValues(open) : {}));
    // Two commands the log gives one name: the first holder answers, if active (docs/read-models.md).
    const holder = await holderOf(this.deps.readStore.collection<BotCommandView>(BOT_COMMANDS), 'command', name);
    const found = holder?.isActive ? holder : null;
    switch (found?.handler) {
      case 'start':
        return say(messages.welcomeMessage);
      case 'help':
        return say(messages.helpMessage);
      case 'ticket':
        return this.startDraft(turn, customer);
      case 'mytickets':
        return this.myTickets(turn, customer);
      case 'search':
        return this.search(turn, customer, words);
      case 'cancel':
        await this.updateChat(turn, { type: 'CancelDraft', updateId: turn.updateId });
        return say(messages.cancelMessage);
      case 'custom':
        return this.reply(turn, found.response ?? '');
      default:
        return say(messages.invalidCommandMessage);
    }
  }

  private chat(turn: Turn) {
    return loadChat(this.deps, String(turn.person.id));
  }

  private async updateChat(turn: Turn, command: TelegramChatCommand): Promise<TicketDraft | null> {
    return updateChat(this.deps, String(turn.person.id), command, this.context(telegramUserActor(turn.person)));
  }

  private async openTicketOf(customer: UserView): Promise<TicketView | null> {
    const [open] = await this.deps.readStore
      .collection<TicketView>(TICKETS)
      .find({ 'customer._id': customer._id, status: { $in: [...OPEN_STATUSES] } }, { sort: { createdAt: -1 }, limit: 1 });
    return open ?? null;
  }

  private async activeCategories(): Promise<CategoryView[]> {
    return this.deps.readStore.collection<CategoryView>(CATEGORIES).find({ isActive: true }, { sort: { order: 1, name: 1 } });
  }

  private async categoryButtons(): Promise<InlineButton[][]> {
    return (await this.activeCategories()).map((category) => [{ text: category.name, callbackData: `category:${category._id}` }]);
  }

  private async startDraft(turn: Turn, customer: UserView): Promise<void> {
    const open = await this.openTicketOf(customer);
    if (open) return this.reply(turn, existingTicketText(open));
    const buttons = await this.categoryButtons();
    if (buttons.length === 0) return this.reply(turn, TEXTS.noCategories);
    await this.updateChat(turn, { type: 'StartDraft', updateId: turn.updateId });
    await this.reply(turn, TEXTS.chooseCategory, buttons);
  }

  private async chooseCategory(turn: Turn, customer: UserView, categoryId: string): Promise<void> {
    const category = await this.deps.readStore.collection<CategoryView>(CATEGORIES).findOne({ _id: categoryId, isActive: true });
    const { draft } = (await this.chat(turn)).state;
    if (!draft) {
      // An old button pressed by someone whose ticket is open: name that ticket rather than a closed form.
      const open = await this.openTicketOf(customer);
      return this.reply(turn, open ? existingTicketText(open) : TEXTS.formClosed);
    }
    if (!category) return this.reply(turn, TEXTS.useButtons, await this.categoryButtons());
    const next = await this.updateChat(turn, { type: 'ChooseCategory', updateId: turn.updateId, categoryId });
    if (next) await this.promptNext(turn, customer, next);
  }

  /** `/search words`: the customer's own tickets by the engine of GET /api/search (docs/search.md), what they may see only. */
  private async search(turn: Turn, customer: UserView, words: string): Promise<void> {
    if (!words.trim()) return this.reply(turn, TEXTS.searchHow);
    const query = searchQuery.parse({ q: words, limit: String(SEARCH_HITS_SHOWN) });
    // A `tag:` term is staff's (docs/teams.md): the customer is told so, as the API tells them.
    await searchIsCurrent(this.deps.projections);
    const found = await searchTickets(this.deps.readStore, { id: customer._id, role: customer.role }, query).catch((error: unknown) => {
      if (error instanceof DomainError) return error;
      throw error;
    });
    if (found instanceof DomainError) return this.reply(turn, found.message);
    const { hits, pagination } = found;
    if (hits.length === 0) return this.reply(turn, TEXTS.searchNone);
    const lines = hits.map(
      ({ ticket, snippet }) => `#${ticket.ticketId} ${oneLine(ticket.title)} — ${STATUS_WORDS[ticket.status]}\n  “${oneLine(snippet.text)}”`,
    );
    const more = pagination.total > hits.length ? `\n…and ${pagination.total - hits.length} more: add words to narrow them.` : '';
    await this.reply(turn, `Found in your tickets:\n${lines.join('\n')}${more}`);
  }

  private async myTickets(turn: Turn, customer: UserView): Promise<void> {
    const tickets = await this.deps.readStore
      .collection<TicketView>(TICKETS)
      .find({ 'customer._id': customer._id }, { sort: { createdAt: -1 }, limit: MY_TICKETS_SHOWN });
    if (tickets.length === 0) return this.reply(turn, TEXTS.noTickets);
    const lines = tickets.map(
      (ticket) =>
        `#${ticket.ticketId} ${oneLine(ticket.title)} — ${ticket.mergedInto ? `merged into #${ticket.mergedInto.ticketId}` : STATUS_WORDS[ticket.status]}`,
    );
    await this.reply(turn, `Your tickets:\n${lines.join('\n')}`);
  }

  private async plainText(turn: Turn, customer: UserView, text: string): Promise<void> {
    const { draft } = (await this.chat(turn)).state;
    if (draft) return this.answerStep(turn, customer, draft, text);
    const commented = await commentFromTelegram(this.deps, customer, text, this.customerContext(customer));
    if (commented !== null) return this.reply(turn, commented);
    const ticket = await this.ticketForWords(customer);
    if (!ticket) return this.reply(turn, TEXTS.noOpenTicket);
    await this.post(turn, customer, ticket, text, []);
  }

  /**
   * Where the customer's words go (docs/tickets.md, reopening): their open ticket, else their latest
   * ticket when resolved (the reply reopens it, as on the web) or closed (the desk refuses it, and the
   * bot says what to do); null when they have no ticket to write in.
   */
  private async ticketForWords(customer: UserView): Promise<TicketView | null> {
    const open = await this.openTicketOf(customer);
    if (open) return open;
    const [latest] = await this.deps.readStore
      .collection<TicketView>(TICKETS)
      .find({ 'customer._id': customer._id, mergedInto: null }, { sort: { createdAt: -1 }, limit: 1 });
    return latest ?? null;
  }

  /** A photo or document for the open ticket: downloaded, checked like a web upload, posted with its caption. */
  private async postFile(turn: Turn, customer: UserView, file: SentFile, caption: string): Promise<void> {
    if ((await this.chat(turn)).state.draft) return this.reply(turn, TEXTS.fileInForm);
    const open = await this.ticketForWords(customer);
    if (!open) return this.reply(turn, TEXTS.noOpenTicket);
    const settings = await loadSystemSettings(this.deps.readStore);
    const limit = Math.min(settings.maxFileSize, TELEGRAM_DOWNLOAD_MAX);
    const tooLarge = fileTooLargeText(limit);
    if (file.size !== undefined && file.size > limit) return this.reply(turn, tooLarge);
    const temp = await incomingFile(this.deps);
    let attachment: Attachment;
    try {
      const filePath = await this.api.getFilePath(this.token, file.fileId);
      const size = await this.api.downloadFile(this.token, filePath, temp, limit);
      attachment = await storeFile(this.deps, temp, file.name, size);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      if (error instanceof FileTooLargeError) return this.reply(turn, tooLarge);
      if (error instanceof DomainError) return this.reply(turn, error.message);
      // A network hiccup is retried by the queue; a file Telegram will never hand over (or not within
      // the retry window) is given up here, so that the user hears it and their words still reach the ticket.
      const judged = telegramJobError(error);
      if (!(judged instanceof PermanentJobError) && !turn.lastTry) throw judged;
      this.deps.logger.warn({ updateId: turn.updateId, reason: judged.message }, 'telegram file could not be downloaded; its caption is posted as text');
      await this.reply(turn, TEXTS.failed);
      if (caption.trim() !== '') await this.post(turn, customer, open, caption, []);
      return;
    }
    let posted = false;
    try {
      posted = await this.post(turn, customer, open, caption, [attachment]);
    } finally {
      if (!posted) await discardFiles(this.deps, [{ fieldName: 'attachments', attachment }]);
    }
  }

  /**
   * Posts what the user sent to their ticket, once per update, through the desk's own rules: a resolved
   * ticket reopens (and the bot says so), a closed one refuses. A refusal is explained to them (false).
   */
  private async post(turn: Turn, customer: UserView, ticket: TicketView, content: string, attachments: Attachment[]): Promise<boolean> {
    const messageId = nameBasedId(`telegram-message:${turn.botId}:${turn.updateId}`);
    try {
      await postMessage(this.deps, ticket._id, { messageId, content, isInternal: false, attachments, platform: 'telegram' }, this.customerContext(customer));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      await this.reply(turn, error.code === 'TICKET_CLOSED' ? TEXTS.closed(ticket.ticketId) : error.message);
      return false;
    }
    if (ticket.status === 'resolved') await this.reply(turn, TEXTS.reopened(ticket.ticketId));
    return true;
  }

  /** Fills the step the form is at with the user's text (null: /skip), then asks the next one. */
  private async answerStep(turn: Turn, customer: UserView, draft: TicketDraft, text: string | null): Promise<void> {
    if (draft.categoryId === null) return this.reply(turn, TEXTS.useButtons, await this.categoryButtons());
    const category = await this.deps.readStore.collection<CategoryView>(CATEGORIES).findOne({ _id: draft.categoryId });
    if (!category?.isActive) {
      await this.updateChat(turn, { type: 'StartDraft', updateId: turn.updateId });
      return this.reply(turn, `That category is no longer available. ${TEXTS.chooseCategory}`, await this.categoryButtons());
    }
    let command: TelegramChatCommand;
    if (draft.title === null || draft.description === null) {
      const key = draft.title === null ? 'title' : 'description';
      const checked = createTicketSchema.shape[key].safeParse(text ?? '');
      if (!checked.success) return this.reply(turn, checked.error.issues[0]!.message);
      command =
        key === 'title'
          ? { type: 'GiveTitle', updateId: turn.updateId, title: checked.data }
          : { type: 'GiveDescription', updateId: turn.updateId, description: checked.data };
    } else {
      const field = sortedFields(category).find((candidate) => !Object.hasOwn(draft.answers, candidate.fieldName));
      if (!field) return this.submit(turn, customer, draft);
      if (text === null && field.required) return this.reply(turn, `${fieldLabel(field)} is required.`);
      if (text !== null) {
        try {
          answerCustomFields([field], { [field.fieldName]: text });
        } catch (error) {
          if (error instanceof DomainError) return this.reply(turn, error.message);
          throw error;
        }
      }
      command = { type: 'AnswerField', updateId: turn.updateId, fieldName: field.fieldName, value: text };
    }
    const next = await this.updateChat(turn, command);
    if (next) await this.promptNext(turn, customer, next);
  }

  private async promptNext(turn: Turn, customer: UserView, draft: TicketDraft): Promise<void> {
    const category = draft.categoryId ? await this.deps.readStore.collection<CategoryView>(CATEGORIES).findOne({ _id: draft.categoryId }) : null;
    if (!category) return this.reply(turn, TEXTS.chooseCategory, await this.categoryButtons());
    if (draft.title === null) return this.reply(turn, TEXTS.askTitle(category.name));
    if (draft.description === null) return this.reply(turn, TEXTS.askDescription);
    const field = sortedFields(category).find((candidate) => !Object.hasOwn(draft.answers, candidate.fieldName));
    if (!field) return this.submit(turn, customer, draft);
    const limits = [
      field.fieldType === 'number' && field.validation.min !== undefined ? `at least ${field.validation.min}` : null,
      field.fieldType === 'number' && field.validation.max !== undefined ? `at most ${field.validation.max}` : null,
    ].filter(Boolean);
    const lines = [
      field.prompt,
      field.fieldType === 'number' ? `Please send a number${limits.length ? ` (${limits.join(', ')})` : ''}.` : null,
      field.required ? null : TEXTS.optionalHint,
    ];
    await this.reply(turn, lines.filter(Boolean).join('\n'));
  }

  /** Opens the ticket; its confirmation comes from the notification reaction like any other notice. */
  private async submit(turn: Turn, customer: UserView, draft: TicketDraft): Promise<void> {
    const answers = Object.fromEntries(Object.entries(draft.answers).filter((entry): entry is [string, string] => entry[1] !== null));
    const ticketId = nameBasedId(`telegram-ticket:${turn.botId}:${turn.updateId}`);
    try {
      await openTicket(
        this.deps,
        {
          title: draft.title ?? '',
          description: draft.description ?? '',
          category: draft.categoryId ?? '',
          priority: 'medium',
          customFieldValues: answers,
          files: [],
          platform: 'telegram',
          ticketId,
        },
        this.customerContext(customer),
      );
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      await this.updateChat(turn, { type: 'CancelDraft', updateId: turn.updateId });
      const open = error.code === 'OPEN_TICKET_EXISTS' ? await this.openTicketOf(customer) : null;
      return this.reply(turn, open ? existingTicketText(open) : `${error.message}. Use /ticket to start again.`);
    }
    await this.updateChat(turn, { type: 'SubmitDraft', updateId: turn.updateId, ticketId });
  }
}

/** Bots may download files up to 20 MB from Telegram. */
const TELEGRAM_DOWNLOAD_MAX = 20 * 1024 * 1024;

interface SentFile {
  fileId: string;
  name: string;
  size?: number;
}

/** The document, or the largest size of a photo, a message carries. */
function fileOf(message: object, updateId: number): SentFile | null {
  if ('document' in message) {
    const document = message.document as { file_id: string; file_name?: string; file_size?: number };
    return {
      fileId: document.file_id,
      name: document.file_name ?? `file-${updateId}`,
      ...(document.file_size !== undefined ? { size: document.file_size } : {}),
    };
  }
  if ('photo' in message && Array.isArray(message.photo) && message.photo.length > 0) {
    const largest = (message.photo as Array<{ file_id: string; file_size?: number }>).at(-1)!;
    return { fileId: largest.file_id, name: `photo-${updateId}.jpg`, ...(largest.file_size !== undefined ? { size: largest.file_size } : {}) };
  }
  return null;
}

/** The one-open-ticket rule in the bot's words (docs/product.md section 5's message, with the ticket named). */
export const existingTicketText = (ticket: TicketView) =>
  `${OPEN_TICKET_MESSAGE}.\nYour open ticket: #${ticket.ticketId} ${oneLine(ticket.title)} (${STATUS_WORDS[ticket.status]}). Just write here to add to it.`;
