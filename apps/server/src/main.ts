/**
 * `npm start`: the embedded server. Development mode (the default) seeds the
 * development organization on first start; TEAMCHAT_MODE=production seeds nothing.
 *
 * A start fails before it writes anything when it can: every setting is checked, then the
 * port is bound, then the data directory is prepared (created private, checked writable)
 * and locked; each refusal is one line naming what to change.
 */
import {
  createLogger,
  describeMailTransport,
  developmentOutboxDir,
  exitOnStartupFailure,
  loadSettingsOrExplain,
  prepareDataDirectoryOrExplain,
  reservePort,
  warnIfMailGoesNowhere,
} from '@teamchat/platform';
import { startEmbeddedServer } from './embedded';

async function main() {
  const log = createLogger('teamchat');
  const settings = loadSettingsOrExplain();
  const port = await reservePort(settings.listen);
  let config;
  try {
    config = prepareDataDirectoryOrExplain(settings);
  } catch (err) {
    await port.release();
    throw err;
  }
  // The listener comes up first; the banner below once every service serves.
  const server = await startEmbeddedServer(config, log, port, (url) =>
    process.stdout.write(`Listening on ${url} while the services catch up with the stored history (503 until ready; GET ${url}/health/ready)\n`),
  );
  const api = `${server.url}/api/v1`;
  warnIfMailGoesNowhere(config, log);
  const dataDirNote = process.env.TEAMCHAT_DATA_DIR ? '' : ' (TEAMCHAT_DATA_DIR not set: ./data of the current directory)';
  process.stdout.write(
    [
      '',
      `Team chat server (${config.mode} mode) listening on ${server.url}`,
      `API: ${api}    data: ${config.dataDir}${dataDirNote}`,
      `Organization address (links in mail, realm_uri): ${server.realmUri}`,
      ...(config.mode === 'development'
        ? [
            'Get an API key for a development user:',
            `  curl -s -X POST ${api}/dev_fetch_api_key -d username=member@example.com`,
            `Then: curl -u member@example.com:<api_key> '${api}/messages?anchor=newest&num_before=20&num_after=0'`,
            ...(developmentOutboxDir(config) ? [`Emails the server sends are listed at ${server.url}/emails`] : [`Email: ${describeMailTransport(config.mail)}`]),
          ]
        : ['Create the organization with: npm run create-organization -- --help']),
      '',
    ].join('\n'),
  );
  const stop = async () => {
    await server.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

// A refused start (a setting, the port, the data directory, its lock, the store's mode) is
// one line for the operator; anything else is a bug, whose stack LOG_LEVEL=debug shows.
main().catch((err: unknown) => exitOnStartupFailure('teamchat', err));
