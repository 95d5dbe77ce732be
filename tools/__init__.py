"""Command-line tools: pto-opt."""
