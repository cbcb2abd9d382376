import { runServiceProcess } from '@teamchat/platform';
import { startAccountsService } from './service';

// Accounts sends the mail (invitations, email changes, welcome): it warns at start when production mail goes nowhere.
void runServiceProcess('accounts', startAccountsService, { sendsMail: true });
