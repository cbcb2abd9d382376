/**
 * Seeds the scale organization into an embedded server running in this process, through
 * the services' bus endpoints (the command path of the HTTP API, without HTTP), as the
 * normal bench does: users, then channels with their subscribers, then messages with
 * their reactions, stars and edits, many at a time. Every step first looks at what the
 * directory already holds (see Progress), so a run continues where the last one ended.
 */
import { endpoints, ROLE, type Actor } from '@teamchat/contracts';
import { callContract } from '@teamchat/platform';
import type { EmbeddedServer } from '@teamchat/server';
import { channelName, emailOf, fullName, type ScaleModel } from './model';
import type { Progress } from './progress';

/** Enough sends in flight to keep both threads busy (the store commits them in groups). */
const SEED_CONCURRENCY = 64;
const SETUP_CONCURRENCY = 16;
const TIMEOUT_MS = 120_000;

const actorOf = (user_id: number, email: string, full_name: string, role: number): Actor => ({ user_id, email, full_name, role, is_bot: false, client: 'scale-bench' });

/** Runs `work` over `items` with `concurrency` workers; resolves when all are done. */
async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export class ScaleSeeder {
  private owner!: Actor;
  private actors: Actor[] = [];
  /** A store position after every user and channel: messaging has seen them once there. */
  private after = 0;

  constructor(
    private readonly server: EmbeddedServer,
    private readonly model: ScaleModel,
    private readonly progress: Progress,
    private readonly log: (line: string) => void,
  ) {}

  /** Users and channels: created once, found again on later runs. */
  async setUp(): Promise<void> {
    const { bus } = this.server;
    const { value: ownerKey } = await callContract(bus, endpoints.accounts.devFetchApiKey, { params: { username: 'owner@example.com' } });
    this.owner = actorOf(ownerKey.user_id, 'owner@example.com', 'Olivia Owner', ROLE.owner);
    const { users, channels } = this.model.sizes;

    if (this.progress.userIds.length !== users) {
      const started = Date.now();
      const existing = await this.existingUsers();
      const missing = Array.from({ length: users }, (_, u) => u).filter((u) => !existing.has(emailOf(u)));
      let created = 0;
      await pool(missing, SETUP_CONCURRENCY, async (u) => {
        const reply = await callContract(bus, endpoints.accounts.createUser, { params: { email: emailOf(u), full_name: fullName(u), role: ROLE.member } }, { timeoutMs: TIMEOUT_MS });
        existing.set(emailOf(u), reply.value.user_id);
        this.after = Math.max(this.after, reply.position ?? 0);
        if (++created % 1_000 === 0) this.log(`  ${created} of ${missing.length} users created`);
      });
      this.progress.setUsers(Array.from({ length: users }, (_, u) => existing.get(emailOf(u))!));
      this.log(`created ${missing.length} users in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    const userIds = this.progress.userIds;
    this.actors = userIds.map((id, u) => actorOf(id, emailOf(u), fullName(u), ROLE.member));

    if (this.progress.channelIds.length !== channels) {
      const started = Date.now();
      const existing = await this.existingChannels();
      const missing = Array.from({ length: channels }, (_, c) => c).filter((c) => !existing.has(channelName(c)));
      await pool(missing, SETUP_CONCURRENCY, async (c) => {
        const subscribers = this.model.subscribersOf(c).map((u) => userIds[u]!);
        const reply = await callContract(
          bus,
          endpoints.channels.createChannel,
          { params: { name: channelName(c), description: `Scale channel ${c}`, subscribers }, after: this.after },
          { timeoutMs: TIMEOUT_MS },
        );
        existing.set(channelName(c), reply.value.channel_id);
        this.after = Math.max(this.after, reply.position ?? 0);
      });
      this.progress.setChannels(Array.from({ length: channels }, (_, c) => existing.get(channelName(c))!));
      this.log(`created ${missing.length} channels in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  }

  /**
   * Sends the messages below `upTo` not sent yet; returns how many it sent and how long
   * that took.
   */
  async messages(upTo: number): Promise<{ sent: number; ms: number }> {
    const started = Date.now();
    let next = this.progress.sentBelow;
    let sent = 0;
    let lastReport = started;
    const worker = async () => {
      for (;;) {
        while (next < upTo && this.progress.isDone(next)) next++;
        if (next >= upTo) return;
        const i = next++;
        await this.message(i);
        this.progress.markDone(i);
        sent++;
        if (Date.now() - lastReport >= 10_000) {
          lastReport = Date.now();
          this.log(`  ${this.progress.sentBelow} of ${upTo} messages sent (${((sent * 1000) / (lastReport - started)).toFixed(0)}/s)`);
        }
      }
    };
    await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
    const ms = Date.now() - started;
    this.progress.addSeedTime(ms);
    return { sent, ms };
  }

  private async message(i: number): Promise<void> {
    const { bus } = this.server;
    const planned = this.model.message(i);
    const sender = this.actors[planned.sender]!;
    const params =
      'channel' in planned.to
        ? { type: 'stream' as const, to: channelName(planned.to.channel), topic: planned.to.topic, content: planned.content }
        : { type: 'direct' as const, to: planned.to.users.map((u) => this.progress.userIds[u]!), content: planned.content };
    const sentReply = await callContract(bus, endpoints.messaging.sendMessage, { actor: sender, after: this.after, params }, { timeoutMs: TIMEOUT_MS });
    const message_id = sentReply.value.id;
    const after = sentReply.position ?? this.after;
    const follow = [];
    if (planned.reaction) {
      const actor = this.actors[planned.reaction.user]!;
      follow.push(callContract(bus, endpoints.messaging.addReaction, { actor, after, params: { message_id, emoji_name: planned.reaction.emoji } }, { timeoutMs: TIMEOUT_MS }));
    }
    if (planned.star !== undefined) {
      const actor = this.actors[planned.star]!;
      follow.push(callContract(bus, endpoints.messaging.updateFlags, { actor, after, params: { messages: [message_id], op: 'add', flag: 'starred' } }, { timeoutMs: TIMEOUT_MS }));
    }
    if (planned.edit !== undefined) {
      follow.push(callContract(bus, endpoints.messaging.updateMessage, { actor: sender, after, params: { message_id, content: planned.edit } }, { timeoutMs: TIMEOUT_MS }));
    }
    await Promise.all(follow);
  }

  private async existingUsers(): Promise<Map<string, number>> {
    const { value } = await callContract(this.server.bus, endpoints.accounts.listUsers, { actor: this.owner, params: {} }, { timeoutMs: TIMEOUT_MS });
    return new Map(value.members.map((m) => [m.email, m.user_id]));
  }

  private async existingChannels(): Promise<Map<string, number>> {
    const { value } = await callContract(this.server.bus, endpoints.channels.getChannels, { actor: this.owner, params: { include_all: true } }, { timeoutMs: TIMEOUT_MS });
    return new Map(value.streams.map((s) => [s.name, s.stream_id]));
  }
}
