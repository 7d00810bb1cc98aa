// The console's only way to the broker: fetch on the same origin, JSON both ways, errors in the
// API's {"error_code", "message"} shape turned into ApiError with that message.

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

export function apiPath(...parts) {
  return '/api/' + parts.map((p) => encodeURIComponent(String(p))).join('/');
}

export async function request(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, `the broker did not answer (${e.message})`);
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = data && typeof data.message === 'string' ? data.message : `HTTP ${response.status}`;
    throw new ApiError(response.status, message, data);
  }
  if (data === null && text) throw new ApiError(response.status, 'the broker answered something other than JSON');
  return data;
}

export const get = (path) => request('GET', path);
