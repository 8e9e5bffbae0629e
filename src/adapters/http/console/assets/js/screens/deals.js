// Deals: a deal is opened by its number (the `deal_id` its documents, statements and runs carry);
// the form is also offered where a deal cannot be shown, to try another.

import { field, h, heading, replace } from '../render.js';

export async function show(view, _params, context) {
  replace(
    view,
    heading('Deals'),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'open-deal-heading' },
      h('h2', { id: 'open-deal-heading' }, 'Open a deal'),
      h('p', { class: 'muted' }, 'A deal gathers everything filed under its number: agreements, statements, covenant tests, analyses, research and conversations.'),
      openDealForm(context),
    ),
  );
}

/** A deal number and a button that opens the deal's screen. */
export function openDealForm(context, current = '') {
  const number = h('input', { type: 'number', name: 'deal_id', min: '1', step: '1', required: true, value: current || null });
  const form = h('form', { class: 'search open-deal', 'aria-label': 'Open a deal' }, field('Deal number', number), h('button', { type: 'submit' }, 'Open the deal'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const id = Number(number.value);
    if (Number.isInteger(id) && id > 0) context.go(`#/deals/${id}`);
    else number.setCustomValidity('A deal number is a positive whole number.');
    number.reportValidity();
  });
  number.addEventListener('input', () => number.setCustomValidity(''));
  return form;
}
