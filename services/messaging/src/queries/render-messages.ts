/**
 * Messages as the API shows them: the documents with the names of senders and channels
 * as they are now and the requester's flags, as objects or as UTF-8 JSON.
 */
import { cachedGravatarUrls, formatMessage, type Actor, type AvatarState, type ApiMessage, type MessageView, type MessageWithFlags } from '@teamchat/contracts';
import { replyBytes } from '@teamchat/platform';
import { highlightHtml, highlightTopic, type SearchTerms } from '../domain/message-history';
import type { MessageDoc } from '../projections/message-docs';
import type { AccessDeps } from './access';
import { HISTORICAL_FLAGS, type Candidate } from './narrow-match';
import { channelIdsOf } from './reader';

type MessageFormat = Parameters<typeof formatMessage>[1];

const avatarUrls = cachedGravatarUrls();

interface Prepared {
  docs: MessageDoc[];
  /** The requester's flags of each of `docs` (same index); undefined for a message they never received. */
  flags: (readonly string[] | undefined)[];
  senders: Map<number, { email: string; full_name: string; avatar?: AvatarState }>;
  channelNames: Map<number, string>;
}

/**
 * What rendering needs: the documents, the requester's flags, and the names of senders
 * and channels as they are now. `loaded` may carry documents and rows a query already
 * read, which are not read again. Usually it carries all of them, in the order of `ids`:
 * then no map is built, which on a page of a hundred messages was most of what the
 * messaging thread allocated for a GET /messages (maps grow by copying their table).
 */
async function prepare(deps: AccessDeps, actor: Actor, ids: number[], loaded: Candidate[]): Promise<Prepared> {
  if (loaded.length === ids.length && loaded.every((c, i) => c.id === ids[i] && c.message)) {
    const docs = loaded.map((c) => c.message!);
    const flags = loaded.map((c) => c.row?.flags);
    // Candidates whose personal row the query did not read (not the `unread` flag).
    const rowNotRead = loaded.filter((c) => c.row === undefined);
    if (rowNotRead.length > 0) {
      // In the order asked for; undefined for the messages the requester never received.
      const found = await deps.model.personal.flagsMany(actor.user_id, rowNotRead.map((c) => c.message!));
      for (let i = 0, r = 0; i < loaded.length; i++) if (loaded[i]!.row === undefined) flags[i] = found[r++];
    }
    return { docs, flags, ...(await names(deps, docs)) };
  }
  const known = new Map<number, MessageDoc>();
  const flagsById = new Map<number, readonly string[]>();
  const rowsRead = new Set<number>();
  for (const c of loaded) {
    if (c.message) known.set(c.id, c.message);
    if (c.row === undefined) continue;
    rowsRead.add(c.id);
    if (c.row) flagsById.set(c.id, c.row.flags);
  }
  const missing = ids.filter((id) => !known.has(id));
  const rowsMissing = ids.filter((id) => !rowsRead.has(id));
  const fetched = missing.length ? await deps.model.messages.getMany(missing) : [];
  for (const doc of fetched) known.set(doc._id, doc);
  const needFlags = rowsMissing.flatMap((id) => known.get(id) ?? []);
  const found = await deps.model.personal.flagsMany(actor.user_id, needFlags);
  for (let i = 0; i < needFlags.length; i++) if (found[i]) flagsById.set(needFlags[i]!._id, found[i]!);
  const docs: MessageDoc[] = [];
  for (const id of ids) {
    const doc = known.get(id);
    if (doc) docs.push(doc);
  }
  return { docs, flags: docs.map((doc) => flagsById.get(doc._id)), ...(await names(deps, docs)) };
}

