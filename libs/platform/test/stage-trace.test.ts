import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * The stage trace's garbage-collection lines (issue 18: a pause under load is one of the
 * things a slow request waits for): with TEAMCHAT_TRACE_STAGES=1, a collection of the
 * thread is written as `stage-trace <ms> <thread> gc.start <kind> <duration ms>`; off, nothing.
 */
describe('stage trace', () => {
  const saved = process.env.TEAMCHAT_TRACE_STAGES;
  // Each load of the module in isolation; its observer, if any, is stopped after the test.
  const loaded: { stopTracingGc(): void }[] = [];
  afterEach(() => {
    for (const stageTrace of loaded.splice(0)) stageTrace.stopTracingGc();
    if (saved === undefined) delete process.env.TEAMCHAT_TRACE_STAGES;
    else process.env.TEAMCHAT_TRACE_STAGES = saved;
    jest.restoreAllMocks();
  });

  async function linesAfterMajorGc(setting: string | undefined): Promise<string[]> {
    if (setting === undefined) delete process.env.TEAMCHAT_TRACE_STAGES;
    else process.env.TEAMCHAT_TRACE_STAGES = setting;
    const written: string[] = [];
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    jest.isolateModules(() => {
      loaded.push(require('../src/kit/stage-trace') as { stopTracingGc(): void });
    });
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
    // Observers are told after the collection, in a later turn.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return written.filter((line) => line.includes(' gc.start '));
  }

  // First: an observer, once started, watches its thread until stopped.
  it('writes none when off', async () => {
    expect(await linesAfterMajorGc(undefined)).toEqual([]);
  });

  it('writes a line per garbage collection when on', async () => {
    const lines = await linesAfterMajorGc('1');
    expect(lines.some((line) => /^stage-trace \d+\.\d{3} \d+ gc\.start major \d+\.\d{3}\n$/.test(line))).toBe(true);
  });

  it('writes none once stopped (the test runner goes on to other files in this process)', async () => {
    const written: string[] = [];
    await linesAfterMajorGc('1');
    for (const stageTrace of loaded.splice(0)) stageTrace.stopTracingGc();
    (process.stderr.write as unknown as jest.Mock).mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    (runInNewContext('gc') as () => void)();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(written.filter((line) => line.includes(' gc.start '))).toEqual([]);
  });
});
