// Lab 08's peer: CUB's DeviceReduce::Sum over n floats, timed with CUDA events around the call
// (its kernels only: temporary storage allocated once before), median of `trials` after a
// warm-up; GB/s counts the n * 4 bytes read, as the lab's rungs do.
// Usage: cub_sum N [TRIALS=50]
#include <cub/cub.cuh>

#include "common.cuh"

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: cub_sum N [TRIALS=50]\n");
        return 2;
    }
    const std::size_t n = arg_or(argc, argv, 1, 0, "N");
    const unsigned trials = arg_or(argc, argv, 2, 50, "TRIALS");
    std::vector<float> hx(n);
    double want = 0;
    unsigned v = 7u;
    for (auto &e : hx) {
        v = v * 1664525u + 1013904223u;
        e = float(1 + (v >> 30));  // whole numbers 1 to 4: the sum is exact below 2^24 per part
        want += e;
    }
    float *x, *out;
    CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&out, sizeof(float)));
    CHECK_CUDA(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    void *temp = nullptr;
    std::size_t temp_bytes = 0;
    CHECK_CUDA(cub::DeviceReduce::Sum(temp, temp_bytes, x, out, n));
    CHECK_CUDA(cudaMalloc(&temp, temp_bytes));
    cudaEvent_t e0, e1;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    std::vector<double> ms;
    for (unsigned t = 0; t <= trials; ++t) {
        CHECK_CUDA(cudaEventRecord(e0));
        CHECK_CUDA(cub::DeviceReduce::Sum(temp, temp_bytes, x, out, n));
        CHECK_CUDA(cudaEventRecord(e1));
        CHECK_CUDA(cudaEventSynchronize(e1));
        float m = 0;
        CHECK_CUDA(cudaEventElapsedTime(&m, e0, e1));
        if (t) ms.push_back(m);
    }
    float got = 0;
    CHECK_CUDA(cudaMemcpy(&got, out, sizeof(float), cudaMemcpyDeviceToHost));
    const bool ok = std::abs(got - want) <= 1e-5 * want + 1;
    const double m = median(ms);
    std::printf("peer cub_sum n %zu trials %u ms %.5f gbps %.1f %s\n", n, trials, m,
                n * 4.0 / (m * 1e6), ok ? "verified" : "WRONG");
    return ok ? 0 : 1;
}
