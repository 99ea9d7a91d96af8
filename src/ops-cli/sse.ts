/** Server-Sent Events from a byte stream: yields each event's name (`message` when it has none). */

export async function* sseEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end).split('\n').filter((l) => l !== '' && !l.startsWith(':'));
      buffer = buffer.slice(end + 2);
      if (block.length === 0) continue; // a comment (keep-alive)
      const named = block.find((l) => l.startsWith('event:'));
      yield named === undefined ? 'message' : named.slice('event:'.length).trim();
    }
  }
}
