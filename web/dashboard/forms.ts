import { html, type Html, type Renderable } from './html';

/** Messages keyed by field name; shown next to the field and summarised at the top of the form. */
export type FieldErrors = Record<string, string>;

export interface FieldOptions {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'url' | 'tel';
  value?: string;
  hint?: string;
  autocomplete?: string;
  inputmode?: 'text' | 'email' | 'tel' | 'url';
  required?: boolean;
  maxlength?: number;
}

/** A labelled input with its hint and, when wrong, its error tied to it for screen readers. */
export function field(errors: FieldErrors, o: FieldOptions): Html {
  const error = errors[o.name];
  const describedBy = [o.hint ? `${o.name}-hint` : '', error ? `${o.name}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field${error ? ' has-error' : ''}">
    <label for="${o.name}">${o.label}</label>
    ${o.hint ? html`<p class="hint" id="${o.name}-hint">${o.hint}</p>` : ''}
    ${error ? html`<p class="field-error" id="${o.name}-error">${error}</p>` : ''}
    <input id="${o.name}" name="${o.name}" type="${o.type ?? 'text'}"${o.value !== undefined && o.type !== 'password' ? html` value="${o.value}"` : ''}${
      o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''
    }${o.inputmode ? html` inputmode="${o.inputmode}"` : ''}${o.required ? html` required` : ''}${o.maxlength ? html` maxlength="${o.maxlength}"` : ''}${
      describedBy ? html` aria-describedby="${describedBy}"` : ''
    }${error ? html` aria-invalid="true"` : ''}>
  </div>`;
}

export interface ChoiceOptions {
  name: string;
  legend: string;
  value?: string;
  hint?: string;
  choices: { value: string; label: string; hint?: string }[];
  /** Preselect the first choice when nothing is chosen (not for choices a person must make). */
  preselect?: boolean;
}

/** Radio buttons in a fieldset (keyboard: arrow keys move between choices). */
export function choice(errors: FieldErrors, o: ChoiceOptions): Html {
  const error = errors[o.name];
  return html`<fieldset id="${o.name}" tabindex="-1" class="field${error ? ' has-error' : ''}"${error ? html` aria-describedby="${o.name}-error"` : ''}>
    <legend>${o.legend}</legend>
    ${o.hint ? html`<p class="hint">${o.hint}</p>` : ''}
    ${error ? html`<p class="field-error" id="${o.name}-error">${error}</p>` : ''}
    ${o.choices.map(
      (c, i) => html`<label class="radio" for="${o.name}-${c.value}">
        <input type="radio" id="${o.name}-${c.value}" name="${o.name}" value="${c.value}"${(o.value || (o.preselect === false ? undefined : o.choices[0]?.value)) === c.value ? html` checked` : ''}${
          i === 0 && error ? html` aria-invalid="true"` : ''
        }>
        <span>${c.label}${c.hint ? html` <span class="hint">${c.hint}</span>` : ''}</span>
      </label>`,
    )}
  </fieldset>`;
}

/** "There is a problem" with a link to each wrong field (its message says which); it takes focus so it is read first. */
export function errorSummary(errors: FieldErrors): Renderable {
  const entries = Object.entries(errors);
  if (entries.length === 0) return null;
  return html`<div class="error-summary" role="alert" tabindex="-1" data-autofocus>
    <h2>There is a problem</h2>
    <ul>${entries.map(([name, message]) => html`<li><a href="#${name}">${message}</a></li>`)}</ul>
  </div>`;
}
