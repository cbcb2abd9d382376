import { describe, expect, it } from '@jest/globals';
import { widgetContent, widgetSubmessage, type FactOf, type Widget } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import { decideEditMessage, decideSubmessage, evolveMessage, initialMessage, type EditCommand, type MessageState, type SubmessageCommand } from '../src/domain/message-changes';
import { widgetOf } from '../src/domain/widgets';
import { NO_CUSTOM_GROUPS } from '@teamchat/policies';
import { applyFact, SqliteReadModelStore } from '@teamchat/platform';
import { MessagesReadModel } from '../src/projections/messages';
import { messagesProjection } from '../src/projections/messages-projection';

// ---------------------------------------------------------------------------------------
// Which widget a message's content makes (Zulip's /poll and /todo syntax).
// ---------------------------------------------------------------------------------------

describe('widgetOf', () => {
  it('reads a poll: the question on the command line, one option per following line', () =>
    expect(widgetOf('/poll Lunch where?\nPizza\n- Sushi\n* Salad\n\n  Tacos  ')).toEqual({
      widget_type: 'poll',
      extra_data: { question: 'Lunch where?', options: ['Pizza', 'Sushi', 'Salad', 'Tacos'] },
    }));

  it('reads a poll with no question and no options', () =>
    expect(widgetOf('/poll')).toEqual({ widget_type: 'poll', extra_data: { question: '', options: [] } }));

  it('reads a poll whose question is left empty', () =>
    expect(widgetOf('/poll\nyes\nno')).toEqual({ widget_type: 'poll', extra_data: { question: '', options: ['yes', 'no'] } }));

  it('reads a to-do list: the title, then tasks with a description after ": "', () =>
    expect(widgetOf('/todo Release\n- Tag it: on main\nAnnounce\r\nShip: now: really')).toEqual({
      widget_type: 'todo',
      extra_data: {
        task_list_title: 'Release',
        tasks: [
          { task: 'Tag it', desc: 'on main' },
          { task: 'Announce', desc: '' },
          { task: 'Ship', desc: 'now: really' },
        ],
      },
    }));

  it.each(['hello /poll', ' /poll x', '/polls x', '/Poll x', '/rsvp', '/me waves', 'poll'])('makes no widget of %j', (content) =>
    expect(widgetOf(content)).toBeUndefined());

  it('serializes the widget as Zulip clients parse it (widget_type and extra_data)', () => {
    const widget = widgetOf('/poll Q\nA')!;
    expect(JSON.parse(widgetContent(widget))).toEqual({ widget_type: 'poll', extra_data: { question: 'Q', options: ['A'] } });
    expect(widgetSubmessage(42, 4, widget)).toEqual({ id: 42, message_id: 42, sender_id: 4, msg_type: 'widget', content: widgetContent(widget) });
  });
});

// ---------------------------------------------------------------------------------------
// Submessages: the message's own stream (its widget and the submessages so far) is the state.
// ---------------------------------------------------------------------------------------

const submessages = deciderSpec<MessageState, SubmessageCommand>({
  initial: initialMessage,
  evolve: evolveMessage,
  decide: (cmd, state) => decideSubmessage(state, cmd),
});

const AUTHOR = 4;
const READER = 5;
const audience = [4, 5, 6];

const sent = (widget?: Widget, content = 'the message'): FactOf<'MessageSent'> => ({
  type: 'MessageSent',
  sender_id: AUTHOR,
  sender_email: 'member@example.com',
  sender_full_name: 'Mary Member',
  recipient: { type: 'channel', channel_id: 10, channel_name: 'general', topic: 'lunch' },
  content,
  rendered_content: `<p>${content}</p>`,
  is_me_message: false,
  client: 'test',
  recipient_id: 7,
  timestamp: 1_700_000_000,
  recipient_user_ids: audience,
  mentioned_user_ids: [],
  wildcard_mentioned_user_ids: [],
  read_by_sender: true,
  local_echo: null,
  ...(widget ? { widget } : {}),
});
const poll = sent(widgetOf('/poll Lunch?\nPizza\nSushi\nPizza'), '/poll Lunch?\nPizza\nSushi\nPizza');
const todo = sent(widgetOf('/todo Chores\nDishes: tonight\nLaundry'), '/todo Chores\nDishes: tonight\nLaundry');

const submessage = (data: unknown, sender_id = READER): SubmessageCommand => ({
  message_id: 42,
  sender_id,
  msg_type: 'widget',
  content: typeof data === 'string' ? data : JSON.stringify(data),
  audience_user_ids: audience,
});
const added = (data: unknown, sender_id = READER): FactOf<'SubmessageAdded'> => ({
  type: 'SubmessageAdded',
  message_id: 42,
  sender_id,
  msg_type: 'widget',
  content: typeof data === 'string' ? data : JSON.stringify(data),
  audience_user_ids: audience,
});
const deleted: FactOf<'MessageDeleted'> = { type: 'MessageDeleted', message_id: 42, deleted_by: 4, channel_id: 10, topic: 'lunch', audience_user_ids: audience };

