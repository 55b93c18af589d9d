"""Foundry in the lab: dataset builds over the lakehouse (docs/foundry.md)."""
