/** Topic names as every message rule reads them. */
import { badRequest, EMPTY_TOPIC_DISPLAY_NAME, LIMITS } from '@teamchat/contracts';
import { codePointLength } from '@teamchat/policies';

/**
 * Trims and checks a topic, reading the empty topic's display name as the empty topic
 * itself (feature level 370). Throws BAD_REQUEST for null bytes or more than
 * max_topic_length code points.
 */
export function normalizeTopic(raw: string): string {
  if (raw.includes('\u0000')) throw badRequest('Topic must not contain null bytes');
  const topic = raw.trim();
  if (codePointLength(topic) > LIMITS.max_topic_length) throw badRequest(`Topic too long (limit: ${LIMITS.max_topic_length} characters)`);
  return topic === EMPTY_TOPIC_DISPLAY_NAME ? '' : topic;
}