/** The names of the documents' senders and channels, as they are now. */
async function names(deps: AccessDeps, docs: MessageDoc[]): Promise<Pick<Prepared, 'senders' | 'channelNames'>> {
  const senders = new Map((await deps.directory.usersByIds([...new Set(docs.map((d) => d.sender_id))])).map((u) => [u._id, u]));
  const channelNames = new Map<number, string>();
  for (const id of channelIdsOf(docs)) {
    const channel = await deps.directory.channelById(id);
    if (channel) channelNames.set(id, channel.name);
  }
  return { senders, channelNames };
}

/** The message as the API shows it, without the requester's flags. */
function present(doc: MessageDoc, prepared: Prepared, format: MessageFormat): ApiMessage {
  const sender = prepared.senders.get(doc.sender_id);
  // Names as they are now, not as they were when the message was sent.
  const recipient: MessageView['recipient'] =
    doc.recipient.type === 'channel'
      ? { ...doc.recipient, channel_name: prepared.channelNames.get(doc.recipient.channel_id) ?? doc.recipient.channel_name }
      : doc.recipient;
  return formatMessage(viewOf(doc, sender?.email ?? doc.sender_email, sender?.full_name ?? doc.sender_full_name, recipient), format, avatarUrls, sender?.avatar);
}

/** The messages as the API shows them, with the requester's flags. */
export async function renderMessages(
  deps: AccessDeps,
  actor: Actor,
  ids: number[],
  format: MessageFormat,
  loaded: Candidate[] = [],
): Promise<MessageWithFlags[]> {
  if (ids.length === 0) return [];
  const prepared = await prepare(deps, actor, ids, loaded);
  return prepared.docs.map((doc, i) => ({ ...present(doc, prepared, format), flags: [...(prepared.flags[i] ?? HISTORICAL_FLAGS)] }));
}

interface Fragment {
  /** The message's JSON in UTF-8 without its closing brace, so the flags can follow. */
  open: Uint8Array;
  /** The names it was rendered with: a rename makes it stale. */
  senderEmail: string | undefined;
  senderName: string | undefined;
  channelName: string | undefined;
}

/**
 * Rendered JSON per document version and format. Cached documents are replaced, never
 * changed, when a message changes, so a WeakMap entry lives exactly as long as the
 * version it renders.
 */
const fragments = new WeakMap<MessageDoc, Map<string, Fragment>>();

/**
 * A message's `match_content` and `match_subject` for the last search that showed it, in
 * UTF-8: the pages of a search and its repeats (a client refetching its narrow) highlight
 * the same messages with the same terms. One search per message, so the memory stays
 * that of one more fragment per shared document.
 */
const lastMatches = new WeakMap<MessageDoc, { terms: string; bytes: Uint8Array }>();

function matchBytes(doc: MessageDoc, highlights: SearchTerms, termsKey: string): Uint8Array {
  const known = lastMatches.get(doc);
  if (known && known.terms === termsKey) return known.bytes;
  const topic = doc.recipient.type === 'channel' ? doc.recipient.topic : '';
  const bytes = Buffer.from(`,"match_content":${JSON.stringify(highlightHtml(doc.rendered_content, highlights))},"match_subject":${JSON.stringify(highlightTopic(topic, highlights))}`);
  // Only documents the read model shares (frozen, cached) are worth remembering; an edit makes a new one.
  if (Object.isFrozen(doc)) lastMatches.set(doc, { terms: termsKey, bytes });
  return bytes;
}

/**
 * The end of a message's JSON for each flags list: `,"flags":[…]},` in UTF-8. Keyed by
 * the list itself: a user's rows are cached and shared, so their lists come back.
 */
const flagsTails = new WeakMap<readonly string[], Uint8Array>();

function flagsTail(flags: readonly string[]): Uint8Array {
  let tail = flagsTails.get(flags);
  if (!tail) flagsTails.set(flags, (tail = Buffer.from(`,"flags":${JSON.stringify(flags)}},`)));
  return tail;
}

const NOTHING_PREPARED: Prepared = { docs: [], flags: [], senders: new Map(), channelNames: new Map() };

