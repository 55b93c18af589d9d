"""Learned reranker for hybrid document search (issue 20): training and export.

The service's reranker (domain/documents/rerank.ts) scores the fused top 50 chunks with a small
model over rank features (domain/documents/rank-features.ts). The retrieval evaluation
(bench/retrieval-eval.ts --dump-features) writes those features with 0/1 labels; this package
fits a model on them, evaluates it leave-one-dataset-out, and exports it as the JSON the service
reads (domain/documents/rank-model.json).
"""
