"""Target backends (cpu_sim, aie, ascend) lowering the task-graph dialect."""
