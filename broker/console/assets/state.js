// What the page knows about the broker across views: /api/overview's console settings, which
// decide whether write forms are shown at all.

let overview = null;

export function setOverview(o) {
  overview = o;
}

export function writable() {
  return !!(overview && overview.console && overview.console.read_only === false);
}
