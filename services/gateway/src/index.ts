export { buildGateway, API_PREFIX } from './server';
