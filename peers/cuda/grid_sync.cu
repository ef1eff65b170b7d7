// Lab 09's peer: the same stepped workload in one cooperative launch, each step ended by
// cooperative groups' grid.sync(). Prints the median per step over `trials` launches.
// Usage: grid_sync GROUPS [WG=64] [STEPS=1000] [TRIALS=20] [N=4096]
#include <cooperative_groups.h>

#include "common.cuh"

namespace cg = cooperative_groups;

__global__ void steps_grid_sync(unsigned *a, unsigned *b, unsigned n, unsigned steps) {
    cg::grid_group grid = cg::this_grid();
    for (unsigned s = 0; s < steps; ++s) {
        do_step(s % 2 ? b : a, s % 2 ? a : b, n, s, blockIdx.x, gridDim.x);
        grid.sync();
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: grid_sync GROUPS [WG=64] [STEPS=1000] [TRIALS=20] [N=4096]\n");
        return 2;
    }
    const unsigned groups = arg_or(argc, argv, 1, 0, "GROUPS"), wg = arg_or(argc, argv, 2, 64, "WG");
    unsigned steps = arg_or(argc, argv, 3, 1000, "STEPS");
    const unsigned trials = arg_or(argc, argv, 4, 20, "TRIALS"), n = arg_or(argc, argv, 5, 4096, "N");
    int per_sm = 0, sms = 0, coop = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, steps_grid_sync, wg, 0));
    if (!coop || groups > unsigned(per_sm * sms)) {
        std::fprintf(stderr, "grid_sync: %u groups of %u cannot all be resident (%d per SM, %d SMs)\n",
                     groups, wg, per_sm, sms);
        return 2;
    }
    const std::vector<unsigned> x = steps_input(n), want = steps_reference(x, steps);
    unsigned *a, *b;
    CHECK_CUDA(cudaMalloc(&a, n * sizeof(unsigned)));
    CHECK_CUDA(cudaMalloc(&b, n * sizeof(unsigned)));
    void *args[] = {&a, &b, (void *)&n, &steps};
    std::vector<double> ms;
    bool ok = true;
    for (unsigned t = 0; t <= trials; ++t) {  // the first is a warm-up
        CHECK_CUDA(cudaMemcpy(a, x.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
        const double start = now_ms();
        CHECK_CUDA(cudaLaunchCooperativeKernel((void *)steps_grid_sync, groups, wg, args, 0, 0));
        CHECK_CUDA(cudaDeviceSynchronize());
        if (t) ms.push_back(now_ms() - start);
        std::vector<unsigned> got(n);
        CHECK_CUDA(cudaMemcpy(got.data(), steps % 2 ? b : a, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
        ok = ok && got == want;
    }
    const double m = median(ms);
    std::printf("peer grid_sync groups %u wg %u steps %u trials %u ms %.4f us_per_step %.3f %s\n",
                groups, wg, steps, trials, m, m * 1000 / steps, ok ? "verified" : "WRONG");
    return ok ? 0 : 1;
}
