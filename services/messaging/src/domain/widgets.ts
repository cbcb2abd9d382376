/**
 * Widgets (polls and to-do lists): which widget a message's content makes when it is sent,
 * what the message's own stream says of its widget, and whether a submessage's content is
 * one its widget takes. Pure.
 *
 * The content schemas and option keys are Zulip's, as its clients replay submessages:
 * a poll option's key is `<sender id>,<idx>` (`canned,<i>` for the options the message was
 * sent with); a task's key is `<idx>,<sender id>` (`<i>,canned`). An option or task whose
 * text is already on the widget is ignored by the clients, so it gets no key here either.
 */
import { badRequest, WIDGET_MSG_TYPE, type FactOf, type Widget } from '@teamchat/contracts';

/** Zulip's bound on the idx a client gives the options or tasks it adds. */
export const MAX_WIDGET_IDX = 1000;

// Python's str.splitlines() boundaries, which Zulip splits the content on.
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;
// One leading list marker ("- ", "* "), which Zulip drops from an option or task.
const LIST_MARKER = /^\s*[-*]?\s*/;

function lines(text: string): { first: string; rest: string[] } {
  const all = text.split(LINE_BREAK);
  // The first line (what follows the command) is the question or title when not empty.
  const first = all[0] ?? '';
  return first ? { first: first.trim(), rest: all.slice(1) } : { first: '', rest: all };
}

const items = (rest: string[]) => rest.map((line) => line.trim().replace(LIST_MARKER, '')).filter((item) => item.length > 0);

/**
 * The widget a message's content makes, as Zulip reads it: the first word is exactly
 * `/poll` or `/todo`; the rest of its line is the question (title), and each following
 * non-empty line an option (a task, `task: description`). Only sending makes widgets.
 */
export function widgetOf(content: string): Widget | undefined {
  const command = content.split(/\s+/)[0] ?? '';
  if (command !== '/poll' && command !== '/todo') return undefined;
  const { first, rest } = lines(content.slice(command.length));
  if (command === '/poll') return { widget_type: 'poll', extra_data: { question: first, options: items(rest) } };
  const tasks = items(rest).map((item) => {
    const at = item.indexOf(': ');
    return at < 0 ? { task: item.trim(), desc: '' } : { task: item.slice(0, at).trim(), desc: item.slice(at + 2).trim() };
  });
  return { widget_type: 'todo', extra_data: { task_list_title: first, tasks } };
}

/** What a message's stream says of its widget: who made it and the keys its submessages may name. */
export interface WidgetState {
  widget_type: Widget['widget_type'];
  author_id: number;
  /** Option (poll) or task (todo) key → its text. */
  keys: Map<string, string>;
}

export function initialWidgetState(fact: FactOf<'MessageSent'>): WidgetState | null {
  if (!fact.widget) return null;
  const state: WidgetState = { widget_type: fact.widget.widget_type, author_id: fact.sender_id, keys: new Map() };
  if (fact.widget.widget_type === 'poll') fact.widget.extra_data.options.forEach((option, i) => addKey(state, `canned,${i}`, option));
  else fact.widget.extra_data.tasks.forEach((task, i) => addKey(state, `${i},canned`, task.task));
  return state;
}

function addKey(state: WidgetState, key: string, text: string): void {
  for (const existing of state.keys.values()) if (existing === text) return;
  state.keys.set(key, text);
}

/** The widget after a submessage the decider accepted. */
export function evolveWidget(state: WidgetState, fact: FactOf<'SubmessageAdded'>): WidgetState {
  if (fact.msg_type !== WIDGET_MSG_TYPE) return state;
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(fact.content) as Record<string, unknown>;
  } catch {
    return state;
  }
  if (state.widget_type === 'poll' && data.type === 'new_option') {
    const next = { ...state, keys: new Map(state.keys) };
    addKey(next, `${fact.sender_id},${data.idx as number}`, data.option as string);
    return next;
  }
  if (state.widget_type === 'todo' && data.type === 'new_task') {
    const next = { ...state, keys: new Map(state.keys) };
    addKey(next, `${data.key as number},${fact.sender_id}`, data.task as string);
    return next;
  }
  return state;
}

type Field = 'string' | 'boolean' | 'vote' | 'idx';

function checkField(what: string, data: Record<string, unknown>, name: string, kind: Field): void {
  const value = data[name];
  if (value === undefined) throw badRequest(`${what} needs "${name}"`);
  switch (kind) {
    case 'string':
      if (typeof value !== 'string') throw badRequest(`${what}: "${name}" must be a string`);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') throw badRequest(`${what}: "${name}" must be true or false`);
      return;
    case 'vote':
      if (value !== 1 && value !== -1) throw badRequest(`${what}: "${name}" must be 1 or -1`);
      return;
    case 'idx':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw badRequest(`${what}: "${name}" must be an integer`);
      if (value < 0 || value > MAX_WIDGET_IDX) throw badRequest(`${what}: "${name}" must be from 0 to ${MAX_WIDGET_IDX}`);
  }
}

/** Exactly these members (besides `type`), each of its kind: Zulip takes no others. */
function checkShape(what: string, data: Record<string, unknown>, fields: Record<string, Field>): void {
  const unexpected = Object.keys(data).filter((key) => key !== 'type' && !Object.hasOwn(fields, key));
  if (unexpected.length > 0) throw badRequest(`${what}: unexpected ${unexpected.map((k) => `"${k}"`).join(', ')}`);
  for (const [name, kind] of Object.entries(fields)) checkField(what, data, name, kind);
}

/**
 * Refuses a submessage its widget does not take; `sender_id` is who sends it. Votes and
 * strikes must name an option or task the widget has; only the widget's author may
 * change the question or the title (as Zulip's clients apply them).
 */
export function checkWidgetSubmessage(widget: WidgetState, sender_id: number, content: string): void {
  let data: unknown;
  try {
    data = JSON.parse(content);
  } catch {
    throw badRequest('Invalid json for submessage');
  }
  const what = `${widget.widget_type} data`;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw badRequest(`${what} must be a JSON object`);
  const fields = data as Record<string, unknown>;
  checkField(what, fields, 'type', 'string');
  const type = fields.type as string;
  const isAuthor = sender_id === widget.author_id;
  const known = (key: unknown) => typeof key === 'string' && widget.keys.has(key);
  if (widget.widget_type === 'poll') {
    switch (type) {
      case 'vote':
        checkShape(what, fields, { key: 'string', vote: 'vote' });
        if (!known(fields.key)) throw badRequest(`This poll has no option ${JSON.stringify(fields.key)}`);
        return;
      case 'question':
        if (!isAuthor) throw badRequest("Only the poll's author may edit its question.");
        checkShape(what, fields, { question: 'string' });
        return;
      case 'new_option':
        checkShape(what, fields, { option: 'string', idx: 'idx' });
        return;
    }
  } else {
    switch (type) {
      case 'new_task':
        checkShape(what, fields, { key: 'idx', task: 'string', desc: 'string', completed: 'boolean' });
        return;
      case 'strike':
        checkShape(what, fields, { key: 'string' });
        if (!known(fields.key)) throw badRequest(`This to-do list has no task ${JSON.stringify(fields.key)}`);
        return;
      case 'new_task_list_title':
        if (!isAuthor) throw badRequest("Only the to-do list's author may edit its title.");
        checkShape(what, fields, { title: 'string' });
        return;
    }
  }
  throw badRequest(`Unknown type for ${what}: ${type}`);
}
