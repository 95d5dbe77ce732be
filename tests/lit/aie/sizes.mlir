// A bound size the AIE mapping cannot enumerate is refused before any task is walked (each
// of these runs in well under a second); a value beyond 64 bits is refused as a binding.
// RUN: not pto-opt %S/../../../examples/megakernel.mlir -t 'aie{bind="num_tiles=65537"}' 2>&1 | FileCheck %s --check-prefix=JUST
// RUN: not pto-opt %S/../../../examples/megakernel.mlir -t 'aie{bind="num_tiles=9223372036854775807"}' 2>&1 | FileCheck %s --check-prefix=MAX
// RUN: not pto-opt %S/../../../examples/megakernel.mlir -t 'aie{bind="num_tiles=1000000000000000000000000000000"}' 2>&1 | FileCheck %s --check-prefix=WIDE

// JUST: megakernel.mlir:21:9: error: 'tg.task' op tg-to-aie: process @loader runs 65,537 tasks, more than 65,536; the AIE mapping enumerates them to derive its transfers
// MAX: process @loader runs 9,223,372,036,854,775,807 tasks, more than 65,536
// WIDE: pto-opt: error: tg-to-aie: num_tiles is an index: 1000000000000000000000000000000 does not fit in 64 bits
