/** The few HTTP helpers the bench lines drive the server with. */
export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
export const narrowQuery = (narrow: unknown[]) => encodeURIComponent(JSON.stringify(narrow));

/** A request that must succeed: anything but a `success` reply stops the bench. */
export async function http(url: string, init: RequestInit = {}): Promise<Record<string, any>> {
  const response = await fetch(url, init);
  const json = (await response.json()) as Record<string, any>;
  if (!response.ok || json.result !== 'success') throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** A user's credentials and ids, as the lines need them. */
export interface Person {
  authorization: string;
  user_id: number;
}
