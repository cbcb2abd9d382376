/**
 * Who loses messages moved into a channel: into a private one, whoever holds them but is
 * not subscribed there, since they could not see them; into a public one, nobody.
 */
export function revokedByMove(destination: { invite_only: boolean }, holderIds: number[], subscriberIds: number[]): number[] {
  if (!destination.invite_only) return [];
  const subscribers = new Set(subscriberIds);
  return [...new Set(holderIds)].filter((id) => !subscribers.has(id));
}
