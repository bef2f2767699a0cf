import { DELIVERY_STATUS_NAMES } from '../../domain/lifecycle';
import { html, type Html } from './html';

// Ghana keeps GMT all year; partners read times as local times.
const PARTS = { timeZone: 'Africa/Accra', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false } as const;
const THIS_YEAR = new Intl.DateTimeFormat('en-GB', PARTS);
const OTHER_YEAR = new Intl.DateTimeFormat('en-GB', { ...PARTS, year: 'numeric' });

/** `21 Nov, 14:05:09 GMT` (the year only when it is not this one), machine-readable in `datetime`. */
export function when(date: Date | string | null | undefined, never = 'Never'): Html {
  if (!date) return html`<span class="muted">${never}</span>`;
  const d = new Date(date);
  const format = d.getUTCFullYear() === new Date().getUTCFullYear() ? THIS_YEAR : OTHER_YEAR;
  return html`<time datetime="${d.toISOString()}">${format.format(d)} GMT</time>`;
}

export function cedis(amount: number): string {
  return `GH₵ ${amount.toFixed(2)}`;
}

const STATUS_TEXT: Record<string, string> = {
  ...DELIVERY_STATUS_NAMES,
  paid: 'Paid',
  failed: 'Failed',
  skipped: 'Skipped (no URL)',
  active: 'Active',
  revoked: 'Revoked',
};

/** A status as words in a coloured pill; the colour only repeats what the words say. */
export function badge(status: string): Html {
  return html`<span class="badge badge-${status}">${STATUS_TEXT[status] ?? status}</span>`;
}

export function statusText(status: string): string {
  return STATUS_TEXT[status] ?? status;
}
