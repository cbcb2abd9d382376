import { apiSuite } from './api-suite';
import { channelsSuite } from './channels-suite';
import { convergenceSuite } from './convergence-suite';
import { edgeSuite } from './edge-suite';
import { ephemeralSuite } from './ephemeral-suite';
import { messagingSuite } from './messaging-suite';
import { narrowsSuite } from './narrows-suite';
import { registerSuite } from './register-suite';
import { startEmbedded, tempDataDir } from './harness';

apiSuite('embedded', () => startEmbedded());

messagingSuite('embedded', () => startEmbedded());

narrowsSuite('embedded', () => startEmbedded());

channelsSuite('embedded', () => startEmbedded());

registerSuite('embedded', () => startEmbedded());

ephemeralSuite('embedded', () => startEmbedded());

edgeSuite('embedded', (env) => startEmbedded(tempDataDir(), env));

convergenceSuite('embedded', () => startEmbedded());
