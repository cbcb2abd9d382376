/**
 * POST /messages: resolve `to` against the directory, render, allocate the
 * conversation's recipient id, decide, and append the message as its own stream. The
 * message id is the position the store gave that fact.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, streamDoesNotExist, streams, type Actor, type SendMessageParams } from '@teamchat/contracts';
import type { Directory, UserDoc } from '@teamchat/directory';
import { isMeMessage, renderMarkdown } from '@teamchat/markdown';
import type { AggregateRepository, EventStore } from '@teamchat/platform';
import { decideAllocateRecipient, type RecipientRegistry } from '../domain/recipients';
import {
  decideSendMessage,
  recipientKey,
  type ChannelTarget,
  type DirectTarget,
  type Participant,
} from '../domain/send-message';

export interface SendDeps {
  store: EventStore;
  directory: Directory;
  recipients: AggregateRepository<RecipientRegistry>;
}

const participant = (u: UserDoc): Participant => ({
  id: u._id,
  email: u.email,
  full_name: u.full_name,
  role: u.role,
  is_active: u.is_active,
  is_bot: u.is_bot,
});

async function resolveChannel(directory: Directory, to: SendMessageParams['to'], topic: string | undefined): Promise<ChannelTarget> {
  // A one-element list is how some clients name the channel.
  const value = Array.isArray(to) ? (to.length === 1 ? to[0]! : undefined) : to;
  if (value === undefined) throw badRequest('A channel message needs exactly one channel in `to`');
  const channel = typeof value === 'number' ? await directory.channelById(value) : await directory.channelByName(value.trim());
  if (!channel) throw streamDoesNotExist(value);
  return {
    kind: 'channel',
    channel_id: channel._id,
    name: channel.name,
    invite_only: channel.invite_only,
    is_archived: channel.is_archived,
    subscriber_ids: await directory.subscriberIds(channel._id),
    topic,
  };
}

async function resolveDirect(directory: Directory, to: SendMessageParams['to']): Promise<DirectTarget> {
  // Legacy clients send a comma-separated list of emails as plain text.
  const items = Array.isArray(to) ? to : typeof to === 'string' ? to.split(',').map((s) => s.trim()).filter(Boolean) : [to];
  const users: Participant[] = [];
  for (const item of items) {
    const user = typeof item === 'number' ? await directory.userById(item) : await directory.userByEmail(item);
    if (!user) throw badRequest(typeof item === 'number' ? `Invalid user ID ${item}` : `Invalid email '${item}'`);
    users.push(participant(user));
  }
  return { kind: 'direct', users };
}

async function recipientIdFor(deps: SendDeps, key: string): Promise<number> {
  // An allocation never changes, so a known key needs no read of the registry stream.
  const known = deps.recipients.cached(streams.messageRecipients)?.byKey.get(key);
  if (known !== undefined) return known;
  const { result } = await deps.recipients.execute(streams.messageRecipients, (state) => {
    const facts = decideAllocateRecipient(state, key);
    return { facts, result: facts[0]?.recipient_id ?? state.byKey.get(key)! };
  });
  return result;
}

export async function sendMessage(deps: SendDeps, actor: Actor, params: SendMessageParams) {
  if ((params.queue_id === undefined) !== (params.local_id === undefined)) {
    const missing = params.queue_id === undefined ? 'queue_id' : 'local_id';
    throw badRequest(`Missing '${missing}' argument`, { var_name: missing });
  }
  const senderDoc = await deps.directory.userById(actor.user_id);
  if (!senderDoc || !senderDoc.is_active) throw badRequest('Sender is not an active user');
  const sender = participant(senderDoc);
  const isChannel = params.type === 'channel' || params.type === 'stream';
  const target = isChannel
    ? await resolveChannel(deps.directory, params.to, params.topic ?? params.subject)
    : await resolveDirect(deps.directory, params.to);

  const command = {
    sender,
    target,
    content: params.content,
    rendered_content: renderMarkdown(params.content),
    is_me_message: isMeMessage(params.content),
    client: actor.client,
    read_by_sender: params.read_by_sender,
    local_echo: params.queue_id !== undefined && params.local_id !== undefined ? { queue_id: params.queue_id, local_id: params.local_id } : null,
    now: Date.now(),
  };
  // Validate before allocating a recipient id, so a refused message leaves no trace.
  decideSendMessage({ ...command, recipient_id: 0 });
  const fact = decideSendMessage({ ...command, recipient_id: await recipientIdFor(deps, recipientKey(sender, target)) });
  const uuid = randomUUID();
  const { positions } = await deps.store.append(streams.message(uuid), [{ id: uuid, type: fact.type, data: fact }], 'no_stream');
  return { id: positions[0]! };
}
