/**
 * `npm start`: the embedded server. Development mode (the default) seeds the
 * development organization on first start; TEAMCHAT_MODE=production seeds nothing.
 */
import { createLogger, describeMailTransport, developmentOutboxDir, exitOnStartupFailure, loadConfigOrExplain } from '@teamchat/platform';
import { startEmbeddedServer } from './embedded';

async function main() {
  const log = createLogger('teamchat');
  const config = loadConfigOrExplain();
  const port = Number(process.env.PORT ?? 9991);
  const server = await startEmbeddedServer(config, log, { host: process.env.HOST ?? '127.0.0.1', port });
  const api = `${server.url}/api/v1`;
  // Mail that only lands in the outbox of a production server reaches nobody: say so once.
  if (config.mode === 'production' && config.mail.transport.kind === 'outbox') {
    log.warn({ mail: describeMailTransport(config.mail) }, 'TEAMCHAT_SMTP_HOST is not set: emails are written to the outbox, not delivered');
  }
  process.stdout.write(
    [
      '',
      `Team chat server (${config.mode} mode) listening on ${server.url}`,
      `API: ${api}    data: ${config.dataDir}`,
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

// A refused configuration (a data directory open to others in production, say) is one
// line for the operator; anything else is a bug and keeps its stack.
main().catch((err: unknown) => exitOnStartupFailure('teamchat', err));
