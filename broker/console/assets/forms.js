// Write forms: shown only when the console is writable; a submit sends the API request and shows
// the API's message in #flash when it fails.

import { el, flash, clearFlash } from './dom.js';

export function field(label, input) {
  return el('label', null, el('span', null, label), input);
}

// onSubmit(FormData) does the request; a thrown ApiError's message goes to #flash.
export function writeForm(id, title, children, submitText, onSubmit) {
  const button = el('button', { type: 'submit' }, submitText);
  const form = el('form', { id, class: 'write' }, el('h3', null, title), children, button);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    button.disabled = true;
    clearFlash();
    try {
      await onSubmit(new FormData(form), form);
    } catch (e) {
      flash(e.message, 'error');
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

// An integer from a form field, or undefined when empty; bad input is refused before sending.
export function intField(data, name, what) {
  const raw = String(data.get(name) ?? '').trim();
  if (raw === '') return undefined;
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new Error(`${what} must be a whole number`);
  return Number(raw);
}
