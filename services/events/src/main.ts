import { runServiceProcess } from '@teamchat/platform';
import { startEventsService } from './service';

void runServiceProcess('events', startEventsService);