describe('decideSubmessage on a poll', () => {
  const vote = (key: string, v = 1) => ({ type: 'vote', key, vote: v });

  it('records a vote on an option the poll was sent with, announced to the audience', () =>
    submessages.given([poll]).when(submessage(vote('canned,1'))).then([added(vote('canned,1'))]));

  it('records a vote taken back', () => submessages.given([poll, added(vote('canned,0'))]).when(submessage(vote('canned,0', -1))).then([added(vote('canned,0', -1))]));

  it('records a new option from any reader, and then votes on it', () => {
    const option = { type: 'new_option', option: 'Tacos', idx: 1 };
    submessages.given([poll]).when(submessage(option)).then([added(option)]);
    submessages.given([poll, added(option)]).when(submessage(vote(`${READER},1`), 6)).then([added(vote(`${READER},1`), 6)]);
  });

  it('lets the author edit the question', () =>
    submessages.given([poll]).when(submessage({ type: 'question', question: 'Dinner?' }, AUTHOR)).then([added({ type: 'question', question: 'Dinner?' }, AUTHOR)]));

  it('refuses a question edit by anyone else', () =>
    submessages.given([poll]).when(submessage({ type: 'question', question: 'Dinner?' })).thenThrows({ code: 'BAD_REQUEST', msg: "Only the poll's author may edit its question." }));

  it.each([
    ['a vote on an option that does not exist', vote('canned,5'), 'This poll has no option "canned,5"'],
    ['a vote on a duplicate option the clients ignore', vote('canned,2'), 'This poll has no option "canned,2"'],
    ['a vote on an option of a user who added none', vote('6,1'), 'This poll has no option "6,1"'],
    ['a vote of 2', vote('canned,0', 2), 'poll data: "vote" must be 1 or -1'],
    ['a vote without its key', { type: 'vote', vote: 1 }, 'poll data needs "key"'],
    ['a vote with a member Zulip does not take', { ...vote('canned,0'), extra: true }, 'poll data: unexpected "extra"'],
    ['a new option without idx', { type: 'new_option', option: 'x' }, 'poll data needs "idx"'],
    ['a new option with idx out of range', { type: 'new_option', option: 'x', idx: 1001 }, 'poll data: "idx" must be from 0 to 1000'],
    ['a new option with a fractional idx', { type: 'new_option', option: 'x', idx: 1.5 }, 'poll data: "idx" must be an integer'],
    ['a new option whose text is not a string', { type: 'new_option', option: 3, idx: 1 }, 'poll data: "option" must be a string'],
    ['a to-do type on a poll', { type: 'strike', key: '0,canned' }, 'Unknown type for poll data: strike'],
    ['no type', { key: 'canned,0' }, 'poll data needs "type"'],
    ['a type that is not a string', { type: 1 }, 'poll data: "type" must be a string'],
    ['an array', [1, 2], 'poll data must be a JSON object'],
    ['a JSON string', '"vote"', 'poll data must be a JSON object'],
    ['text that is not JSON', '{vote', 'Invalid json for submessage'],
  ])('refuses %s', (_, data, msg) => submessages.given([poll]).when(submessage(data)).thenThrows({ code: 'BAD_REQUEST', msg }));
});

describe('decideSubmessage on a to-do list', () => {
  const strike = (key: string) => ({ type: 'strike', key });
  const task = { type: 'new_task', key: 2, task: 'Vacuum', desc: '', completed: false };

  it('strikes a task the list was sent with', () => submessages.given([todo]).when(submessage(strike('1,canned'))).then([added(strike('1,canned'))]));

  it('adds a task, which can then be struck', () => {
    submessages.given([todo]).when(submessage(task)).then([added(task)]);
    submessages.given([todo, added(task)]).when(submessage(strike(`2,${READER}`), AUTHOR)).then([added(strike(`2,${READER}`), AUTHOR)]);
  });

  it('lets the author retitle the list', () =>
    submessages.given([todo]).when(submessage({ type: 'new_task_list_title', title: 'Weekend' }, AUTHOR)).then([added({ type: 'new_task_list_title', title: 'Weekend' }, AUTHOR)]));

  it.each([
    ['a retitle by anyone else', { type: 'new_task_list_title', title: 'Mine' }, "Only the to-do list's author may edit its title."],
    ['a strike of a task that does not exist', strike('9,canned'), 'This to-do list has no task "9,canned"'],
    ['a strike whose key is a number', { type: 'strike', key: 1 }, 'todo data: "key" must be a string'],
    ['a task without completed', { type: 'new_task', key: 2, task: 'x', desc: '' }, 'todo data needs "completed"'],
    ['a task whose key is a string', { ...task, key: '2' }, 'todo data: "key" must be an integer'],
    ['a vote on a to-do list', { type: 'vote', key: '0,canned', vote: 1 }, 'Unknown type for todo data: vote'],
  ])('refuses %s', (_, data, msg) => submessages.given([todo]).when(submessage(data)).thenThrows({ code: 'BAD_REQUEST', msg }));
});

