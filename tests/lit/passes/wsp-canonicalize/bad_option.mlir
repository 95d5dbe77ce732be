// RUN: not pto-opt %s -p 'wsp-canonicalize{bogus=true}' 2>&1 | FileCheck %s

// wsp-canonicalize takes no option: any option is an error that names it; no traceback.

wsp.workload @main() {
}

// CHECK-NOT: Traceback
// CHECK: error: {{.*}}wsp-canonicalize{{.*}}"bogus"
