import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

/**
 * Builds the workflow bundle once (`npm run build`), so production workers load it
 * with WORKFLOW_BUNDLE instead of running webpack at start.
 */
async function main(): Promise<void> {
  const out = path.resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: undefined });
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(out, code);
  process.stdout.write(`${JSON.stringify({ bundle: out, bytes: code.length })}\n`);
}

void main();
