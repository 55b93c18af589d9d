/**
 * The OpenSearch side of the document index: the index body (settings + strict mapping),
 * record ids, and the pre-filter compiled from the caller's ACL and search filters. Kept
 * apart from the adapter so the filter can be read next to domain/documents/acl.ts.
 */
import type { CompiledAcl } from "../../domain/documents/acl.ts";
import type { DocumentMeta, SearchFilters, Visibility } from "../../domain/documents/types.ts";

/** Bumped when the mapping changes; an index with another version is not "ready". */
export const MAPPING_VERSION = 1;

export const DOC_PREFIX = "doc:";
export const docRecordId = (docId: string) => `${DOC_PREFIX}${docId}`;
export const chunkId = (id: string) => `chunk:${id}`;

interface AclFields {
  doc_id: string;
  visibility: Visibility;
  allowed_identity_ids: string[];
  allowed_roles: string[];
  barrier_id: string | null;
  entity_id: string | null;
  doc_type: string;
  document: DocumentMeta;
}

export interface ChunkSource extends AclFields {
  kind: "chunk";
  chunk_id: string;
  chunk_index: number;
  text: string;
  page: number | null;
  embedding?: number[];
}

export interface DocSource extends AclFields {
  kind: "document";
  chunk_ids: string[];
}

export function indexBody(dim: number, replicas: number): Record<string, unknown> {
  const keyword = { type: "keyword" };
  return {
    settings: {
      index: {
        number_of_shards: 1,
        number_of_replicas: replicas,
        // Writers refresh explicitly after each document: a document's chunks appear together.
        refresh_interval: "-1",
        knn: true,
      },
      analysis: {
        // The same tokenisation as SQLite's `porter unicode61`: runs of letters, digits and
        // marks (so "text:near" is two terms, as there), lower case, diacritics folded, Porter stems.
        tokenizer: { cairn_words: { type: "pattern", pattern: "[^\\p{L}\\p{N}\\p{M}]+" } },
        analyzer: {
          cairn_text: {
            type: "custom",
            tokenizer: "cairn_words",
            filter: ["lowercase", "asciifolding", "porter_stem"],
          },
        },
      },
    },
    mappings: {
      dynamic: "strict",
      _meta: { cairn_mapping_version: MAPPING_VERSION },
      properties: {
        kind: keyword,
        doc_id: keyword,
        chunk_id: keyword,
        chunk_index: { type: "integer" },
        text: { type: "text", analyzer: "cairn_text" },
        page: { type: "integer" },
        embedding: {
          type: "knn_vector",
          dimension: dim,
          method: {
            name: "hnsw",
            engine: "lucene",
            space_type: "cosinesimil",
            parameters: { m: 16, ef_construction: 128 },
          },
        },
        visibility: keyword,
        allowed_identity_ids: keyword,
        allowed_roles: keyword,
        barrier_id: keyword,
        entity_id: keyword,
        doc_type: keyword,
        // Returned with every hit, never searched.
        document: { type: "object", enabled: false },
        chunk_ids: { type: "keyword", index: false, doc_values: false },
      },
    },
  };
}

/** The ACL of `acl.ts` as a bool filter over the keyword fields. */
export function aclFilter(acl: CompiledAcl): Record<string, unknown> {
  const visible: Record<string, unknown>[] = [
    { term: { visibility: "tenant_wide" } },
    {
      bool: { filter: [{ term: { visibility: "deal_private" } }, { term: { allowed_identity_ids: acl.identityId } }] },
    },
  ];
  if (acl.roles.length > 0) {
    visible.push({
      bool: { filter: [{ term: { visibility: "team_only" } }, { terms: { allowed_roles: acl.roles } }] },
    });
  }
  const barrier: Record<string, unknown>[] = [{ bool: { must_not: [{ exists: { field: "barrier_id" } }] } }];
  if (acl.barriers.length > 0) barrier.push({ terms: { barrier_id: acl.barriers } });
  return {
    bool: {
      filter: [
        { bool: { should: visible, minimum_should_match: 1 } },
        { bool: { should: barrier, minimum_should_match: 1 } },
      ],
    },
  };
}

/** Chunks only, permitted by the ACL, narrowed by the caller's filters. */
export function searchFilter(acl: CompiledAcl, filters: SearchFilters): Record<string, unknown> {
  const must: Record<string, unknown>[] = [{ term: { kind: "chunk" } }, aclFilter(acl)];
  if (filters.doc_id !== undefined) must.push({ term: { doc_id: filters.doc_id } });
  if (filters.entity_id !== undefined) must.push({ term: { entity_id: filters.entity_id } });
  if (filters.doc_type !== undefined) must.push({ term: { doc_type: filters.doc_type } });
  return { bool: { filter: must } };
}
