export { startMessagingService } from './service';
