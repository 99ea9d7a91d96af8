/**
 * A DMF target's address: `amqp://<virtual host>/<reply-to exchange>`, both percent-encoded (the
 * default virtual host `/` reads `%2F`), as hawkBit builds it from the THING_CREATED `reply_to` and
 * the connector's virtual host. It is what the Management API shows as `address`, and where
 * peregrine publishes the target's messages.
 * @see reference/hawkbit-api.md §9 (reply_to); spec 2.3 (address)
 */

interface AmqpAddress {
  readonly vhost: string;
  readonly exchange: string;
}

export function formatAmqpAddress(a: AmqpAddress): string {
  return `amqp://${encodeURIComponent(a.vhost)}/${encodeURIComponent(a.exchange)}`;
}

/** The virtual host and exchange of an `amqp://` address; undefined for anything else (http://, null, junk). */
export function parseAmqpAddress(address: string | null | undefined): AmqpAddress | undefined {
  if (address == null || !address.startsWith('amqp://')) return undefined;
  const rest = address.slice('amqp://'.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  try {
    return { vhost: decodeURIComponent(rest.slice(0, slash)), exchange: decodeURIComponent(rest.slice(slash + 1)) };
  } catch {
    return undefined;
  }
}

export function isAmqpAddress(address: string | null | undefined): address is string {
  return parseAmqpAddress(address) !== undefined;
}
