/**
 * A multipart upload (`file` part) over XMLHttpRequest, for its upload progress events, which fetch
 * lacks; same rules as api.ts: the session cookie, the CSRF token, the server's message on failure.
 */
import { ApiError, errorFrom } from './api-error.js';
import { csrfToken, sessionExpired } from './session.js';

export function upload<T>(path: string, file: File, onProgress: (sent: number, total: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.setRequestHeader('Accept', 'application/json');
    const token = csrfToken();
    if (token !== undefined) xhr.setRequestHeader('X-CSRF-Token', token);
    xhr.upload.onprogress = (e) => { onProgress(e.loaded, e.lengthComputable ? e.total : file.size); };
    xhr.onerror = () => { reject(new ApiError(0, 'The upload failed: the server cannot be reached.')); };
    xhr.onabort = () => { reject(new ApiError(0, 'The upload was cancelled.')); };
    xhr.onload = () => {
      let body: unknown = xhr.responseText;
      try {
        body = xhr.responseText === '' ? undefined : JSON.parse(xhr.responseText) as unknown;
      } catch {
        // keep the text
      }
      if (xhr.status === 401) sessionExpired();
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as T);
      else reject(errorFrom(xhr.status, xhr.statusText, body));
    };
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}
