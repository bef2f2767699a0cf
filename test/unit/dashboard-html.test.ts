import { html, trusted } from '../../web/dashboard/html';
import { safeDashboardPath } from '../../api/dashboard/respond';
import { normaliseGhanaPhone } from '../../domain/phone';

describe('dashboard markup', () => {
  it('escapes every interpolated text, in element content and in attributes', () => {
    const name = `<img src=x onerror="alert('x')">&`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;">&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;</p>',
    );
  });

  it('keeps markup made by the tag, and lists of it, as markup', () => {
    const items = ['a<b', 'c'].map((text) => html`<li>${text}</li>`);
    expect(html`<ul>${items}</ul>`.value).toBe('<ul><li>a&lt;b</li><li>c</li></ul>');
    expect(html`${trusted('<br>')}`.value).toBe('<br>');
  });

  it('renders nothing for null, undefined and booleans, and numbers as text', () => {
    expect(html`[${null}${undefined}${false}${true}${0}]`.value).toBe('[0]');
  });
});

describe('dashboard redirects', () => {
  it('follows only paths inside the dashboard', () => {
    expect(safeDashboardPath('/dashboard/keys')).toBe('/dashboard/keys');
    expect(safeDashboardPath('/dashboard/deliveries?status=pending&offset=20')).toBe('/dashboard/deliveries?status=pending&offset=20');
    for (const hostile of ['https://evil.example.com', '//evil.example.com', '/dashboardevil', '/dashboard/\\evil', '/docs', 'javascript:alert(1)', undefined, 42]) {
      expect(safeDashboardPath(hostile)).toBe('/dashboard');
    }
  });
});

describe('Mobile Money numbers typed in the dashboard', () => {
  it('turns the local forms people type into the +233 form', () => {
    expect(normaliseGhanaPhone('024 123 0001')).toBe('+233241230001');
    expect(normaliseGhanaPhone('0241-230-001')).toBe('+233241230001');
    expect(normaliseGhanaPhone('233241230001')).toBe('+233241230001');
    expect(normaliseGhanaPhone('+233 24 123 0001')).toBe('+233241230001');
    expect(normaliseGhanaPhone('12345')).toBe('12345');
  });
});
