// Test body of @load_kernel: copy a row.
__aicore__ void load_kernel(int64_t b, pto::wsp::GmTensor<const float, 1> src,
                            pto::wsp::GmTensor<float, 1> dst) {
  (void)b;
  for (int64_t i = 0; i < src.size(0); ++i) dst(i) = src(i);
}
