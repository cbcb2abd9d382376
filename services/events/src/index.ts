export { startEventsService } from './service';
