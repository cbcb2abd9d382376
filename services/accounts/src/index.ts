export { startAccountsService } from './service';
