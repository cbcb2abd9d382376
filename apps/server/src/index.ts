export { startEmbeddedServer, startEmbeddedServices, type EmbeddedServer } from './embedded';
export { seedDevelopmentOrganization } from './seed';
