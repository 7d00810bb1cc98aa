// The web console in a real browser: playwright-core driving Debian's Chromium headless.
//
//   node console_browser.mjs < plan.json
//
// tests/integration/test_console_browser.py starts skiff, prepares the data with real clients
// (kcat, confluent-kafka) and runs one scenario per process with a JSON plan on stdin:
// {"scenario": "pages", "url": "http://127.0.0.1:PORT", "shots": "/dir" or null, ...}; the
// other keys are that scenario's expectations, computed by the Python side from what the
// clients saw. It prints "ok: <scenario>" and a last line "result: {json}" and exits 0, or
// prints what differed and exits 1.
//
// It selects only by the DOM contract's stable hooks (data-view, data-ready, data-field, ids:
// docs/console.md and the issue's contract), never by layout or wording.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CONSOLE_BROWSER_CHROMIUM || '/usr/bin/chromium';
const VIEW_TIMEOUT_MS = 20000;

class Mismatch extends Error {}

function check(condition, what) {
  if (!condition) throw new Mismatch(what);
}

function equal(actual, expected, what) {
  check(JSON.stringify(actual) === JSON.stringify(expected),
        `${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

// A number as a cell shows it: "1,234" or "1 234" -> 1234.
function number(text) {
  const digits = String(text).replace(/[^0-9-]/g, '');
  return digits === '' ? NaN : Number(digits);
}

// Hex however the page groups it ("ff fe", "FFFE", "ff:fe") -> "fffe".
function hex(text) {
  return String(text).toLowerCase().replace(/[^0-9a-f]/g, '');
}

// ---- one browser page with its error log -----------------------------------------------------

async function openPage(browser, plan, contextOptions = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 },
                                             ...contextOptions });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  if (process.env.CONSOLE_BROWSER_DEBUG) {
    page.on('response',
            (r) => console.log(`debug: ${r.request().method()} ${r.url()} ${r.status()}`));
  }
  page.on('dialog', async (dialog) => {
    // The delete button's confirm() is the only dialog the console opens; anything else
    // (an alert from a payload) is recorded.
    if (dialog.type() !== 'confirm') {
      problems.push(`unexpected ${dialog.type()}: ${dialog.message()}`);
    }
    await dialog.accept();
  });
  // CSP violations are console errors in Chromium too; the event names the directive.
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  return { context, page, problems };
}

async function noProblems(page, problems, what) {
  const csp = await page.evaluate(() => window.__cspViolations || []);
  equal(problems.concat(csp.map((v) => `CSP violation: ${v}`)), [], `${what}: errors in the page`);
}

function hashUrl(plan, route) {
  return `${plan.url}/#${route}`;
}

async function showView(page, plan, route, view) {
  await page.goto(hashUrl(plan, route));
  return waitView(page, view);
}

// The view rendered: data-ready "true", or "error" when its data could not be loaded (then
// what the page says is the failure, rather than a timeout).
async function waitView(page, view) {
  const main = await page.waitForSelector(
    `main#view[data-view="${view}"]:is([data-ready="true"], [data-ready="error"])`,
    { timeout: VIEW_TIMEOUT_MS });
  if (await main.getAttribute('data-ready') === 'error') {
    throw new Mismatch(`view ${view} failed to load: ${(await main.textContent()).trim()} ` +
                       `(#flash: ${(await page.textContent('#flash')) || ''})`);
  }
}

async function shot(page, plan, name) {
  if (!plan.shots) return;
  await page.screenshot({ path: path.join(plan.shots, `console-${name}.png`) });
}

async function cellText(row, field) {
  const cell = row.locator(`td[data-field="${field}"]`);
  check(await cell.count() === 1, `no td[data-field="${field}"] in the row`);
  return (await cell.textContent()) ?? '';
}

function enc(name) {
  return encodeURIComponent(name);
}

// The partition view's messages from an offset (or from the beginning).
async function loadRecords(page, from, value, format) {
  await page.selectOption('select#from', from);
  if (value !== undefined) await page.fill('input#from-value', String(value));
  if (format !== undefined) await page.selectOption('select#value-format', format);
  await page.click('button#load-records');
  await waitView(page, 'partition');
}

// ---- the scenarios -------------------------------------------------------------------------

const scenarios = {
  // Each navigation entry renders its view with no console error and no CSP violation.
  async pages(browser, plan) {
    const { page, problems } = await openPage(browser, plan);
    const response = await page.goto(`${plan.url}/`);
    equal(response.status(), 200, 'GET / status');
    const csp = response.headers()['content-security-policy'] || '';
    check(csp.includes("default-src"), `no Content-Security-Policy on the page: ${csp}`);
    await waitView(page, 'overview');
    const views = { overview: 'overview', topics: 'topics', groups: 'groups',
                    schemas: 'schemas', security: 'security' };
    for (const [nav, view] of Object.entries(views)) {
      await page.click(`nav a[data-nav="${nav}"]`);
      await waitView(page, view);
    }
    await page.click('nav a[data-nav="overview"]');
    await waitView(page, 'overview');
    for (const field of ['cluster_id', 'uptime', 'log_dir', 'size']) {
      const text = await page.textContent(`#overview [data-field="${field}"]`);
      check(text && text.trim() !== '', `overview field ${field} is empty`);
    }
    equal(await page.textContent('#overview [data-field="cluster_id"]').then((t) => t.trim()),
          plan.cluster_id, 'overview cluster_id');
    equal(await page.textContent('#overview [data-field="log_dir"]').then((t) => t.trim()),
          plan.log_dir, 'overview log_dir');
    check(await page.locator('svg#produce-rate').count() === 1, 'no svg#produce-rate');
    check(await page.locator('svg#fetch-rate').count() === 1, 'no svg#fetch-rate');
    await shot(page, plan, 'overview');
    await showView(page, plan, '/topics', 'topics');
    await shot(page, plan, 'topics');
    await showView(page, plan, '/security', 'security');
    check(await page.locator('table#acls').count() === 1, 'no table#acls');
    check(await page.locator('table#users').count() === 1, 'no table#users');
    await noProblems(page, problems, 'pages');
    return {};
  },

  // A kcat-made topic in the list, and its partitions' offsets as the client saw them.
  async topic(browser, plan) {
    const { page, problems } = await openPage(browser, plan);
    await showView(page, plan, '/topics', 'topics');
    const row = page.locator(`table#topics tbody tr[data-topic="${plan.topic}"]`);
    await row.waitFor({ timeout: VIEW_TIMEOUT_MS });
    equal(number(await cellText(row, 'partitions')), plan.partitions.length, 'partitions');
    const records = plan.partitions.reduce((n, p) => n + p.high_watermark - p.log_start_offset, 0);
    equal(number(await cellText(row, 'records')), records, 'records');
    check(number(await cellText(row, 'size')) > 0 || /[1-9]/.test(await cellText(row, 'size')),
          'size is zero');
    await row.locator('a[data-topic-link]').click();
    await waitView(page, 'topic');
    equal(new URL(page.url()).hash, `#/topics/${enc(plan.topic)}`, 'topic link');
    for (const p of plan.partitions) {
      const prow = page.locator(`table#partitions tbody tr[data-partition="${p.partition}"]`);
      check(await prow.count() === 1, `no row for partition ${p.partition}`);
      for (const field of ['log_start_offset', 'log_end_offset', 'high_watermark',
                           'last_stable_offset']) {
        equal(number(await cellText(prow, field)), p[field], `partition ${p.partition} ${field}`);
      }
    }
    const config = page.locator('table#configs tbody tr[data-config="cleanup.policy"]');
    check(await config.count() === 1, 'no cleanup.policy row in table#configs');
    equal((await cellText(config, 'value')).trim(), 'delete', 'cleanup.policy value');
    await shot(page, plan, 'topic');
    await noProblems(page, problems, 'topic');
    return {};
  },

  // The messages of one partition with keys, values and headers; its segments to scale.
  async messages(browser, plan) {
    const { page, problems } = await openPage(browser, plan);
    await showView(page, plan, `/topics/${enc(plan.topic)}/partitions/${plan.partition}`,
                   'partition');
    await loadRecords(page, 'beginning');
    for (const r of plan.records) {
      const row = page.locator(`table#records tbody tr[data-offset="${r.offset}"]`);
      await row.waitFor({ timeout: VIEW_TIMEOUT_MS });
      equal((await cellText(row, 'key')).trim(), r.key, `offset ${r.offset} key`);
      equal((await cellText(row, 'value')).trim(), r.value, `offset ${r.offset} value`);
      const headers = await cellText(row, 'headers');
      for (const [k, v] of r.headers) {
        check(headers.includes(k) && headers.includes(v),
              `offset ${r.offset}: header ${k}=${v} not in ${JSON.stringify(headers)}`);
      }
      check((await cellText(row, 'timestamp')).trim() !== '', `offset ${r.offset}: no timestamp`);
    }
    equal(await page.locator('table#records tbody tr[data-offset]').count(), plan.records.length,
          'rows in table#records');
    // From an offset: that record first.
    const from = plan.records[Math.floor(plan.records.length / 2)].offset;
    await loadRecords(page, 'offset', from);
    const first = page.locator('table#records tbody tr[data-offset]').first();
    await first.waitFor({ timeout: VIEW_TIMEOUT_MS });
    equal(number(await first.getAttribute('data-offset')), from, 'first row from an offset');
    const segments = page.locator('svg#segments rect[data-base-offset]');
    check(await segments.count() >= 1, 'no segment in svg#segments');
    equal(await page.locator('svg#segments rect[data-active="true"]').count(), 1,
          'active segments');
    equal(number(await segments.first().getAttribute('data-base-offset')), 0,
          'first segment base offset');
    check(await page.locator('table#index-entries').count() === 1, 'no table#index-entries');
    check(await page.locator('table#time-index-entries').count() === 1,
          'no table#time-index-entries');
    await loadRecords(page, 'beginning');
    await shot(page, plan, 'partition');
    await noProblems(page, problems, 'messages');
    return {};
  },

  // Live tail: switched on, the table follows the partition's end; records a confluent-kafka
  // producer writes after the page said "live: following" (the Python side waits for that
  // line) appear without a reload, each once and in offset order; switched off, and once the
  // view is left, the page stops reading records.
  async live(browser, plan) {
    const { page, problems } = await openPage(browser, plan);
    let recordReads = 0;
    page.on('request', (r) => {
      if (/\/records\?/.test(r.url())) recordReads += 1;
    });
    await showView(page, plan, `/topics/${enc(plan.topic)}/partitions/${plan.partition}`,
                   'partition');
    await page.click('button#live-tail');
    await waitView(page, 'partition');
    equal(await page.getAttribute('button#live-tail', 'aria-pressed'), 'true', 'Live pressed');
    console.log('live: following');
    const values = () => page.locator('table#records tbody tr[data-offset] td[data-field="value"]')
      .allTextContents().then((texts) => texts.map((t) => t.trim()));
    const deadline = Date.now() + VIEW_TIMEOUT_MS;
    while (JSON.stringify(await values()) !== JSON.stringify(plan.values) && Date.now() < deadline) {
      await page.waitForTimeout(200);
    }
    equal(await values(), plan.values, 'the values shown, in offset order');
    const offsets = await page.locator('table#records tbody tr[data-offset]').evaluateAll(
      (rows) => rows.map((r) => Number(r.dataset.offset)));
    equal(offsets, plan.values.map((_, i) => i), 'the offsets shown');
    await shot(page, plan, 'live-tail');

    await page.click('button#live-tail');
    equal(await page.getAttribute('button#live-tail', 'aria-pressed'), 'false', 'Live released');
    await page.waitForTimeout(500); // a read already under way may still end
    const afterOff = recordReads;
    await page.waitForTimeout(2500);
    equal(recordReads, afterOff, 'records read after Live was switched off');

    await page.click('button#live-tail');
    await waitView(page, 'partition');
    await page.waitForTimeout(1500);
    check(recordReads > afterOff + 1, `Live switched on again read ${recordReads - afterOff} times`);
    await showView(page, plan, '/topics', 'topics');
    await page.waitForTimeout(1500); // one read may have been under way
    const afterLeaving = recordReads;
    await page.waitForTimeout(2500);
    equal(recordReads, afterLeaving, 'records read after the view was left');
    await noProblems(page, problems, 'live');
    return {};
  },

  // A group's committed offsets and lag as a confluent-kafka consumer left them.
  async group(browser, plan) {
    const { page, problems } = await openPage(browser, plan);
    await showView(page, plan, '/groups', 'groups');
    const row = page.locator(`table#groups tbody tr[data-group="${plan.group}"]`);
    await row.waitFor({ timeout: VIEW_TIMEOUT_MS });
    equal(number(await cellText(row, 'lag')), plan.lag, 'group lag in table#groups');
    equal((await cellText(row, 'type')).trim().toLowerCase(), 'classic', 'group type');
    await showView(page, plan, `/groups/${enc(plan.group)}`, 'group');
    for (const o of plan.offsets) {
      const orow = page.locator(
        `table#group-offsets tbody tr[data-topic="${o.topic}"][data-partition="${o.partition}"]`);
      check(await orow.count() === 1, `no offsets row for ${o.topic}/${o.partition}`);
      for (const field of ['committed_offset', 'log_end_offset', 'lag']) {
        equal(number(await cellText(orow, field)), o[field], `${o.topic}/${o.partition} ${field}`);
      }
    }
    check(await page.locator('svg#lag-chart').count() === 1, 'no svg#lag-chart');
    check(await page.locator('table#members').count() === 1, 'no table#members');
    await shot(page, plan, 'group');
    await noProblems(page, problems, 'group');
    return {};
  },

  // A record in Confluent's wire format shown decoded through the registry; the subject's
  // version diff.
  async schema(browser, plan) {
    const { page, problems } = await openPage(browser, plan);
    await showView(page, plan, `/topics/${enc(plan.topic)}/partitions/${plan.partition}`,
                   'partition');
    for (const format of ['auto', 'schema']) {
      await loadRecords(page, 'beginning', undefined, format);
      const row = page.locator(`table#records tbody tr[data-offset="${plan.offset}"]`);
      await row.waitFor({ timeout: VIEW_TIMEOUT_MS });
      // Each field as JSON, in whatever order the decoder keeps them; never the raw bytes
      // (Confluent's magic byte 0 and the schema id before the JSON).
      const shown = (await cellText(row, 'value')).replace(/\s+/g, '');
      for (const [k, v] of Object.entries(plan.decoded)) {
        const pair = `${JSON.stringify(k)}:${JSON.stringify(v)}`;
        check(shown.includes(pair), `value format ${format}: ${pair} not in ${shown}`);
      }
      check(!shown.includes('\u0000'), `value format ${format}: the wire format's bytes shown`);
    }
    await showView(page, plan, '/schemas', 'schemas');
    const subject = page.locator(`table#subjects tbody tr[data-subject="${plan.subject}"]`);
    check(await subject.count() === 1, `no row for subject ${plan.subject}`);
    await showView(page, plan, `/schemas/${enc(plan.subject)}`, 'subject');
    await page.selectOption('select#version-from', '1');
    await page.selectOption('select#version-to', '2');
    const added = page.locator('pre#schema-diff span[data-op="+"]', { hasText: plan.added });
    await added.first().waitFor({ timeout: VIEW_TIMEOUT_MS });
    check((await page.textContent('pre#schema')).trim() !== '', 'pre#schema is empty');
    await shot(page, plan, 'schema-diff');
    await noProblems(page, problems, 'schema');
    return {};
  },

  // A topic created with form#create-topic; the Python side then produces to it and consumes
  // from it with kcat.
  async create(browser, plan) {
    const { page, problems } = await openPage(browser, plan);
    await showView(page, plan, '/topics', 'topics');
    await page.fill('form#create-topic input[name="name"]', plan.topic);
    await page.fill('form#create-topic input[name="partitions"]', String(plan.partitions));
    await page.click('form#create-topic button[type="submit"]');
    const row = page.locator(`table#topics tbody tr[data-topic="${plan.topic}"]`);
    await row.waitFor({ timeout: VIEW_TIMEOUT_MS });
    equal(number(await cellText(row, 'partitions')), plan.partitions, 'new topic partitions');
    // Creating it again: the API's 409 in #flash, as an error.
    await page.fill('form#create-topic input[name="name"]', plan.topic);
    await page.fill('form#create-topic input[name="partitions"]', String(plan.partitions));
    await page.click('form#create-topic button[type="submit"]');
    await page.waitForSelector('#flash[data-kind="error"]', { timeout: VIEW_TIMEOUT_MS });
    const flash = await page.textContent('#flash');
    check(flash.includes(plan.topic) || /exist/i.test(flash), `#flash: ${flash}`);
    // A test message from form#produce-record on partition 1, shown in the messages after.
    await showView(page, plan, `/topics/${enc(plan.topic)}/partitions/1`, 'partition');
    await page.fill('form#produce-record input[name="key"]', plan.key);
    await page.fill('form#produce-record textarea[name="value"]', plan.value);
    await page.click('form#produce-record button[type="submit"]');
    const produced = page.locator('table#records tbody tr[data-offset="0"]');
    await produced.waitFor({ timeout: VIEW_TIMEOUT_MS });
    await waitView(page, 'partition');
    equal(await cellText(produced, 'value'), plan.value, 'the produced value');
    // The 409 is the page's own error, reported as a failed resource load: not a problem.
    await noProblems(page, problems.filter((p) => !/409/.test(p)), 'create');
    return {};
  },

  // Hostile keys, values and headers render as text; binary as hex; nothing runs.
  async hostile(browser, plan) {
    const { page, problems } = await openPage(browser, plan);
    for (const format of ['auto', 'text', 'json', 'hex']) {
      await showView(page, plan, `/topics/${enc(plan.topic)}/partitions/0`, 'partition');
      await loadRecords(page, 'beginning', undefined, format);
      for (const r of plan.records) {
        const row = page.locator(`table#records tbody tr[data-offset="${r.offset}"]`);
        await row.waitFor({ timeout: VIEW_TIMEOUT_MS });
        const key = await cellText(row, 'key');
        const value = await cellText(row, 'value');
        const headers = await cellText(row, 'headers');
        if (format === 'hex') {
          check(hex(value).includes(r.value_hex), `hex: ${r.value_hex} not in ${value}`);
          continue;
        }
        // The exact characters, nothing dropped or escaped away.
        equal(key, r.key, `${format}: key`);
        if (r.value !== null) {
          equal(value, r.value, `${format}: value`);
        } else {
          // Not UTF-8: shown as hex whatever the format asked for.
          check(hex(value).includes(r.value_hex),
                `${format}: binary value ${r.value_hex} not shown as hex: ${value}`);
        }
        for (const [k, v] of r.headers) {
          check(headers.includes(k) && headers.includes(v),
                `${format}: header ${JSON.stringify([k, v])} not in ${JSON.stringify(headers)}`);
        }
      }
      const planted = await page.evaluate(() => ({
        pwned: window.__pwned,
        img: document.querySelectorAll('img[src="x"], img[onerror]').length,
        script: [...document.querySelectorAll('script')]
          .filter((s) => (s.textContent || '').includes('__pwned')).length,
        js_links: document.querySelectorAll('[href^="javascript:"], [src^="javascript:"]').length,
        handlers: [...document.querySelectorAll('#view *')]
          .filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
      }));
      equal(planted, { img: 0, script: 0, js_links: 0, handlers: 0 },
            `${format}: elements from the payload`);
    }
    await noProblems(page, problems, 'hostile');
    return {};
  },

  // A console left at the default console.read.only=true: no write forms, writes forced with
  // fetch() refused with 403.
  async readonly(browser, plan) {
    const { page, problems } = await openPage(browser, plan);
    await showView(page, plan, '/topics', 'topics');
    await page.locator(`table#topics tbody tr[data-topic="${plan.topic}"]`)
      .waitFor({ timeout: VIEW_TIMEOUT_MS });
    equal(await page.locator('form#create-topic').count(), 0, 'form#create-topic shown');
    await showView(page, plan, `/topics/${enc(plan.topic)}`, 'topic');
    equal(await page.locator('button#delete-topic').count(), 0, 'button#delete-topic shown');
    await showView(page, plan, `/topics/${enc(plan.topic)}/partitions/0`, 'partition');
    equal(await page.locator('form#produce-record').count(), 0, 'form#produce-record shown');
    await showView(page, plan, `/groups/${enc(plan.group)}`, 'group');
    equal(await page.locator('form#reset-offsets').count(), 0, 'form#reset-offsets shown');
    const forced = await page.evaluate(async (topic) => {
      const send = async (method, url, body) => {
        const r = await fetch(url, { method, headers: { 'Content-Type': 'application/json' },
                                     body: body === undefined ? undefined : JSON.stringify(body) });
        let json = null;
        try { json = await r.json(); } catch (e) { json = null; }
        return { status: r.status, json };
      };
      const t = encodeURIComponent(topic);
      return [
        await send('POST', '/api/topics', { name: 'forced-topic', partitions: 1 }),
        await send('DELETE', `/api/topics/${t}`),
        await send('POST', `/api/topics/${t}/records`, { partition: 0, key: 'k', value: 'forced' }),
        await send('POST', `/api/topics/${t}/partitions`, { count: 8 }),
      ];
    }, plan.topic);
    for (const r of forced) {
      equal(r.status, 403, `forced write status (${JSON.stringify(r.json)})`);
      check(r.json && typeof r.json.message === 'string',
            `no JSON error: ${JSON.stringify(r.json)}`);
    }
    // The refused fetches are reported by Chromium as failed loads: expected here.
    await noProblems(page, problems.filter((p) => !/403/.test(p)), 'readonly');
    return {};
  },

  // Basic auth against the SCRAM users; ACLs decide which topics the user sees.
  async auth(browser, plan) {
    // Without credentials the browser gets the 401 and its challenge; Chromium under
    // Playwright then cancels the navigation (ERR_INVALID_AUTH_CREDENTIALS) or shows the 401.
    const anonymous = await openPage(browser, plan);
    const statuses = [];
    anonymous.page.on('response', (resp) => statuses.push(resp.status()));
    try {
      await anonymous.page.goto(`${plan.url}/`);
    } catch (e) {
      check(/ERR_INVALID_AUTH_CREDENTIALS/.test(e.message), `without credentials: ${e.message}`);
    }
    equal(statuses, [401], 'the page without credentials');
    equal(await anonymous.page.locator('main#view').count(), 0,
          'the console shown without credentials');
    const api = await anonymous.context.request.get(`${plan.url}/api/topics`);
    equal(api.status(), 401, '/api/topics without credentials');
    // A wrong password: Chromium gives up on the challenge (ERR_INVALID_AUTH_CREDENTIALS), so
    // the answer is checked as sent.
    const basic = (password) =>
      `Basic ${Buffer.from(`${plan.user}:${password}`).toString('base64')}`;
    for (const page of ['/', '/api/topics']) {
      const refused = await anonymous.context.request.get(
        `${plan.url}${page}`, { headers: { Authorization: basic('not-the-password') } });
      equal(refused.status(), 401, `${page} with a wrong password`);
    }
    const accepted = await anonymous.context.request.get(
      `${plan.url}/api/topics`, { headers: { Authorization: basic(plan.password) } });
    equal(accepted.status(), 200, '/api/topics with the password');

    const { page, problems } = await openPage(browser, plan, {
      httpCredentials: { username: plan.user, password: plan.password } });
    equal((await page.goto(`${plan.url}/`)).status(), 200, 'the page with credentials');
    await waitView(page, 'overview');
    await showView(page, plan, '/topics', 'topics');
    await page.locator(`table#topics tbody tr[data-topic="${plan.visible}"]`)
      .waitFor({ timeout: VIEW_TIMEOUT_MS });
    equal(await page.locator(`table#topics tbody tr[data-topic="${plan.hidden}"]`).count(), 0,
          `topic ${plan.hidden} (no DESCRIBE) listed`);
    await showView(page, plan, `/topics/${enc(plan.visible)}`, 'topic');
    await noProblems(page, problems, 'auth');
    return {};
  },

  // Security writes, signed in as a super user: a SCRAM user and an ACL added with the page's
  // forms (the Python side then signs in as that user with confluent-kafka), or, with
  // plan.remove, both removed with their rows' buttons.
  async security(browser, plan) {
    const { page, problems } = await openPage(browser, plan, {
      httpCredentials: { username: plan.user, password: plan.password } });
    await showView(page, plan, '/security', 'security');
    const userRow = page.locator(`table#users tbody tr[data-user="${plan.newUser}"]`);
    const aclRow = page.locator('table#acls tbody tr').filter({
      has: page.locator(`td[data-field="resource_name"]`, { hasText: plan.aclTopic }) });
    if (!plan.remove) {
      await page.fill('form#set-user input[name="name"]', plan.newUser);
      await page.fill('form#set-user input[name="password"]', plan.newPassword);
      await page.click('form#set-user button[type="submit"]');
      await userRow.waitFor({ timeout: VIEW_TIMEOUT_MS });
      await waitView(page, 'security');
      check((await userRow.textContent()).includes('SCRAM-SHA-256 (4096 iterations)'),
            `the new user's row: ${await userRow.textContent()}`);
      equal(await page.inputValue('form#set-user input[name="password"]'), '',
            'the password left in the form');
      await page.fill('form#add-acl input[name="resource_name"]', plan.aclTopic);
      await page.fill('form#add-acl input[name="principal"]', `User:${plan.newUser}`);
      await page.selectOption('form#add-acl select[name="operation"]', 'READ');
      await page.click('form#add-acl button[type="submit"]');
      await aclRow.first().waitFor({ timeout: VIEW_TIMEOUT_MS });
      await waitView(page, 'security');
      equal((await cellText(aclRow.first(), 'principal')).trim(), `User:${plan.newUser}`, 'the ACL principal');
      equal((await cellText(aclRow.first(), 'operation')).trim(), 'READ', 'the ACL operation');
      await shot(page, plan, 'security');
    } else {
      // The rows' Remove buttons ask first (confirm(), accepted by openPage).
      await aclRow.first().locator('button').click();
      await page.waitForFunction((topic) => ![...document.querySelectorAll('table#acls td[data-field="resource_name"]')]
        .some((td) => td.textContent.trim() === topic), plan.aclTopic, { timeout: VIEW_TIMEOUT_MS });
      await waitView(page, 'security');
      await userRow.locator('button').first().click();
      await userRow.waitFor({ state: 'detached', timeout: VIEW_TIMEOUT_MS });
      await waitView(page, 'security');
    }
    await noProblems(page, problems, 'security');
    return {};
  },

  // A page of another origin posting to the console: refused, whatever the form.
  async crosssite(browser, plan) {
    const { page } = await openPage(browser, plan);
    const posted = (type) => page.waitForResponse(
      (resp) => resp.url() === `${plan.url}/api/topics` && resp.request().method() === 'POST'
                && resp.request().resourceType() === type, { timeout: VIEW_TIMEOUT_MS });
    // A no-cors fetch: opaque to the attacker's script, but Playwright sees the status.
    const fetched = posted('fetch');
    await page.goto(`${plan.attacker}/fetch.html`);
    equal((await fetched).status(), 403, 'cross-site fetch POST');
    // A form submitted on load (the classic CSRF): a navigation to the console's answer.
    const submitted = posted('document');
    await page.goto(`${plan.attacker}/form.html`);
    const answer = await submitted;
    equal(answer.status(), 403, 'cross-site form POST');
    const body = await answer.text();
    check(/another (site|origin)/.test(body), `the refusal's message: ${body}`);
    return {};
  },
};

async function main() {
  const plan = JSON.parse(readFileSync(0, 'utf8'));
  const scenario = scenarios[plan.scenario];
  if (!scenario) throw new Error(`no scenario ${plan.scenario}`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const result = await scenario(browser, plan);
    console.log(`ok: ${plan.scenario}`);
    console.log(`result: ${JSON.stringify(result)}`);
  } finally {
    await browser.close();
  }
}

main().catch((err) => {
  console.log(`FAILED: ${err instanceof Mismatch ? err.message : err.stack}`);
  process.exit(1);
});
