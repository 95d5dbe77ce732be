"""The CPU backend: tg programs compiled to Python (pygen) for materialization and the simulator."""
