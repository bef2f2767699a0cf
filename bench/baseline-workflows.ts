/** The Temporal floor's workflow: it does nothing, so starting it costs only what Temporal costs. */
export async function emptyWorkflow(): Promise<void> {
  // Intentionally empty.
}
