import { apiSuite } from './api-suite';
import { startEmbedded } from './harness';

apiSuite('embedded', () => startEmbedded());
