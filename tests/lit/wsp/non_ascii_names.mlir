// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: not pto-opt %s --split-input-file -t pto 2>&1 | FileCheck %s --check-prefix=PTO

// Index and argument names are ASCII identifiers, as MLIR's and .pto's: a name becomes a
// block argument's name, which xDSL takes only in ASCII, and a .pto name. A non-ASCII
// letter passed str.isalpha and failed later (an internal error in wsp-to-tg, a .pto file
// pto-opt could not read back).

// PTO-NOT: internal error
// PTO-NOT: @workload
wsp.kernel @k(r: index) unit(vector)
wsp.workload @w(%n: index) {
  %rows = wsp.dense_dyn %n
  wsp.parallel_for %r in %rows named("é") : !wsp.dense_dyn {
    wsp.task @k(%r : index) resources()
  }
}

// CHECK: non_ascii_names.mlir:[[# @LINE - 5]]:3: error: 'wsp.parallel_for' op index name 'é' is not an identifier (an ASCII letter or '_', then letters, digits or '_')
// PTO: non_ascii_names.mlir:[[# @LINE - 6]]:3: error: 'wsp.parallel_for' op index name 'é' is not an identifier

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%s: !wsp.sparse, %b: index) {
  wsp.select %e in %s[%b] named("eé") : !wsp.sparse {
  }
}

// CHECK: error: 'wsp.select' op index name 'eé' is not an identifier

// -----
// CHECK: //{{ }}-----

"wsp.workload"() <{sym_name = "w", function_type = (index) -> (), arg_names = ["ñ"], level = "cpu"}> ({
^bb0(%n: index):
  "wsp.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'wsp.workload' op workload argument name 'ñ' is not an identifier
