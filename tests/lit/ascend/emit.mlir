// RUN: rm -rf %t && pto-opt %s -p wsp-to-tg -t 'ascend{stub-kernels=true soc="950"}' -o %t 2>&1 | filecheck %s --check-prefix=LIST
// RUN: filecheck %s --input-file=%t/aicpu_orchestrate.cpp --check-prefix=ORCH
// RUN: filecheck %s --input-file=%t/kernel_ids.h --check-prefix=IDS
// RUN: filecheck %s --input-file=%t/kernels/k.cpp --check-prefix=WRAP
// RUN: filecheck %s --input-file=%t/Makefile.device --check-prefix=DEV
// Without -p wsp-to-tg the target runs the shared lowering itself (as -t aie): the same tree.
// RUN: rm -rf %t.auto && pto-opt %s -t 'ascend{stub-kernels=true soc="950"}' -o %t.auto
// RUN: diff %t/aicpu_orchestrate.cpp %t.auto/aicpu_orchestrate.cpp

// pto-opt -t ascend -o DIR writes the tree and lists its files; stub-kernels gives the
// kernel an empty body with a warning.

wsp.kernel @k(b: index, h: index, x: in memref<16xf32>, y: inout memref<4x16xf32>) unit(cube)

wsp.workload @w(%x: memref<?x16xf32>, %y: memref<?x4x16xf32>, %n: index) {
  %bs = wsp.dense_dyn %n
  %hs = wsp.dense 4
  wsp.for_each %b in %bs named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %hs named("h") : !wsp.dense<4> {
      %xv = wsp.view %x[%b] : memref<?x16xf32> -> memref<16xf32>
      %yv = wsp.view %y[%b] : memref<?x4x16xf32> -> memref<4x16xf32>
      wsp.task @k(%b, %h : index, index) resources(%xv, %yv : memref<16xf32>, memref<4x16xf32>)
    }
  }
}

sched.schedule @s for @w {
  sched.dispatch affinity("h")
  sched.task_window 8 overflow(stall)
}

// LIST: warning: kernel @k has no Ascend body: its tasks run an empty stub
// LIST-DAG: {{.*}}/aicpu_orchestrate.cpp
// LIST-DAG: {{.*}}/aicore_dispatch.cpp
// LIST-DAG: {{.*}}/kernel_ids.h
// LIST-DAG: {{.*}}/task_abi.h
// LIST-DAG: {{.*}}/kernels/k.cpp
// LIST-DAG: {{.*}}/kernels/k.h
// LIST-DAG: {{.*}}/kernels/k_body.cpp
// LIST-DAG: {{.*}}/Makefile.host
// LIST-DAG: {{.*}}/Makefile.device
// LIST-DAG: {{.*}}/ascend_host/src/runtime.cpp
// LIST-DAG: {{.*}}/ascend_host/src/builder.cpp
// LIST-DAG: {{.*}}/ascend_host/src/executor.cpp
// LIST-DAG: {{.*}}/ascend_host/src/ready_queue.h

// ORCH: void w_orchestrate(pto::wsp::Builder& _b, const pto::wsp::View& x_in, const pto::wsp::View& y_in, int64_t n) {
// ORCH-NEXT: const pto::wsp::View x = x_in;
// ORCH-NEXT: const pto::wsp::View y = y_in;
// ORCH:        _b.enter_ordered();
// ORCH:        for (int64_t b = {{.*}}; b < n; b += {{.*}}) {
// ORCH:          for (int64_t h = {{.*}}; h < {{.*}}; h += {{.*}}) {
// ORCH:            const pto::wsp::View [[X:.*]] = x.sub({0, 1}, {b, 0}, {1, 16}, {1, 1}, 0x2u);
// ORCH:            const pto::wsp::View [[Y:.*]] = y.sub({0, 1, 2}, {b, 0, 0}, {1, 4, 16}, {1, 1, 1}, 0x6u);
// ORCH:            pto::wsp::TaskBuilder _t = _b.alloc_task(KERNEL_K, pto::wsp::ExecDomain::HostCPU, pto::wsp::ExecPool::Cube, h, 0, 0, &kSite0);
// ORCH-NEXT:       _t.add_scalar(b);
// ORCH-NEXT:       _t.add_scalar(h);
// ORCH-NEXT:       _t.add_input_unwritten([[X]]);
// ORCH-NEXT:       _t.add_inout([[Y]]);
// ORCH-NEXT:       _t.at(0, b);
// ORCH-NEXT:       _t.at(1, h);
// ORCH-NEXT:       _b.submit(_t);
// ORCH:          _b.order_point();
// ORCH:        _b.exit_ordered();
// ORCH:      c.dispatch = pto::wsp::Dispatch::Affinity;
// ORCH-NEXT: c.task_window = 8;
// ORCH-NEXT: c.window_overflow = pto::wsp::Overflow::Stall;

// IDS: #define KERNEL_LIST(X) \
// IDS-NEXT: X(KERNEL_K, k, Cube, 2, 2)

// WRAP:      extern "C" __global__ __aicore__ void k_wrapper(GM_ADDR task_gm) {
// WRAP:        k(
// WRAP-NEXT:     task->args[0].i64,
// WRAP-NEXT:     task->args[1].i64,
// WRAP-NEXT:     pto::wsp::gm_tensor<const float, 1>(task->io[0].region),
// WRAP-NEXT:     pto::wsp::gm_tensor<float, 2>(task->io[1].region));

// DEV: SOC_VERSION ?= Ascend950
// DEV: --cce-aicore-arch=dav-c310-cube -DPTO_WSP_AIC
