/**
 * Ids of facts and of the streams created per entity (one per message): time-ordered
 * UUIDs (version 7), so that each new one sorts after the last. The event store indexes
 * both; random (version 4) ids would land anywhere in those indexes and make every commit
 * rewrite pages all over them, which costs more the larger the store grows.
 */
import { v7 } from 'uuid';

export const newId = (): string => v7();
