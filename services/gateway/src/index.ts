export { buildGateway, API_PREFIX } from './server';
export { openApiDocument, type OpenApiDocument } from './openapi/document';
export { routes, type Route } from './routes';
export { serviceBudgetMs } from './http/request-budget';
