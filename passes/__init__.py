"""Rewrite-pattern passes over the pto-wsp dialects."""
