import { describe, expect, it } from '@jest/globals';
import { handledTypes, SqliteReadModelStore } from '@teamchat/platform';
import { MessagesReadModel } from '../src/projections/messages';
import { messagesProjection } from '../src/projections/messages-projection';

describe('messaging projection', () => {
  it('subscribes to exactly the fact types it has a case for', async () => {
    const store = SqliteReadModelStore.open(':memory:');
    const types = handledTypes(messagesProjection(new MessagesReadModel(store)));
    expect([...types].sort()).toEqual(
      ['MessageDeleted', 'MessageEdited', 'MessageFlagsUpdated', 'MessageSent', 'ReactionAdded', 'ReactionRemoved', 'SubmessageAdded', 'UserTopicUpdated'],
    );
    await store.close();
  });
});
