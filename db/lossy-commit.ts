/**
 * A FROM item for a single-statement write whose loss in a crash costs a position, a count or an
 * estimate, never a promise: its transaction commits with `synchronous_commit = off` (for itself
 * only), so the commit does not wait for the WAL to reach the disk and a slow fsync holds neither
 * the caller nor a pooled connection. PostgreSQL still writes it within `wal_writer_delay`; a
 * crash before that loses it, and never leaves the database inconsistent. Bookings, transitions,
 * debits and webhook attempts do not use it.
 */
export const COMMIT_WITHOUT_WAITING_FOR_DISK = `(select set_config('synchronous_commit', 'off', true)) as lossy_commit`;
