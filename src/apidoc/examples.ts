/**
 * The worked examples of the API reference: real requests and the replies a server gave them
 * (recorded by scripts/api-examples.mjs into examples.generated.ts), attached to their operations as
 * OpenAPI examples: the request body under `requestBody`, the reply under its status. The request's
 * URL names the example, so a reader sees the concrete call next to the path template.
 */
export interface ApiExample {
  readonly method: string;
  /** The OpenAPI path template of the operation (`/rest/v1/targets/{targetId}`). */
  readonly path: string;
  readonly request: { readonly url: string; readonly body?: unknown; readonly multipart?: readonly string[] };
  readonly response: { readonly status: number; readonly body?: unknown };
}

type Operation = Record<string, unknown>;
type Content = Record<string, { schema?: unknown; examples?: Record<string, unknown> }>;

/** Adds each example to its operation in `paths` (examples of operations not in it are left out). */
export function attachExamples(paths: Record<string, Record<string, Operation>>, examples: readonly ApiExample[]): void {
  for (const ex of examples) {
    const op = paths[ex.path]?.[ex.method.toLowerCase()];
    if (op === undefined) continue;
    const summary = `${ex.method} ${ex.request.url}`;
    const body = op['requestBody'] as { content?: Content } | undefined;
    if (body?.content !== undefined && (ex.request.body !== undefined || ex.request.multipart !== undefined)) {
      const [media] = Object.values(body.content);
      const value = ex.request.body ?? Object.fromEntries((ex.request.multipart ?? []).map((name) => [name, '(file)']));
      if (media !== undefined) media.examples = { [summary]: { summary, value } };
    }
    const reply = (op['responses'] as Record<string, { content?: Content }> | undefined)?.[String(ex.response.status)];
    if (reply?.content !== undefined && ex.response.body !== undefined) {
      const example = { summary: `${summary} -> ${ex.response.status}`, value: ex.response.body };
      for (const media of Object.values(reply.content)) media.examples = { [summary]: example };
    }
  }
}
