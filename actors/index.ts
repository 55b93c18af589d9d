/** The actor primitives and the actors built on them. Import across folders only from here. */
export {
  Actor,
  type ActorEvent,
  type ActorExit,
  type ActorOptions,
  type ActorStatus,
  DEFAULT_SUPERVISION,
  type Reply,
  type StopMode,
  type SupervisionOptions,
} from "./actor.ts";
export {
  addressPrefix,
  authenticatedBody,
  FrameCache,
  framed,
  MSG as COLLAB_MSG,
  permissionDeniedBody,
} from "./editor/frames.ts";
export { CollabRoom } from "./editor/room.ts";
export { CollabRooms, type CollabRoomsOptions, type CollabRoomsStats } from "./editor/rooms.ts";
export { DebouncedSaver, type SaverOptions } from "./editor/saver.ts";
export {
  type CollabPeer,
  ROOM_DEFAULTS,
  type RoomDeps,
  type RoomLogger,
  type RoomOptions,
} from "./editor/types.ts";
export {
  DEFAULT_FAIL_REASON,
  type DiscardReason,
  Mailbox,
  type MailboxOptions,
  type MailboxStats,
  OVERFLOW_POLICIES,
  type OverflowEvent,
  type OverflowPolicy,
  type Take,
  validateMailboxOptions,
} from "./mailbox.ts";
export {
  type CompiledFilter,
  compileFilter,
  matchesCompiled,
  NewsIndex,
  type NewsIndexStats,
} from "./news/filter-index.ts";
export { NEWS_DEFAULTS, NewsHub, type NewsHubOptions, type NewsHubStats, type NewsLogger } from "./news/hub.ts";
export { ArticleRing } from "./news/ring.ts";
export {
  type HubArticle,
  type NewsSink,
  NewsSubscriber,
  type SubscriberMeta,
  type SubscriberStats,
} from "./news/subscriber.ts";
export { Registry, type RegistryErrorEvent, type RegistryOptions, type UnloadReason } from "./registry.ts";
export {
  assertActive,
  TENANT_INVALIDATE_CHANNEL,
  TenantActor,
  TenantDirectory,
  type TenantDirectoryOptions,
  type TenantLogger,
  type TenantStore,
} from "./tenants/tenant.ts";
export { RateLimiter } from "./user/rate-limiter.ts";
export { type UsageEvent, UsageRecorder, type UsageStore, type UsageTotals } from "./user/usage.ts";
