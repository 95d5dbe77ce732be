// Test body of @expert_kernel: out = weights . tokens (a 128x128 matrix-vector product).
__aicore__ void expert_kernel(int64_t b, int64_t e, pto::wsp::GmTensor<const float, 1> tokens,
                              pto::wsp::GmTensor<const float, 2> weights,
                              pto::wsp::GmTensor<float, 1> out) {
  (void)b;
  (void)e;
  for (int64_t i = 0; i < weights.size(0); ++i) {
    float acc = 0.0f;
    for (int64_t j = 0; j < weights.size(1); ++j) acc += weights(i, j) * tokens(j);
    out(i) = acc;
  }
}
