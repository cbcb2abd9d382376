import { runServiceProcess } from '@teamchat/platform';
import { startChannelsService } from './service';

void runServiceProcess('channels', startChannelsService);
