"""The CPU simulator: task-graph runtime, executors, cost model and traces."""
