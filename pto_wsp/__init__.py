"""pto-wsp: PTO Workload-Schedule Programming as MLIR dialects in xDSL.

The dialects live in ``pto_wsp.dialects`` (wsp, csp, sched), the passes in
``pto_wsp.passes`` and the command-line tools in ``pto_wsp.tools``.
"""

__version__ = "0.1.0"
