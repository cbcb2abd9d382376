import { apiSuite } from './api-suite';
import { messagingSuite } from './messaging-suite';
import { startEmbedded } from './harness';

apiSuite('embedded', () => startEmbedded());

messagingSuite('embedded', () => startEmbedded());
