/**
 * Widgets (polls and to-do lists), as Zulip keeps them: a message whose content starts
 * with `/poll` or `/todo` gets a first submessage, of `msg_type` "widget", holding the
 * widget's type and initial data; every later change (a vote, a new option, a task struck)
 * is another submessage on the same message, which each client replays in order.
 */
import { z } from 'zod';

/** The widget types a message's content may start with (`/poll`, `/todo`). */
export const WIDGET_TYPES = ['poll', 'todo'] as const;
export type WidgetType = (typeof WIDGET_TYPES)[number];

/** The only submessage type Zulip has ever had. */
export const WIDGET_MSG_TYPE = 'widget';

export const PollExtraData = z.object({ question: z.string(), options: z.array(z.string()) });
export const TodoExtraData = z.object({
  task_list_title: z.string(),
  tasks: z.array(z.object({ task: z.string(), desc: z.string() })),
});

/** A widget as its message was sent with it: the first submessage's content. */
export const Widget = z.discriminatedUnion('widget_type', [
  z.object({ widget_type: z.literal('poll'), extra_data: PollExtraData }),
  z.object({ widget_type: z.literal('todo'), extra_data: TodoExtraData }),
]);
export type Widget = z.infer<typeof Widget>;

/** A submessage as a message lists it (`submessages`, oldest first). */
export interface MessageSubmessage {
  id: number;
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

/**
 * The JSON a widget's first submessage holds. Built member by member, so that the read
 * model, the `message` event and a rebuild all write the same string for the same fact.
 */
export function widgetContent(widget: Widget): string {
  const extra_data =
    widget.widget_type === 'poll'
      ? { question: widget.extra_data.question, options: [...widget.extra_data.options] }
      : { task_list_title: widget.extra_data.task_list_title, tasks: widget.extra_data.tasks.map((t) => ({ task: t.task, desc: t.desc })) };
  return JSON.stringify({ widget_type: widget.widget_type, extra_data });
}

/**
 * The widget's submessage of a message sent with one. It has no fact of its own (it is
 * part of MessageSent), so it takes the message's id: ids of later submessages are the
 * positions of their facts, all above it, and a message's submessages sort by id.
 */
export function widgetSubmessage(messageId: number, senderId: number, widget: Widget): MessageSubmessage {
  return { id: messageId, message_id: messageId, sender_id: senderId, msg_type: WIDGET_MSG_TYPE, content: widgetContent(widget) };
}
