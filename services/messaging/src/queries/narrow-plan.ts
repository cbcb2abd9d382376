/**
 * What to read for a narrow. A plan reads one collection in id order — the requester's
 * personal history (`personal`, queries/personal-scan.ts) or channel history (`messages`) — with a filter
 * holding every condition the store can check itself (equalities and negations of the
 * narrow keys, the sender, the personal flags and the link fields), the most selective
 * of them on an index. What is left (search, has:reaction, topic states, …) is tested on
 * the candidates the filter yields (narrow-match.ts, read by reader.ts).
 */
import type { Filter, TextSearch } from '@teamchat/platform';
import { needs } from './narrow-match';
import type { Condition, IsOperand, Narrow, SearchQuery } from './narrow';

export type Plan =
  /** The narrow contradicts itself (e.g. a channel and a direct-message operator): nothing matches. */
  | { source: 'none' }
  /** Exactly these messages, each checked for visibility and against every condition. */
  | { source: 'ids'; ids: number[]; conditions: Condition[] }
  /**
   * `messages` is channel history, `personal` the requester's personal history.
   * `text`: the positive search terms, which the messages' text index can answer too
   * (read alongside, see search-scan.ts); they stay in `residual` for candidates read
   * from the filter.
   */
  | { source: 'messages' | 'personal'; filter: Filter; residual: Condition[]; text?: TextSearch };

/** Equalities and negations per field, merged: a field cannot equal two values. */
class FilterBuilder {
  private readonly equal = new Map<string, string | number | boolean | null>();
  private readonly unequal = new Map<string, (string | number | boolean | null)[]>();
  contradiction = false;

  eq(field: string, value: string | number | boolean | null): void {
    if (this.equal.has(field) && this.equal.get(field) !== value) this.contradiction = true;
    this.equal.set(field, value);
  }

  ne(field: string, value: string | number | boolean | null): void {
    this.unequal.set(field, [...(this.unequal.get(field) ?? []), value]);
  }

  build(): Filter | undefined {
    const filter: Filter = Object.fromEntries(this.equal);
    for (const [field, values] of this.unequal) {
      if (this.equal.has(field)) {
        if (values.includes(this.equal.get(field)!)) return undefined;
      } else filter[field] = values.length === 1 ? { $ne: values[0]! } : { $nin: values };
    }
    return this.contradiction ? undefined : filter;
  }
}

/** Personal flags: only a personal-history row can have them set. */
const PERSONAL_FLAGS: Partial<Record<IsOperand, 'unread' | 'starred' | 'mentioned'>> = {
  unread: 'unread',
  starred: 'starred',
  mentioned: 'mentioned',
};

/** Conditions only a channel message can meet. */
function requiresChannelMessage(c: Condition): boolean {
  switch (c.kind) {
    case 'channels':
      return true;
    case 'channel':
    case 'topic':
      return !c.negated;
    case 'is':
      return !c.negated && ['resolved', 'followed', 'muted'].includes(c.operand);
    default:
      return false;
  }
}

/** Conditions only a direct message can meet. */
function requiresDirectMessage(c: Condition): boolean {
  switch (c.kind) {
    case 'dm':
      return true;
    case 'dm-including':
      return !c.negated;
    case 'is':
      return !c.negated && c.operand === 'dm';
    default:
      return false;
  }
}

/**
 * Chooses what to read. The messages collection, by its (channel, topic, id) and
 * (conversation, id) indexes, when the narrow names a channel, a direct-message
 * conversation or channels:public — for a channel whose full history the requester may
 * not read, only what they received (it must be in their personal history), and a
 * conversation's participants received all of it. Personal history otherwise, or when a
 * personal flag must be set (only personal history has those), so a narrow without a
 * channel never reaches beyond what the requester received.
 */
export function planNarrow(narrow: Narrow, channelHistoryReadable: boolean): Plan {
  const { conditions } = narrow;
  if (conditions.some(requiresChannelMessage) && conditions.some(requiresDirectMessage)) return { source: 'none' };
  const ids = new Set(conditions.flatMap((c) => (c.kind === 'id' ? [c.message_id] : [])));
  if (ids.size > 1) return { source: 'none' };
  if (ids.size === 1) return { source: 'ids', ids: [...ids], conditions };

  const needsPersonalFlag = conditions.some((c) => c.kind === 'is' && !c.negated && needs(c) === 'row');
  const byMessages =
    !needsPersonalFlag && (narrow.channel !== undefined || conditions.some((c) => c.kind === 'dm' || c.kind === 'channels'));
  const source = byMessages ? 'messages' : 'personal';

  const filter = new FilterBuilder();
  const residual: Condition[] = byMessages && narrow.channel !== undefined && !channelHistoryReadable ? [{ kind: 'received' }] : [];
  const set = (field: string, value: string | number | boolean | null, negated: boolean) =>
    negated ? filter.ne(field, value) : filter.eq(field, value);
  // Without a dm operator's key to use, direct messages are read from the (channel,
  // topic) index at its null key, where they sit in id order.
  const directMessagesOnly = () => {
    if (conditions.some((o) => o.kind === 'dm')) return;
    if (source === 'personal') filter.eq('direct', true);
    else {
      filter.eq('channel_id', null);
      filter.eq('topic_lc', null);
    }
  };
  for (const c of conditions) {
    switch (c.kind) {
      case 'channel':
        set('channel_id', c.channel_id, c.negated);
        break;
      case 'topic':
        set('topic_lc', c.topic_lc, c.negated);
        break;
      case 'dm':
        filter.eq('dm_key', c.dm_key);
        break;
      case 'sender':
        set('sender_id', c.user_id, c.negated);
        break;
      case 'dm-including':
        if (!c.negated) directMessagesOnly();
        residual.push(c);
        break;
      case 'is': {
        const flag = PERSONAL_FLAGS[c.operand];
        if (flag && source === 'personal') filter.eq(flag, !c.negated);
        else if (c.operand === 'dm') {
          if (c.negated) filter.ne('channel_id', null);
          else directMessagesOnly();
        } else residual.push(c);
        break;
      }
      case 'has':
        // Both collections carry the link fields; reactions only the message.
        if (c.operand !== 'reaction') filter.eq(`has_${c.operand}`, !c.negated);
        else residual.push(c);
        break;
      default:
        // channels: covered channels depend on the requester, so they are checked here
        // while channel history is read in id order (every public channel at once).
        residual.push(c);
    }
  }
  const built = filter.build();
  if (!built) return { source: 'none' };
  const phrases = conditions.flatMap((c) => (c.kind === 'search' && !c.negated ? searchPhrases(c.query) : []));
  return phrases.length ? { source, filter: built, residual, text: { phrases } } : { source, filter: built, residual };
}

/** A search's words and phrases as the text index takes them (phrases of words). */
function searchPhrases(query: SearchQuery): string[][] {
  return [...query.words.map((word) => [word]), ...query.phrases.map((phrase) => phrase.split(' '))];
}
