/** The authenticated caller, as the gateway passes it to services with every request. */
export interface Actor {
  user_id: number;
  email: string;
  full_name: string;
  role: number;
  is_bot: boolean;
  /** Client name from the User-Agent (e.g. "ZulipMobile"), used for `client` on messages. */
  client: string;
}
