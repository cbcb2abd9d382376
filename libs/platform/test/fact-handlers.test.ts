import { describe, expect, it } from '@jest/globals';
import { defaultChannelGroupSettings, SYSTEM_GROUP, type FactOf } from '@teamchat/contracts';
import { applyFact, factOf, type StoredFact } from '@teamchat/platform';
import { storedChannelCreated } from '@teamchat/platform/testing';

const stored = (data: Record<string, unknown> & { type: string }, position = 7): StoredFact => ({
  id: `fact-${position}`,
  stream: 's',
  revision: 0,
  position,
  type: data.type,
  data,
  metadata: {},
  created: 0,
});

/** A ChannelCreated as written before channels had group-settings or facts their audience. */
const oldChannelCreated = storedChannelCreated({ channel_id: 3, name: 'design', creator_id: 4 });

const move = {
  prev_channel_id: 10,
  channel_id: 11,
  channel_name: 'eng',
  prev_topic: 'a',
  topic: 'a',
  propagate_mode: 'change_all',
  message_ids: [42],
  recipient_id: 9,
};
const oldMessageEdited = { type: 'MessageEdited', message_id: 42, editor_id: 4, timestamp: 1, content: null, move, audience_user_ids: [4] };

describe('factOf reads old fact shapes in their current shape', () => {
  it("gives a channel created before group-settings Zulip's defaults, its creator administering it, in no folder", () => {
    expect(factOf(stored(oldChannelCreated))).toEqual({ ...oldChannelCreated, ...defaultChannelGroupSettings(4), audience_user_ids: [], folder_id: null });
    expect(factOf(stored({ ...oldChannelCreated, creator_id: null }))).toMatchObject({ can_administer_channel_group: SYSTEM_GROUP.nobody });
  });

  it('keeps the group-settings and audience a channel recorded', () => {
    const current = { ...oldChannelCreated, ...defaultChannelGroupSettings(4), can_send_message_group: SYSTEM_GROUP.administrators, audience_user_ids: [1, 4], folder_id: 2 };
    expect(factOf(stored(current))).toEqual(current);
    expect(factOf(stored({ ...oldChannelCreated, audience_user_ids: [4] }))).toMatchObject({ audience_user_ids: [4], can_send_message_group: SYSTEM_GROUP.everyone });
  });

  it('gives a move recorded before revoked access was kept an empty revoked list', () => {
    expect(factOf(stored(oldMessageEdited))).toEqual({ ...oldMessageEdited, move: { ...move, revoked_user_ids: [] } });
    const revoking = { ...oldMessageEdited, move: { ...move, revoked_user_ids: [5] } };
    expect(factOf(stored(revoking))).toEqual(revoking);
    expect(factOf(stored({ ...oldMessageEdited, move: null }))).toEqual({ ...oldMessageEdited, move: null });
  });

  it('names where unread-again messages are as the spec does: channel and direct, not stream and private', () => {
    const flags = { type: 'MessageFlagsUpdated', user_id: 4, op: 'remove', flag: 'read', message_ids: [42, 50] };
    const old = {
      ...flags,
      message_details: { '42': { type: 'stream', stream_id: 10, topic: 'a', mentioned: true }, '50': { type: 'private', user_ids: [1, 4] } },
    };
    const current = {
      ...flags,
      message_details: { '42': { type: 'channel', channel_id: 10, topic: 'a', mentioned: true }, '50': { type: 'direct', user_ids: [1, 4] } },
    };
    expect(factOf(stored(old))).toEqual(current);
    expect(factOf(stored(current))).toEqual(current);
    expect(factOf(stored(flags))).toEqual(flags);
  });

  it('names a default-channel change is_default, as the channel does', () => {
    const updated = { type: 'ChannelUpdated', channel_id: 3, name: 'design', audience_user_ids: [4] };
    expect(factOf(stored({ ...updated, change: { property: 'is_default_stream', value: true } }))).toEqual({
      ...updated,
      change: { property: 'is_default', value: true },
    });
    const renamed = { ...updated, change: { property: 'name', value: 'pixels' } };
    expect(factOf(stored(renamed))).toEqual(renamed);
  });

  it('leaves the stored record as it is', () => {
    const record = stored(oldChannelCreated);
    factOf(record);
    expect(record.data).toEqual(oldChannelCreated);
  });
});

describe('applyFact', () => {
  it('hands a handler the current shape of an old fact', async () => {
    const seen: FactOf<'ChannelCreated'>[] = [];
    expect(await applyFact({ ChannelCreated: (fact) => void seen.push(fact) }, stored(oldChannelCreated))).toBe(true);
    expect(seen[0]!.can_send_message_group).toBe(SYSTEM_GROUP.everyone);
  });

  it('says when no handler took the fact', async () => {
    expect(await applyFact({}, stored(oldChannelCreated))).toBe(false);
  });
});
