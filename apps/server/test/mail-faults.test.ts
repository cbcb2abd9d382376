/**
 * The mail fault-injection suite (mail-faults-suite.ts) in both modes: the embedded server
 * in this process, and the distributed one (every service its own process over a real
 * nats-server, from the compiled output: run `npx tsc -b` first).
 */
import { describeWithNats } from '@teamchat/platform/testing';
import { startDistributed, startEmbedded, tempDataDir } from './harness';
import { mailFaultsSuite } from './mail-faults-suite';

mailFaultsSuite('embedded', (env) => startEmbedded(tempDataDir(), env));

describeWithNats('distributed mode', () => {
  mailFaultsSuite('distributed', (env) => startDistributed(env));
});
