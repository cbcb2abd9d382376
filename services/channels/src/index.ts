export { startChannelsService } from './service';
