import { apiSuite } from './api-suite';
import { channelsSuite } from './channels-suite';
import { messagingSuite } from './messaging-suite';
import { narrowsSuite } from './narrows-suite';
import { startEmbedded } from './harness';

apiSuite('embedded', () => startEmbedded());

messagingSuite('embedded', () => startEmbedded());

narrowsSuite('embedded', () => startEmbedded());

channelsSuite('embedded', () => startEmbedded());
