import { InProcessBus, busContract } from '@teamchat/platform';

busContract('InProcessBus', async () => {
  const bus = new InProcessBus();
  return { bus, cleanup: () => bus.close() };
});
