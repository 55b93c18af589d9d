/**
 * The ACL pre-filter of the embedded index as one SQL fragment: the seqs of the chunks whose
 * document admits the caller (domain/documents/acl.ts `canSee`, compiled to SQL) and matches the
 * doc_id / entity_id / doc_type filters. Both legs constrain themselves with it inside the
 * engine. The caller's roles and barriers are bound as JSON arrays (`json_each(?)`), so the
 * statement text never depends on the caller.
 */

/** Named parameters every leg binds (`:identity`, `:roles`, `:barriers`, filters, `:limit`). */
export type LegScope = Record<string, string | number | null>;

/**
 * Whether document `d` admits the caller and matches the filters: a predicate over the alias
 * `d` (documents), for queries that check candidate chunks one by one instead of listing
 * every permitted chunk.
 */
export const ADMITS = `
      (d.visibility = 'tenant_wide'
          OR (d.visibility = 'deal_private'
              AND EXISTS (SELECT 1 FROM json_each(d.allowed_identity_ids) a WHERE a.value = :identity))
          OR (d.visibility = 'team_only'
              AND EXISTS (SELECT 1 FROM json_each(d.allowed_roles) a
                           WHERE a.value IN (SELECT value FROM json_each(:roles)))))
     AND (d.barrier_id IS NULL OR d.barrier_id IN (SELECT value FROM json_each(:barriers)))
     AND (:doc_id IS NULL OR d.doc_id = :doc_id)
     AND (:entity_id IS NULL OR d.entity_id = :entity_id)
     AND (:doc_type IS NULL OR d.doc_type = :doc_type)`;

/** The seqs of every permitted chunk. */
export const PERMITTED = `
  SELECT c.seq FROM documents d JOIN chunks c ON c.doc_id = d.doc_id
   WHERE ${ADMITS}`;
