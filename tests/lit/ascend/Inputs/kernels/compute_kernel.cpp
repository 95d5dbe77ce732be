// Test body of @compute_kernel: x = 2x + 1, in place.
__aicore__ void compute_kernel(int64_t b, pto::wsp::GmTensor<float, 1> x) {
  (void)b;
  for (int64_t i = 0; i < x.size(0); ++i) x(i) = 2.0f * x(i) + 1.0f;
}
