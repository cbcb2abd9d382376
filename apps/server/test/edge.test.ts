import { edgeSuite } from './edge-suite';
import { startEmbedded, tempDataDir } from './harness';

edgeSuite('embedded', (env) => startEmbedded(tempDataDir(), env));