/**
 * The same messages as renderMessages, as a JSON array in UTF-8, with `before` and
 * `after` around it. Each message's JSON is rendered and encoded once per version and
 * format; a request only copies those bytes and its flags into one buffer. Bytes,
 * because a response is written as bytes: a page is never built up as a string, nor
 * encoded again. The buffer is lent from the thread's reply arena, or owns its memory (not
 * a slice of Node's pool): either way it reaches the main thread without a copy.
 *
 * With search terms (a narrow with `search`), each message also carries Zulip's
 * `match_content` and `match_subject`: its HTML and topic with the matches highlighted.
 */
export async function renderMessagesJson(
  deps: AccessDeps,
  actor: Actor,
  ids: number[],
  format: MessageFormat,
  loaded: Candidate[] = [],
  wrap: { before: string; after: string } = { before: '', after: '' },
  search?: SearchTerms,
): Promise<Buffer> {
  const highlights = search && (search.words.length > 0 || search.phrases.length > 0) ? search : undefined;
  const termsKey = highlights ? JSON.stringify([highlights.words, highlights.phrases]) : '';
  const prepared = ids.length === 0 ? NOTHING_PREPARED : await prepare(deps, actor, ids, loaded);
  const formatKey = `${+format.apply_markdown}${+format.client_gravatar}${+format.allow_empty_topic_name}`;
  const head = Buffer.from(`${wrap.before}[`);
  const end = Buffer.from(`]${wrap.after}`);
  const pieces: Uint8Array[] = [head];
  let size = head.length + end.length;
  for (let i = 0; i < prepared.docs.length; i++) {
    const doc = prepared.docs[i]!;
    const sender = prepared.senders.get(doc.sender_id);
    const channelName = doc.channel_id === null ? undefined : prepared.channelNames.get(doc.channel_id);
    let byFormat = fragments.get(doc);
    if (!byFormat) fragments.set(doc, (byFormat = new Map()));
    let fragment = byFormat.get(formatKey);
    if (!fragment || fragment.senderEmail !== sender?.email || fragment.senderName !== sender?.full_name || fragment.channelName !== channelName) {
      const message = present(doc, prepared, format);
      const open = Buffer.from(JSON.stringify(message).slice(0, -1));
      fragment = { open, senderEmail: sender?.email, senderName: sender?.full_name, channelName };
      // Only documents the read model shares (frozen, cached) are worth remembering.
      if (Object.isFrozen(doc)) byFormat.set(formatKey, fragment);
    }
    const tail = flagsTail(prepared.flags[i] ?? HISTORICAL_FLAGS);
    pieces.push(fragment.open);
    size += fragment.open.length + tail.length;
    if (highlights) {
      const match = matchBytes(doc, highlights, termsKey);
      pieces.push(match);
      size += match.length;
    }
    pieces.push(tail);
  }
  if (prepared.docs.length > 0) {
    // No comma after the last message.
    pieces[pieces.length - 1] = pieces[pieces.length - 1]!.subarray(0, -1);
    size -= 1;
  }
  pieces.push(end);
  const out = replyBytes(size);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

function viewOf(doc: MessageDoc, senderEmail: string, senderFullName: string, recipient: MessageView['recipient']): MessageView {
  return {
    id: doc._id,
    sender_id: doc.sender_id,
    sender_email: senderEmail,
    sender_full_name: senderFullName,
    recipient,
    recipient_id: doc.recipient_id,
    content: doc.content,
    rendered_content: doc.rendered_content,
    client: doc.client,
    timestamp: doc.timestamp,
    is_me_message: doc.is_me_message,
    reactions: doc.reactions,
    submessages: doc.submessages ?? [],
    edit_history: doc.edit_history,
    last_edit_timestamp: doc.last_edit_timestamp,
    last_moved_timestamp: doc.last_moved_timestamp,
    ...(doc.topic_links ? { topic_links: doc.topic_links } : {}),
  };
}
