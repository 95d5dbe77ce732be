// The IRDL pto-opt prints loads into upstream MLIR, and upstream then knows our types.
// RUN: pto-opt --emit-irdl > %t.irdl.mlir
// RUN: %PYTHON -c "import sys, mlir.ir as ir; from mlir.dialects import irdl; c = ir.Context(); m = ir.Module.parse(open(sys.argv[1]).read(), c); irdl.load_dialects(m); print(ir.Type.parse('!wsp.dense_type<8 : i64>', c))" %t.irdl.mlir | filecheck %s
// CHECK: !wsp.dense_type<8 : i64>
// A module upstream rejects: the checker says why, and fails.
// RUN: not PTO_UPSTREAM %s 2>&1 | filecheck %s --check-prefix=BAD
// BAD: upstream: error: {{.*}}upstream_irdl.mlir: cannot read the input
"wsp.dense"() : () -> ()
