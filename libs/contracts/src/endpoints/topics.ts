/** A channel's topics: messaging's, as it holds the messages. */
import { z } from 'zod';
import { endpoint } from './contract';

const int = () => z.number().int();

export const channelTopicsEndpoints = {
  getChannelTopics: endpoint({
    service: 'messaging',
    subject: 'messaging.get_channel_topics',
    http: { method: 'GET', path: '/users/me/{stream_id}/topics', wireNames: { stream_id: 'channel_id' } },
    auth: true,
    params: z.object({ channel_id: int(), allow_empty_topic_name: z.boolean().default(false) }),
    /** Most recent topic first; `max_id` is the topic's latest message the user may see. */
    reply: z.object({ topics: z.array(z.object({ name: z.string(), max_id: int() })) }),
  }),
};
