// Talking to the server's JSON API. Errors carry the server's message, meant for people.

export class ApiError extends Error {
  constructor(message, kind, status) {
    super(message);
    this.kind = kind;
    this.status = status;
  }
}

export async function getJSON(url) {
  let response;
  try {
    response = await fetch(url, { headers: { Accept: "application/json" } });
  } catch (e) {
    throw new ApiError("cannot reach the Arbiter server (is it still running?)", "network", 0);
  }
  if (!response.ok) {
    let body = null;
    try {
      body = await response.json();
    } catch (e) {
      // Not one of ours (a proxy's page, or axum's own rejection text).
    }
    const message = body && body.error ? body.error : `the server answered ${response.status}`;
    throw new ApiError(message, body && body.kind, response.status);
  }
  return response.json();
}

export const enc = encodeURIComponent;
