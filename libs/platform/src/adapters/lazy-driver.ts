/**
 * Drivers loaded on their first use rather than when their adapter is imported. The
 * platform's entry exports every adapter, and the drivers of the distributed engines
 * (MongoDB's, EventStoreDB's gRPC client), of NATS and of SMTP took about a third of a
 * second of every process's and every service thread's start, in modes that mostly use
 * none of them (the embedded mode, most tests). Their types are imported as types only.
 */
function lazyDriver<T>(load: () => T): () => T {
  let driver: T | undefined;
  return () => (driver ??= load());
}

export const mongodbDriver = lazyDriver(() => require('mongodb') as typeof import('mongodb'));
export const esdbDriver = lazyDriver(() => require('@eventstore/db-client') as typeof import('@eventstore/db-client'));
export const natsDriver = lazyDriver(() => require('nats') as typeof import('nats'));
export const nodemailerDriver = lazyDriver(() => require('nodemailer') as typeof import('nodemailer'));
