// What the page knows about the broker across views: /api/overview's console settings, which
// decide whether write forms are shown at all.

let overview = null;

export function setOverview(o) {
  overview = o;
}

export function registryOff() {
  return !!overview && overview.schema_registry === false;
}

export function writable() {
  return !!(overview && overview.console && overview.console.read_only === false);
}
