import { describe, expect, it } from '@jest/globals';
import { ClientEvent, widgetContent, type FactOf, type Widget } from '@teamchat/contracts';
import type { StoredFact } from '@teamchat/platform';
import { EventQueue } from '../src/domain/event-queue';
import { deliveriesFor } from '../src/projections/fan-out';

// What clients see of widgets: the message event carries the widget's submessage, and each
// later submessage is a `submessage` event to whoever may see the message.

const stored = (data: { type: string }, position: number): StoredFact => ({
  id: `fact-${position}`,
  stream: 'message-0b6f',
  revision: 0,
  position,
  type: data.type,
  data,
  metadata: {},
  created: 1_700_000_000_000,
});

const queue = (user_id: number) =>
  new EventQueue(`q-${user_id}`, { user_id, event_types: null, apply_markdown: true, client_gravatar: true, empty_topic_name: false, narrow: [] });

const poll: Widget = { widget_type: 'poll', extra_data: { question: 'Lunch?', options: ['Pizza', 'Sushi'] } };

const sent = (widget?: Widget): FactOf<'MessageSent'> => ({
  type: 'MessageSent',
  sender_id: 4,
  sender_email: 'mark@acme.example',
  sender_full_name: 'Mark',
  recipient: { type: 'channel', channel_id: 10, channel_name: 'general', topic: 'lunch' },
  content: '/poll Lunch?\nPizza\nSushi',
  rendered_content: '<p>/poll Lunch?<br>\nPizza<br>\nSushi</p>',
  is_me_message: false,
  client: 'website',
  recipient_id: 7,
  timestamp: 1_700_000_000,
  recipient_user_ids: [1, 4, 6],
  mentioned_user_ids: [],
  wildcard_mentioned_user_ids: [],
  read_by_sender: true,
  local_echo: null,
  ...(widget ? { widget } : {}),
});

function eventsOf(fact: { type: string }, position: number, userId: number) {
  return deliveriesFor(stored(fact, position), { apiKeyOf: () => '' }).map((d) => ({ user_ids: d.user_ids, event: d.eventFor(queue(userId)) }));
}

describe('fan-out of widgets', () => {
  it('gives the message event its widget submessage, with the message id', () => {
    const [delivery] = eventsOf(sent(poll), 42, 6);
    const event = ClientEvent.parse(delivery!.event);
    expect(event.type === 'message' && event.message.submessages).toEqual([
      { id: 42, message_id: 42, sender_id: 4, msg_type: 'widget', content: widgetContent(poll) },
    ]);
  });

  it('gives a message without a widget an empty submessages list', () => {
    const [delivery] = eventsOf(sent(), 42, 6);
    const event = ClientEvent.parse(delivery!.event);
    expect(event.type === 'message' && event.message.submessages).toEqual([]);
  });

  it("announces a submessage to the fact's audience, its id the fact's position", () => {
    const content = JSON.stringify({ type: 'vote', key: 'canned,0', vote: 1 });
    const added: FactOf<'SubmessageAdded'> = { type: 'SubmessageAdded', message_id: 42, sender_id: 6, msg_type: 'widget', content, audience_user_ids: [1, 4, 6] };
    const deliveries = eventsOf(added, 57, 1);
    expect(deliveries).toEqual([
      { user_ids: [1, 4, 6], event: { type: 'submessage', msg_type: 'widget', message_id: 42, submessage_id: 57, sender_id: 6, content } },
    ]);
    expect(ClientEvent.parse(deliveries[0]!.event)).toEqual(deliveries[0]!.event);
  });
});
