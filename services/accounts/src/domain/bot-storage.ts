/**
 * Bot storage (spec endpoint 18): one bot's string-to-string dictionary, in its own stream
 * (`bot_storage-<id>`). Bots only; the size limit counts keys and values in characters
 * (code points, as Zulip counts them) and comes from the server's settings.
 */
import { ApiError, badRequest, type Actor, type Fact } from '@teamchat/contracts';
import { codePointLength } from '@teamchat/policies';

export interface BotStorageState {
  entries: ReadonlyMap<string, string>;
  /** Characters of every key and value. */
  size: number;
}

export const initialBotStorage = (): BotStorageState => ({ entries: new Map(), size: 0 });

const entrySize = (key: string, value: string) => codePointLength(key) + codePointLength(value);

export function evolveBotStorage(state: BotStorageState, fact: Fact): BotStorageState {
  switch (fact.type) {
    case 'BotStorageUpdated': {
      const entries = new Map(state.entries);
      let size = state.size;
      for (const [key, value] of Object.entries(fact.storage)) {
        const old = entries.get(key);
        if (old !== undefined) size -= entrySize(key, old);
        entries.set(key, value);
        size += entrySize(key, value);
      }
      return { entries, size };
    }
    case 'BotStorageRemoved': {
      if (fact.keys === null) return initialBotStorage();
      const entries = new Map(state.entries);
      let size = state.size;
      for (const key of fact.keys) {
        const old = entries.get(key);
        if (old === undefined) continue;
        size -= entrySize(key, old);
        entries.delete(key);
      }
      return { entries, size };
    }
    default:
      return state;
  }
}

/** The spec's error for a caller that is not a bot. */
export const notABot = () => new ApiError('PERMISSION_DENIED', 'This endpoint is only available to bots.', 400);

export function checkBot(actor: Pick<Actor, 'is_bot'>): void {
  if (!actor.is_bot) throw notABot();
}

export function decideUpdateBotStorage(
  state: BotStorageState,
  cmd: { actor: Actor; storage: Record<string, string>; limit: number },
): Fact[] {
  checkBot(cmd.actor);
  const written = Object.entries(cmd.storage);
  if (written.length === 0) return [];
  let size = state.size;
  for (const [key, value] of written) {
    const old = state.entries.get(key);
    size += entrySize(key, value) - (old === undefined ? 0 : entrySize(key, old));
  }
  if (size > cmd.limit) throw badRequest(`Request exceeds storage limit by ${size - cmd.limit} characters. The limit is ${cmd.limit} characters.`);
  return [{ type: 'BotStorageUpdated', user_id: cmd.actor.user_id, storage: cmd.storage }];
}

function checkKeys(state: BotStorageState, keys: readonly string[]): void {
  const unknown = keys.find((key) => !state.entries.has(key));
  if (unknown !== undefined) throw badRequest(`Key does not exist: ${JSON.stringify(unknown).slice(0, 120)}`);
}

/** `keys` absent: everything. */
export function decideRemoveBotStorage(state: BotStorageState, cmd: { actor: Actor; keys?: readonly string[] | undefined }): Fact[] {
  checkBot(cmd.actor);
  if (cmd.keys === undefined) return state.entries.size ? [{ type: 'BotStorageRemoved', user_id: cmd.actor.user_id, keys: null }] : [];
  checkKeys(state, cmd.keys);
  const keys = [...new Set(cmd.keys)];
  return keys.length ? [{ type: 'BotStorageRemoved', user_id: cmd.actor.user_id, keys }] : [];
}

/** GET /bot_storage: everything, or the named keys (each must exist). */
export function readBotStorage(entries: ReadonlyMap<string, string>, keys: readonly string[] | undefined): Record<string, string> {
  if (keys !== undefined) checkKeys({ entries, size: 0 }, keys);
  const wanted = keys ?? [...entries.keys()];
  const storage: Record<string, string> = Object.create(null);
  for (const key of wanted) storage[key] = entries.get(key)!;
  return { ...storage };
}
