import { runServiceProcess } from '@teamchat/platform';
import { startMessagingService } from './service';

void runServiceProcess('messaging', startMessagingService);