describe('decideSubmessage on any message', () => {
  it('refuses a message sent without a widget, even from its sender', () => {
    submessages.given([sent()]).when(submessage({ type: 'vote', key: 'canned,0', vote: 1 })).thenThrows({ code: 'BAD_REQUEST', msg: 'You cannot attach a submessage to this message.' });
    submessages.given([sent()]).when(submessage({ type: 'vote', key: 'canned,0', vote: 1 }, AUTHOR)).thenThrows({ code: 'BAD_REQUEST', msg: 'You cannot attach a submessage to this message.' });
  });

  it('refuses a deleted message', () =>
    submessages.given([poll, deleted]).when(submessage({ type: 'vote', key: 'canned,0', vote: 1 })).thenThrows({ code: 'BAD_REQUEST', msg: 'Invalid message(s)' }));

  it('refuses a msg_type other than widget', () =>
    submessages
      .given([poll])
      .when({ ...submessage({ type: 'vote', key: 'canned,0', vote: 1 }), msg_type: 'zform' })
      .thenThrows({ code: 'BAD_REQUEST', msg: 'Invalid msg_type: only "widget" submessages exist' }));
});

// ---------------------------------------------------------------------------------------
// Editing: a widget is made only when sending, so a widget's content stays as sent.
// ---------------------------------------------------------------------------------------

describe('editing a widget message', () => {
  const edits = deciderSpec<MessageState, EditCommand>({ initial: initialMessage, evolve: evolveMessage, decide: (cmd, state) => decideEditMessage(state, cmd) });
  const edit = (fact: FactOf<'MessageSent'>, content: string): EditCommand => ({
    actor: { user_id: AUTHOR, role: 400, date_joined: 0 },
    message: {
      id: 42,
      sender_id: AUTHOR,
      timestamp: fact.timestamp,
      channel_id: 10,
      channel_name: 'general',
      recipient_id: 7,
      topic: 'lunch',
      content: fact.content,
      rendered_content: fact.rendered_content,
    },
    content: { content, rendered_content: `<p>${content}</p>`, is_me_message: false, mentioned_user_ids: [], wildcard_mentioned_user_ids: [], alert_word_user_ids: [] },
    source_grants: null,
    propagate_mode: 'change_one',
    moved_message_ids: [],
    audience_user_ids: audience,
    groups: NO_CUSTOM_GROUPS,
    now: fact.timestamp * 1000 + 1000,
  });

  it("refuses a change to a widget's content", () =>
    edits.given([poll]).when(edit(poll, 'no more poll')).thenThrows({ code: 'BAD_REQUEST', msg: 'Widgets cannot be edited.' }));

  it('edits a message into /poll text without making a widget (only sending makes one)', () => {
    const facts = decideEditMessage(evolveMessage(initialMessage(), sent()), edit(sent(), '/poll Now?\nyes'));
    expect(facts).toHaveLength(1);
    expect(facts[0]!.content?.content).toBe('/poll Now?\nyes');
    expect(evolveMessage(evolveMessage(initialMessage(), sent()), facts[0]!).widget).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------
// The read model: a message's submessages, rebuilt from its facts.
// ---------------------------------------------------------------------------------------

describe('messaging projection of submessages', () => {
  it('lists the widget first (with the message id), then each submessage by its fact position, once on replay', async () => {
    const store = SqliteReadModelStore.open(':memory:');
    const model = new MessagesReadModel(store);
    const handlers = messagesProjection(model);
    const apply = (position: number, data: FactOf<'MessageSent'> | FactOf<'SubmessageAdded'>) =>
      store.batch(() => applyFact(handlers, { id: `f${position}`, stream: 'message-a', revision: 0, position, type: data.type, data, metadata: {}, created: 0 }));
    const vote = { type: 'vote', key: 'canned,0', vote: 1 };
    await apply(42, poll);
    await apply(50, added(vote));
    await apply(50, added(vote));
    await apply(51, { ...added({ type: 'question', question: 'Dinner?' }, AUTHOR) });
    const doc = await model.messages.get(42);
    expect(doc?.submessages).toEqual([
      widgetSubmessage(42, AUTHOR, poll.widget!),
      { id: 50, message_id: 42, sender_id: READER, msg_type: 'widget', content: JSON.stringify(vote) },
      { id: 51, message_id: 42, sender_id: AUTHOR, msg_type: 'widget', content: JSON.stringify({ type: 'question', question: 'Dinner?' }) },
    ]);
    await apply(60, { ...sent(), content: 'plain' });
    expect((await model.messages.get(60))?.submessages).toEqual([]);
    await store.close();
  });
});
