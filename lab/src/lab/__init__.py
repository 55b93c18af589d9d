"""Cairn lab worker."""
