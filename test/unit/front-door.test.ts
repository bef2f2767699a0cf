import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// The README is the front door: what the product is, how to start it and test it, where things
// are, a first booking, and links. Everything else lives in docs/, whose README names each page.

const root = path.join(__dirname, '..', '..');
const docs = path.join(root, 'docs');
const read = (file: string) => readFileSync(file, 'utf8');

/** The lines of a markdown file outside fenced code blocks (each blanked inside one, so line numbers hold). */
function proseLines(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (opening && opening[0] === fence[0] && opening.length >= fence.length) fence = null;
      return '';
    }
    if (opening) {
      fence = opening;
      return '';
    }
    return line;
  });
}

/** The anchor GitHub gives a heading: lowercase, punctuation removed, spaces to '-'. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every heading's anchor in a markdown file, a repeated one suffixed -1, -2… as GitHub does. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** The `##` headings of a markdown file (not `#`, not `###`). */
function sectionHeadings(markdown: string): string[] {
  return proseLines(markdown)
    .map((line) => /^##\s+(.*?)\s*#*\s*$/.exec(line)?.[1])
    .filter((heading): heading is string => heading !== undefined);
}

/** The targets of the markdown links in prose (not in code blocks or code spans). */
function linkTargets(markdown: string): string[] {
  const prose = proseLines(markdown)
    .join('\n')
    .replace(/(`+)[\s\S]*?\1/g, '');
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!);
  const referenced = [...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((match) => match[1]!);
  return [...inline, ...referenced];
}

const isRelative = (target: string) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('//');

/** What is wrong with each relative link of a markdown file: a missing file, or an anchor no heading has. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(read(file)).filter(isRelative)) {
    const [pathPart = '', anchor] = target.split('#', 2);
    const resolved = pathPart === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
    if (!existsSync(resolved)) {
      broken.push(`${target}: no such file`);
      continue;
    }
    if (anchor && resolved.endsWith('.md') && !anchors(read(resolved)).has(decodeURIComponent(anchor))) {
      broken.push(`${target}: no heading with that anchor in ${path.relative(root, resolved)}`);
    }
  }
  return broken;
}

const readme = read(path.join(root, 'README.md'));
const docsPages = readdirSync(docs).filter((name) => name.endsWith('.md'));

describe('the README, the front door', () => {
  it('is under 200 lines, so a newcomer reads it on the first day', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThan(200);
  });

  it('shows the two commands, npm start and npm test, within its first 15 lines', () => {
    const top = readme.split('\n').slice(0, 15).join('\n');
    expect(top).toContain('npm start');
    expect(top).toContain('npm test');
  });
});

describe('the index of docs/', () => {
  it('links every page directly in docs/, and the decisions', () => {
    const index = path.join(docs, 'README.md');
    expect(existsSync(index)).toBe(true);
    const linked = new Set(linkTargets(read(index)).map((target) => target.split('#')[0]!.replace(/^\.\//, '')));
    const pages = [...docsPages.filter((name) => name !== 'README.md'), 'decisions/README.md'];
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });
});

describe('the links of the README and of the pages in docs/', () => {
  const files = [path.join(root, 'README.md'), ...docsPages.map((name) => path.join(docs, name))];

  it.each(files.map((file) => [path.relative(root, file), file]))('in %s each lead to a file, and to a heading where they name one', (_name, file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it('are read as GitHub reads them: anchors from headings, links outside code only', () => {
    expect(slug('Refused production settings, and staging')).toBe('refused-production-settings-and-staging');
    expect(slug('The production topology on one machine (`npm run topology`)')).toBe('the-production-topology-on-one-machine-npm-run-topology');
    expect(anchors('# A\n## B\n```\n## C\n```\n## B\n')).toEqual(new Set(['a', 'b', 'b-1']));
    expect(linkTargets('[a](missing.md#nowhere) `[b](in-code.md)`\n```\n[c](in-fence.md)\n```\n')).toEqual(['missing.md#nowhere']);
  });
});

describe.each(['performance.md', 'operations.md'])('the long page %s', (name) => {
  const markdown = read(path.join(docs, name));

  it('opens with a table of contents: a list of links to each of its ## headings, within 40 lines', () => {
    const top = markdown.split('\n').slice(0, 40);
    const listed = new Set(
      top.flatMap((line) => (/^\s*(?:[-*+]|\d+\.)\s/.test(line) ? [...line.matchAll(/\]\(#([^)\s]+)\)/g)].map((match) => match[1]!) : [])),
    );
    const headings = sectionHeadings(markdown);
    expect(headings.length).toBeGreaterThan(0);
    expect(headings.map(slug).filter((anchor) => !listed.has(anchor))).toEqual([]);
  });
});
