import { runServiceProcess } from '@teamchat/platform';
import { startAccountsService } from './service';

void runServiceProcess('accounts', startAccountsService);
