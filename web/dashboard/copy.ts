import { html, type Html } from './html';

/**
 * A value to copy: a read-only field anyone can select, plus a Copy button that the small
 * script wires up (without the script the button stays hidden and selecting still works).
 */
export function copyField(id: string, label: string, value: string, hint?: string): Html {
  return html`<div class="field copy">
    <label for="${id}">${label}</label>
    ${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''}
    <div class="copy-row">
      <input id="${id}" type="text" readonly value="${value}" spellcheck="false" autocomplete="off"${hint ? html` aria-describedby="${id}-hint"` : ''}>
      <button type="button" class="button secondary" data-copy="${id}" hidden>Copy</button>
    </div>
    <p class="copy-status" aria-live="polite" data-copy-status="${id}"></p>
  </div>`;
}

/** A Copy button for the text of another element (a code sample, a link). */
export function copyButton(targetId: string, label = 'Copy'): Html {
  return html`<p class="copy-row"><button type="button" class="button secondary" data-copy="${targetId}" hidden>${label}</button>
    <span class="copy-status" aria-live="polite" data-copy-status="${targetId}"></span></p>`;
}
