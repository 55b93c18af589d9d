"""Serving the lab's model artifacts through MLServer (docs/foundry-serving.md)."""
