import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '../../api/openapi/document';

/**
 * The booking example and webhook receiver of each client are files the integration tests run
 * (typescript-examples, php-client, python-client); docs/clients.md and /docs show exactly those files.
 */

const root = path.join(__dirname, '..', '..');
const examples = [
  { fence: 'ts', book: 'clients/typescript/examples/book.ts', webhook: 'clients/typescript/examples/webhook.ts' },
  { fence: 'php', book: 'clients/php/examples/book.php', webhook: 'clients/php/examples/webhook.php' },
  { fence: 'python', book: 'clients/python/examples/book.py', webhook: 'clients/python/examples/webhook.py' },
];
const fenced = (fence: string, file: string) => `\`\`\`${fence}\n${readFileSync(path.join(root, file), 'utf8')}\`\`\``;

describe.each(examples)('the $fence examples', ({ fence, book, webhook }) => {
  it('are in docs/clients.md character for character', () => {
    const page = readFileSync(path.join(root, 'docs', 'clients.md'), 'utf8');
    expect(page).toContain(fenced(fence, book));
    expect(page).toContain(fenced(fence, webhook));
  });

  it('are on /docs: the booking under Book a delivery, the receiver under the status callback', () => {
    const document = buildOpenApiDocument() as {
      paths: Record<string, Record<string, { description?: string }>>;
      webhooks: Record<string, { post: { description: string } }>;
    };
    expect(document.paths['/partner/deliveries']!.post!.description).toContain(fenced(fence, book));
    expect(document.webhooks.deliveryStatusChanged!.post.description).toContain(fenced(fence, webhook));
  });
});
