/**
 * Short leases for the JobQueue contract, so a crashed worker's job is reclaimed in
 * about a second instead of the production 30 s.
 */
export const CRASH_LEASE_MS = 600;
/** Embedded: idle poll interval. BullMQ: stalled-job check interval. */
export const FAST_POLL_MS = 50;
export const STALLED_INTERVAL_MS = 300;
