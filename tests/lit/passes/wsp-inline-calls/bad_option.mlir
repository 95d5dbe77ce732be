// RUN: not pto-opt %s -p 'wsp-inline-calls{bogus=true}' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not pto-opt %s -p 'wsp-inline-calls{inline-scheduled=3}' 2>&1 | FileCheck %s --check-prefix=TYPE

// Options are the pass's dataclass fields, dashes for underscores: an unknown option or a
// value of the wrong type is an error that names it; no traceback.

wsp.workload @main() {
}

// UNKNOWN-NOT: Traceback
// UNKNOWN: error: {{.*}}wsp-inline-calls{{.*}}"bogus"{{.*}}"inline_scheduled", "remove_dead_callees"
// TYPE-NOT: Traceback
// TYPE: error: invalid options for pass 'wsp-inline-calls': option 'inline-scheduled' takes bool, given 3
